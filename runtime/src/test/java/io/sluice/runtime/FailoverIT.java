package io.sluice.runtime;

import static io.sluice.runtime.StandbyPairs.await;
import static io.sluice.runtime.StandbyPairs.queryLong;
import static io.sluice.runtime.StandbyPairs.userPath;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.postgres.ClientPrograms;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresServer;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice run} from a PostgreSQL 17 primary with a hot standby that synchronizes the
 * pipeline's failover slot ({@code sync_replication_slots}, {@code synchronized_standby_slots},
 * {@code hot_standby_feedback}), the source URL naming both servers. Under a pgbench workload
 * the primary is stopped at once, as a crash would, and the standby promoted: the pipeline goes on
 * by itself from the new primary's copy of the slot, without a new snapshot, and every table
 * ends equal to the new primary's, the keyless {@code pgbench_history} included (a change applied
 * twice would show there). Without a failover slot the same promotion stops the pipeline with a
 * message that names {@code --fresh}, and nothing is streamed past the gap.
 */
class FailoverIT {

    private static final int VERSION = 17;
    private static final List<String> TABLES = List.of("pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history");

    private final Path work = Path.of(System.getProperty("sluice.test.workdir", "target/test-services"), "failover-" + System.currentTimeMillis());

    @Test
    void aPromotedStandbyTakesTheStreamOverWithoutANewSnapshot() throws Exception {
        withPrimaryAndStandby("failover", (primary, standby, source, target) -> {
            Pgbench pgbench = pgbench();
            pgbench.run(source, "-i", "-q", "-s", "2");
            String name = "failover";
            SluiceProcess sluice = streaming(source, standby, target, name, "source.slot.failover=true");
            Process bench = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-T", "600", "-R", "50");
            try {
                long applied = awaitApplied(target, name, 300, sluice);
                // The standby's copy of the slot must be one a promotion keeps: synchronized and no longer temporary.
                await(sluice, () -> queryLong(standby, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot(name)
                        + "' AND synced AND NOT temporary") == 1, "the standby's copy of the slot");
                awaitApplied(target, name, applied + 200, sluice);
            } finally {
                primary.close();
                bench.destroy();
                bench.waitFor(60, TimeUnit.SECONDS);
            }
            // Promoted only once the pipeline has lost the old primary: it must wait through a time with no primary at all.
            await(sluice, () -> sluice.output().contains("Lost the stream from slot " + slot(name)), "the loss of the primary");
            standby.promote();
            TestDatabase promoted = TestDatabases.on(standby, source.name());
            pgbench.run(promoted, "-n", "-c", "2", "-t", "150");
            promoted.execute("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (-1, -1, -1, 0, now())");
            target.awaitSameAs(promoted, "SELECT count(*) FROM pgbench_history WHERE tid = -1", Duration.ofSeconds(180), "the last change");
            for (String table : TABLES) {
                target.awaitChecksumOf(promoted, table, Duration.ofSeconds(60));
            }
            assertThat(sluice.alive()).as(sluice.output()).isTrue();
            int exit = sluice.terminate(60);
            String out = sluice.output();
            assertThat(exit).as(out).isZero();
            assertThat(out).as("the stream was lost and found again").contains("Lost the stream from slot " + slot(name))
                    .doesNotContain("--fresh").doesNotContain("ERROR");
            assertThat(out.split("Snapshot done", -1)).as("one snapshot:\n" + out).hasSize(2);
        });
    }

    @Test
    void aSlotThatDidNotFollowThePromotionStopsThePipelineNamingFresh() throws Exception {
        withPrimaryAndStandby("nofailover", (primary, standby, source, target) -> {
            source.execute("CREATE TABLE items (id int PRIMARY KEY, v text)", "INSERT INTO items SELECT g, 'v' FROM generate_series(1, 100) g");
            String name = "nofailover";
            SluiceProcess sluice = streaming(source, standby, target, name);
            source.execute("INSERT INTO items VALUES (101, 'before')");
            target.awaitSameAs(source, "SELECT count(*) FROM items", Duration.ofSeconds(60), "a change before the failover");
            primary.close();
            standby.promote();
            TestDatabases.on(standby, source.name()).execute("INSERT INTO items VALUES (102, 'after')");
            int exit = sluice.awaitExit(180);
            String out = sluice.output();
            assertThat(exit).as(out).isNotZero();
            assertThat(out).contains("Replication slot " + slot(name) + " is not on").contains("slot.failover=true")
                    .contains("sluice run --fresh");
            assertThat(target.queryLong("SELECT count(*) FROM items")).as("nothing streamed past the gap").isEqualTo(101);
        });
    }

    /** Before 17 a slot cannot follow a promotion: asking for a failover slot stops the run at once, nothing made. */
    @Test
    void aFailoverSlotIsRefusedBefore17() throws Exception {
        // A server of 16 of its own: the suite's shared one may be 17 or later (-Dsluice.test.postgres).
        try (PostgresServer.Launched server = PostgresServer.launch("failover-v16", 16)) {
            TestDatabase source = TestDatabases.create(server, FailoverIT.class);
            TestDatabase target = TestDatabases.create(server, FailoverIT.class);
            try {
                refusedBefore17(source, target);
            } finally {
                TestDatabases.drop(source);
                TestDatabases.drop(target);
            }
        }
    }

    private void refusedBefore17(TestDatabase source, TestDatabase target) throws Exception {
        assertThat(source.server().majorVersion()).isLessThan(17);
        source.execute("CREATE TABLE items (id int PRIMARY KEY)");
        SluiceProcess sluice = SluiceProcess.start(work, userPath(), "run", "--source", SluiceRuns.url(source), "--target",
                SluiceRuns.url(target), "--name", "early", "--offsets", work.resolve("early.offsets").toString(),
                "--set", "source.slot.failover=true");
        int exit = sluice.awaitExit(120);
        String out = sluice.output();
        assertThat(exit).as(out).isNotZero();
        assertThat(out).contains("slot.failover=true needs PostgreSQL 17 or later").contains("Set slot.failover=false");
        assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"))
                .as("slots made").isZero();
    }

    private final List<SluiceProcess> started = new java.util.ArrayList<>();

    /** A 17 primary with a database, its hot standby that synchronizes slots, a target database; pipelines started are stopped after. */
    private void withPrimaryAndStandby(String name, StandbyPairs.PairTest test) throws Exception {
        StandbyPairs.withPrimaryAndStandby(name, VERSION, new String[] {"sync_replication_slots = on", "hot_standby_feedback = on"},
                (primary, standby, source, target) -> {
                    // Logical walsenders send nothing the standby has not received, so the slot's copy never runs ahead of its WAL.
                    try (var c = primary.connect(primary.adminDatabase()); var s = c.createStatement()) {
                        s.execute("ALTER SYSTEM SET synchronized_standby_slots = 'standby1'");
                        s.execute("SELECT pg_reload_conf()");
                    }
                    try {
                        test.run(primary, standby, source, target);
                    } finally {
                        for (SluiceProcess sluice : started) {
                            sluice.close();
                        }
                    }
                });
    }

    /** {@code sluice run} from both hosts, once it streams. */
    private SluiceProcess streaming(TestDatabase source, PostgresServer standby, TestDatabase target, String name, String... settings)
            throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("run", "--source", bothHosts(source, standby), "--target", SluiceRuns.url(target),
                "--name", name, "--offsets", work.resolve(name + ".offsets").toString(), "--set", "source.status.update.interval.ms=200"));
        for (String setting : settings) {
            args.addAll(List.of("--set", setting));
        }
        SluiceProcess sluice = SluiceProcess.start(work, userPath(), args.toArray(String[]::new));
        started.add(sluice);
        await(sluice, () -> sluice.output().contains("Streaming changes from slot"), "the snapshot");
        return sluice;
    }

    private static Pgbench pgbench() {
        return Pgbench.at(ClientPrograms.version18().resolve("pgbench"));
    }

    private static String bothHosts(TestDatabase db, PostgresServer standby) {
        return "postgres://" + db.user() + ":" + db.password() + "@" + db.host() + ":" + db.port() + "," + standby.host() + ":" + standby.port()
                + "/" + db.name() + "?sslmode=disable";
    }

    private static String slot(String name) {
        return "sluice_" + name;
    }

    private static long applied(TestDatabase target, String name) {
        try {
            return target.queryLong("SELECT coalesce(max(changes), -1) FROM sluice.applied_position WHERE source = '" + name + "'");
        } catch (Exception e) {
            return -1; // the position table is not made yet
        }
    }

    private static long awaitApplied(TestDatabase target, String name, long atLeast, SluiceProcess sluice) throws Exception {
        await(sluice, () -> applied(target, name) >= atLeast, atLeast + " changes applied");
        return applied(target, name);
    }
}
