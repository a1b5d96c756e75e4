package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.browser.HeadlessChromium;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code sluice run} into two PostgreSQL targets under a pgbench workload; target two's
 * database stops taking connections. Two is left behind, and once the slot keeps more WAL for it
 * than its {@code detach.after.bytes} it is detached: one ERROR line, the slot moves on past what
 * two holds, {@code sluice status} and the meter say so, and rows changed, deleted and added
 * meanwhile reach target one. Once its database takes connections again, two is fed again and
 * every table is re-synced for it alone; both end equal to the source, with one slot, and the
 * run stops with exit 0.
 */
@ExtendWith(PostgresExtension.class)
class DetachIT {

    @TempDir
    Path work;

    @Test
    void aTargetDownPastItsLimitIsDetachedTheSlotMovesOnAndAReSyncBringsItBackEqual() throws Exception {
        TestDatabase source = TestDatabases.create(DetachIT.class);
        TestDatabase one = TestDatabases.create(DetachIT.class);
        TestDatabase two = TestDatabases.create(DetachIT.class);
        String name = "detach_" + source.name().toLowerCase();
        Path offsets = work.resolve("detach.offsets");
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        SluiceProcess sluice = null;
        try {
            pgbench.run(source, "-i", "-q", "-s", "1");
            source.execute("CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL)",
                    "INSERT INTO customers SELECT g, 'person' || g || '@example.org' FROM generate_series(1, 1000) g");
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "1", "-j", "1", "-R", "50", "-T", "3600");
            int metricsPort = SluiceRuns.freePort();
            sluice = SluiceProcess.start(work, "run", "--source", SluiceRuns.url(source), "--target", "one=" + SluiceRuns.url(one),
                    "--target", "two=" + SluiceRuns.url(two), "--name", name, "--offsets", offsets.toString(),
                    "--set", "source.status.update.interval.ms=200", "--set", "source.table.exclude.list=public.pgbench_history",
                    "--set", "target.two.detach.after.bytes=131072", "--set", "target.two.apply.retry.timeout.ms=1000",
                    "--metrics", "127.0.0.1:" + metricsPort);
            FanOutFixture.awaitOutput(sluice, "Streaming changes from slot");
            source.execute("INSERT INTO customers VALUES (-1, 'first@example.org')");
            SluiceProcess running = sluice;
            FanOutFixture.awaitOn(sluice, "customer -1 on both targets", () -> FanOutFixture.has(one, -1) && FanOutFixture.has(two, -1));

            String held = source.queryText("SELECT pg_current_wal_lsn()::text");
            setConnections(source, two, false);
            FanOutFixture.awaitOn(sluice, "target two detached", () -> running.output().contains("Target two is detached"));
            assertThat(sluice.output()).contains("past its detach.after.bytes");
            FanOutFixture.awaitOn(sluice, "the slot confirmed past what target two holds", () -> source.queryLong("SELECT count(*) FROM "
                    + "pg_replication_slots WHERE slot_name = 'sluice_" + name + "' AND confirmed_flush_lsn > '" + held + "'") == 1);
            String base = "http://127.0.0.1:" + metricsPort;
            assertThat(io.sluice.runtime.metrics.Scrape.of(base).sum("sluice_target_detached", "target", name + ".two"))
                    .as(sluice.output()).isEqualTo(1);
            String dom = HeadlessChromium.locate().dom(base + "/", 10_000);
            assertThat(dom).as("the status page, in a browser").containsPattern("<tr class=\"target\" data-name=\"" + name
                    + ".two\"[^>]*data-detached=\"true\"").contains(" detached");
            assertThat(Files.readString(offsets.resolveSibling("detach.offsets.detached"))).contains("\"two\"", "\"detached\"");
            SluiceRuns.Result status = SluiceRuns.start(new java.util.concurrent.CompletableFuture<>(), "status", "--source",
                    SluiceRuns.url(source), "--target", "one=" + SluiceRuns.url(one), "--target", "two=" + SluiceRuns.url(two), "--name", name,
                    "--offsets", offsets.toString()).get(60, TimeUnit.SECONDS);
            assertThat(status.out()).as(status.out() + status.err()).contains("target two:\n    detached since");

            // Changed behind two's back while it is detached: rows updated (pgbench), deleted and added.
            source.execute("DELETE FROM customers WHERE id % 10 = 3", "UPDATE customers SET email = 'changed' || id WHERE id % 10 = 4",
                    "INSERT INTO customers VALUES (-2, 'while two is detached@example.org')");
            FanOutFixture.awaitOn(sluice, "customer -2 on target one", () -> FanOutFixture.has(one, -2));

            setConnections(source, two, true);
            FanOutFixture.awaitOn(sluice, "target two answering again", () -> running.output().contains("Target two answers again"));
            FanOutFixture.awaitOn(sluice, "target two back", () -> running.output().contains("Target two is back"));
            assertThat(io.sluice.runtime.metrics.Scrape.of(base).sum("sluice_target_detached", "target", name + ".two")).isZero();
            assertThat(Files.exists(offsets.resolveSibling("detach.offsets.detached"))).as("whole again: nothing recorded").isFalse();
            workload.destroy();
            assertThat(workload.waitFor(30, TimeUnit.SECONDS)).isTrue();
            workload = null;
            source.execute("INSERT INTO customers VALUES (-3, 'last@example.org')");
            for (TestDatabase target : new TestDatabase[] {one, two}) {
                for (String table : new String[] {"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "customers"}) {
                    target.awaitChecksumOf(source, table, java.time.Duration.ofSeconds(180));
                }
            }
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"))
                    .as("one slot feeds both targets").isEqualTo(1);
            assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
            sluice = null;
        } finally {
            setConnections(source, two, true);
            FanOutFixture.cleanUp(workload, sluice, source, one, two);
        }
    }

    /** Lets the database take connections, or not (and ends those it has). */
    private static void setConnections(TestDatabase admin, TestDatabase db, boolean allowed) throws Exception {
        admin.execute("ALTER DATABASE \"" + db.name() + "\" WITH ALLOW_CONNECTIONS " + allowed);
        if (!allowed) {
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db.name() + "'");
        }
    }
}
