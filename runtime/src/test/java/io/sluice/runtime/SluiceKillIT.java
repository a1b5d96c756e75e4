package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sluice run} in a JVM of its own, killed with SIGKILL again and again while pgbench
 * writes to the source: during the snapshot, right as streaming takes over from it, and at
 * random moments of streaming. Each time the same command is started again. Once the workload
 * stops and the last run caught up, every table on the target must equal the source's, rows
 * and order-independent digest alike: nothing lost, nothing applied twice (pgbench_history has
 * no key, so a change applied twice would show as an extra row).
 */
@ExtendWith(PostgresExtension.class)
class SluiceKillIT {

    private static final Logger LOG = LoggerFactory.getLogger(SluiceKillIT.class);
    private static final int KILLS = 12;
    private static final List<String> TABLES = List.of("pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history",
            "documents");

    /** The runs' offsets, output and .sluice/ logs, kept under the module's test-services folder when the test fails. */
    private final Path work = Path.of(System.getProperty("sluice.test.workdir", "target/test-services"), "kill-" + System.currentTimeMillis());

    private enum Phase { SNAPSHOT, HAND_OFF, STREAMING }

    @Test
    void killedAtRandomMomentsUnderAPgbenchWorkloadLosesNothingAndAppliesNothingTwice() throws Exception {
        Pgbench pgbench = Pgbench.locate();
        TestDatabase source = TestDatabases.create(SluiceKillIT.class);
        TestDatabase target = TestDatabases.create(SluiceKillIT.class);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        LOG.info("Kill schedule seed {}; the runs' logs are in {}", seed, work.toAbsolutePath());
        Process workload = null;
        SluiceProcess sluice = null;
        Connection handOff = null;
        boolean passed = false;
        try {
            pgbench.run(source, "-i", "-q", "-s", "4", "--foreign-keys");
            // Wide values stored out of line, updated without touching them: unchanged TOAST under crashes.
            source.execute("CREATE TABLE documents (id int PRIMARY KEY, version int NOT NULL, body text NOT NULL)",
                    "ALTER TABLE documents ALTER COLUMN body SET STORAGE EXTERNAL",
                    "INSERT INTO documents SELECT g, 0, repeat(md5(g::text), 100) FROM generate_series(1, 500) g");
            Files.createDirectories(work);
            Path script = work.resolve("documents.sql");
            Files.writeString(script, "\\set id random(1, 500)\nUPDATE documents SET version = version + 1 WHERE id = :id;\n");
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "250", "-T", "3600",
                    "-b", "tpcb-like@9", "-f", script + "@1");

            String[] command = {"run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "kill",
                    "--offsets", work.resolve("kill.offsets").toString(), "--set", "source.status.update.interval.ms=200"};
            Map<Phase, Integer> kills = new TreeMap<>();
            List<Long> appliedAtKill = new ArrayList<>();
            for (int round = 0; round < KILLS; round++) {
                if (round == 1) {
                    // From here until the hand-off's kill, no streamed change may commit on the target, so the hand-off cannot
                    // pass before the kill meant for it, however fast the snapshot ends (it writes no position).
                    handOff = holdPositions(target);
                }
                sluice = SluiceProcess.start(work, command);
                if (round < 2) {
                    // Inside the snapshot: the first time as soon as it is seen, the second time inside the resumed one, if
                    // there is still some to read.
                    awaitPhase(sluice, source, target, Phase.SNAPSHOT, Phase.HAND_OFF, Phase.STREAMING);
                    if (round == 1) {
                        Thread.sleep(200 + random.nextInt(1300));
                    }
                } else if (round == 2) {
                    // The source has read everything and streams; the target still loads, builds indexes, or waits to commit
                    // the first streamed changes (held back by the lock above).
                    awaitPhase(sluice, source, target, Phase.HAND_OFF);
                } else if (round == 3) {
                    // The first streamed changes are in: the end of the snapshot is on its way to the offsets.
                    awaitPhase(sluice, source, target, Phase.STREAMING);
                } else {
                    // Once this run applies changes of its own, at a random moment.
                    long before = appliedAtKill.get(round - 1);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                    while (applied(target) <= before) {
                        assertThat(sluice.alive()).as("sluice runs until killed:\n" + sluice.output()).isTrue();
                        assertThat(System.nanoTime()).as("run " + (round + 1) + " applied changes within 120 s:\n" + sluice.output())
                                .isLessThan(deadline);
                        Thread.sleep(10);
                    }
                    Thread.sleep(random.nextInt(3000));
                }
                // Neither a snapshot session nor a walsender: the snapshot's connections are closed, the stream's not yet open.
                Phase phase = java.util.Objects.requireNonNullElse(phase(source, target), Phase.HAND_OFF);
                assertThat(sluice.alive()).as("sluice runs until killed:\n" + sluice.output()).isTrue();
                assertThat(workload.isAlive()).as("pgbench still writes").isTrue();
                sluice.kill();
                kills.merge(phase, 1, Integer::sum);
                if (round == 2) {
                    handOff.close();
                    handOff = null;
                }
                appliedAtKill.add(applied(target));
                LOG.info("Kill {} during {}; {} changes applied so far", round + 1, phase, appliedAtKill.get(round));
                sluice = null;
                Thread.sleep(random.nextInt(500));
            }
            assertThat(kills.getOrDefault(Phase.SNAPSHOT, 0)).as("kills during the snapshot: " + kills).isPositive();
            assertThat(kills.getOrDefault(Phase.HAND_OFF, 0)).as("kills at the hand-off: " + kills).isPositive();
            assertThat(kills.getOrDefault(Phase.STREAMING, 0)).as("kills while streaming: " + kills).isGreaterThanOrEqualTo(9);
            assertThat(appliedAtKill.get(KILLS - 1)).as("streamed changes applied across the kills").isGreaterThan(appliedAtKill.get(3));

            workload.destroy();
            assertThat(workload.waitFor(30, TimeUnit.SECONDS)).isTrue();
            workload = null;
            source.execute("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime, filler) VALUES (1, 1, 1, 0, now(), 'the end')");

            sluice = SluiceProcess.start(work, command);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!marked(target)) {
                assertThat(sluice.alive()).as("sluice stopped while catching up:\n" + sluice.output()).isTrue();
                assertThat(System.nanoTime()).as("the last run caught up within 180 s:\n" + sluice.output()).isLessThan(deadline);
                Thread.sleep(200);
            }
            for (String table : TABLES) {
                String name = table;
                // Built only on a failure: which accounts differ says which changes went missing or twice.
                assertThat(target.checksum(table)).as(() -> name + " after " + KILLS + " kills " + kills + ", seed " + seed
                                + (name.equals("pgbench_accounts") ? "; accounts that differ (aid=source/target balance): "
                                + differingAccounts(source, target) : "")
                                + (name.equals("pgbench_history") ? "; rows on the target more than once: " + twice(target) : "")
                                + "; the runs' logs: " + work.toAbsolutePath())
                        .isEqualTo(source.checksum(table));
            }
            int exit = sluice.terminate(60);
            assertThat(exit).as(sluice.output()).isZero();
            assertThat(sluice.output()).contains("Stopped.");
            sluice = null;
            passed = true;
        } finally {
            if (sluice != null) {
                LOG.info("Output of the last sluice run:\n{}", sluice.output());
                sluice.close();
            }
            if (workload != null) {
                workload.destroyForcibly();
            }
            if (handOff != null) {
                handOff.close();
            }
            TestDatabases.drop(source);
            TestDatabases.drop(target);
            if (passed) {
                deleteRecursively(work);
            }
        }
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Opens a transaction on the target that holds the position table in SHARE mode: it can be
     * read (so {@link #phase} still sees what is applied), but a streamed change, which commits
     * with its position, waits until the connection is closed. The snapshot's loads do not write
     * the table. The sink makes it with its first streamed change; here it is made first, as the
     * sink makes it.
     */
    private static Connection holdPositions(TestDatabase target) throws Exception {
        Connection c = target.connect();
        AppliedPositions positions = new AppliedPositions("sluice.applied_position");
        positions.ensure(c);
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("LOCK TABLE " + positions.name() + " IN SHARE MODE");
        }
        return c;
    }

    /** Waits until the running sluice is in one of the phases. */
    private static void awaitPhase(SluiceProcess sluice, TestDatabase source, TestDatabase target, Phase... phases) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            Phase now = phase(source, target);
            for (Phase p : phases) {
                if (p == now) {
                    return;
                }
            }
            if (!sluice.alive()) {
                throw new AssertionError("sluice ended while waiting for " + List.of(phases) + ":\n" + sluice.output());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + List.of(phases) + ":\n" + sluice.output());
            }
            Thread.sleep(10);
        }
    }

    /**
     * Streaming once the target has applied streamed changes; the hand-off while the pipeline's
     * wal sender streams but the target has none yet (the snapshot's rows are still loading, or
     * its indexes building); the snapshot while its readers read; else null (starting up).
     */
    private static Phase phase(TestDatabase source, TestDatabase target) throws Exception {
        if (applied(target) > 0) {
            return Phase.STREAMING;
        }
        String who = source.queryText("SELECT coalesce(string_agg(DISTINCT split_part(application_name, ' ', 2), ','), '') "
                + "FROM pg_stat_activity WHERE application_name IN ('sluice stream kill', 'sluice snapshot kill') "
                + "AND (backend_type = 'walsender' OR application_name = 'sluice snapshot kill')");
        return who.contains("stream") ? Phase.HAND_OFF : who.contains("snapshot") ? Phase.SNAPSHOT : null;
    }

    private static long applied(TestDatabase target) throws Exception {
        if (target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'sluice' AND tablename = 'applied_position'") == 0) {
            return 0;
        }
        return target.queryLong("SELECT coalesce(sum(changes), 0) FROM sluice.applied_position");
    }

    private static boolean marked(TestDatabase target) throws Exception {
        return target.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = 'pgbench_history'") == 1
                && target.queryLong("SELECT count(*) FROM pgbench_history WHERE filler = 'the end'") == 1;
    }

    /** How many history rows the target holds more than once, and when the first and last of them were made on the source. */
    private static String twice(TestDatabase target) {
        try {
            return target.queryText("SELECT count(*) || ' rows, made ' || coalesce(min(mtime)::text, '-') || ' to ' || coalesce(max(mtime)::text, '-') "
                    + "FROM (SELECT mtime FROM pgbench_history GROUP BY tid, bid, aid, delta, mtime, filler HAVING count(*) > 1) d");
        } catch (Exception e) {
            return "not read: " + e.getMessage();
        }
    }

    /** At most 20 accounts whose balance differs, for a failure that says which changes went missing or twice. */
    private static Map<Integer, String> differingAccounts(TestDatabase source, TestDatabase target) {
        try {
            Map<Integer, Integer> on = balances(source);
            Map<Integer, Integer> copy = balances(target);
            Map<Integer, String> differ = new TreeMap<>();
            for (Map.Entry<Integer, Integer> e : on.entrySet()) {
                if (!e.getValue().equals(copy.get(e.getKey())) && differ.size() < 20) {
                    differ.put(e.getKey(), e.getValue() + "/" + copy.get(e.getKey()));
                }
            }
            return differ;
        } catch (Exception e) {
            return Map.of(-1, "not read: " + e.getMessage());
        }
    }

    private static Map<Integer, Integer> balances(TestDatabase db) throws Exception {
        Map<Integer, Integer> balances = new java.util.HashMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT aid, abalance FROM pgbench_accounts")) {
            while (rs.next()) {
                balances.put(rs.getInt(1), rs.getInt(2));
            }
        }
        return balances;
    }
}
