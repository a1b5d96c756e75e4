package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.runtime.metrics.Scrape;
import io.sluice.testing.network.TcpProxy;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Heartbeats on an idle pipeline: the selected table takes no change while another database of
 * the same server writes WAL. The slot's confirmed position follows the server's WAL, and the
 * end-to-end lag stays within two heartbeat intervals instead of growing. Then the target stalls
 * (a lock) under a change: the lag grows past the interval, and falls back once it goes on. Last
 * the target goes away (a proxy drops its connections) while nothing changes: heartbeats are
 * durable only where the target keeps its position, so the lag grows past the interval all the
 * same, and falls back once the target is back, which then holds a newer heartbeat.
 */
@ExtendWith(PostgresExtension.class)
class HeartbeatIT {

    private static final long INTERVAL_MILLIS = 2_000;

    @TempDir
    Path work;

    @Test
    void heartbeatsKeepAnIdlePipelinesLagAndSlotCurrent() throws Exception {
        TestDatabase source = TestDatabases.create(HeartbeatIT.class);
        TestDatabase target = TestDatabases.create(HeartbeatIT.class);
        TestDatabase other = TestDatabases.create(HeartbeatIT.class);
        String name = "beating";
        CompletableFuture<Void> stop = new CompletableFuture<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Throwable> writerFailed = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try (Connection c = other.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE noise (id bigserial PRIMARY KEY, v text)");
                while (writing.get()) {
                    s.execute("INSERT INTO noise (v) SELECT repeat('x', 200) FROM generate_series(1, 50)");
                    Thread.sleep(20);
                }
            } catch (Exception e) {
                writerFailed.set(e);
            }
        }, "other-database-writes");
        try (TcpProxy toTarget = new TcpProxy(target.host(), target.port())) {
            source.execute("CREATE TABLE quiet (id int PRIMARY KEY, v text)", "INSERT INTO quiet VALUES (1, 'one')");
            int port = SluiceRuns.freePort();
            String base = "http://127.0.0.1:" + port;
            String[] command = {"run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target, toTarget), "--name", name,
                    "--offsets", work.resolve("beating.offsets").toString(), "--set", "source.status.update.interval.ms=200",
                    "--set", "source.heartbeat.interval.ms=" + INTERVAL_MILLIS};
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(command, "--metrics", "127.0.0.1:" + port));
            SluiceRuns.waitFor(() -> Scrape.orEmpty(base).value("sluice_end_to_end_lag_seconds", "target", name).isPresent(), run,
                    "the first heartbeat to be durable");
            writer.start();
            String slot = source.queryText("SELECT slot_name FROM pg_replication_slots WHERE database = current_database()");

            // The slot follows WAL it never decodes a change of: what the server had written by now is confirmed soon.
            String walNow = source.queryText("SELECT pg_current_wal_lsn()::text");
            SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot
                    + "' AND confirmed_flush_lsn >= '" + walNow + "'") == 1, run, "the slot to be confirmed past " + walNow);
            double worst = 0;
            for (int i = 0; i < 20; i++) {
                worst = Math.max(worst, Scrape.of(base).value("sluice_end_to_end_lag_seconds", "target", name).orElseThrow());
                Thread.sleep(500);
            }
            assertThat(worst).as("the end-to-end lag of an idle pipeline, at most").isLessThanOrEqualTo(2 * INTERVAL_MILLIS / 1000.0);

            // A stalled target holds the change and every heartbeat after it.
            try (Connection lock = target.connect(); Statement s = lock.createStatement()) {
                lock.setAutoCommit(false);
                s.execute("LOCK TABLE quiet IN ACCESS EXCLUSIVE MODE");
                source.execute("INSERT INTO quiet VALUES (2, 'two')");
                SluiceRuns.waitFor(() -> Scrape.of(base).value("sluice_end_to_end_lag_seconds", "target", name).orElseThrow()
                        > 2 * INTERVAL_MILLIS / 1000.0, run, "the lag to grow past two intervals while the target stalls");
                lock.rollback();
            }
            SluiceRuns.waitFor(() -> Scrape.of(base).value("sluice_end_to_end_lag_seconds", "target", name).orElseThrow()
                    <= 2 * INTERVAL_MILLIS / 1000.0, run, "the lag to fall back");
            assertThat(target.queryLong("SELECT count(*) FROM quiet")).isEqualTo(2);

            // The target goes away while the source is idle: no change waits, yet no heartbeat is durable until it is back.
            toTarget.cut();
            double cutAt = System.currentTimeMillis() / 1000.0; // after the cut: whatever the target holds was written before it
            SluiceRuns.waitFor(() -> Scrape.of(base).value("sluice_end_to_end_lag_seconds", "target", name).orElseThrow()
                    > 2 * INTERVAL_MILLIS / 1000.0, run, "the lag to grow past two intervals while the idle target is away");
            double away = heartbeatOnTarget(target);
            assertThat(away).as("the newest heartbeat the target holds while away").isLessThanOrEqualTo(cutAt);
            toTarget.restore();
            SluiceRuns.waitFor(() -> Scrape.of(base).value("sluice_end_to_end_lag_seconds", "target", name).orElseThrow()
                    <= 2 * INTERVAL_MILLIS / 1000.0, run, "the lag to fall back once the target is back");
            // Where the target keeps its position, it keeps the newest heartbeat it took.
            SluiceRuns.waitFor(() -> heartbeatOnTarget(target) > away, run, "the target to record a newer heartbeat");
            String[] statusCommand = command.clone();
            statusCommand[0] = "status";
            Result status = SluiceRuns.start(new CompletableFuture<>(), statusCommand).get(60, TimeUnit.SECONDS);
            assertThat(status.exit()).as(status.out() + status.err()).isZero();
            assertThat(status.out()).as("status shows the end-to-end lag by the target's heartbeat").containsPattern("end-to-end lag \\d+\\.\\d s");
            assertThat(writerFailed.get()).isNull();

            SluiceRuns.stopCleanly(stop, run);
        } finally {
            writing.set(false);
            if (writer.isAlive()) {
                writer.join();
            }
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
            TestDatabases.drop(other);
        }
    }

    /** The commit time (epoch seconds) of the newest heartbeat the target holds in Sluice's schema. */
    private static double heartbeatOnTarget(TestDatabase target) throws java.sql.SQLException {
        return Double.parseDouble(target.queryText("SELECT extract(epoch FROM max(committed_at))::text FROM sluice.heartbeats"));
    }

    /**
     * Heartbeats as rows of a table the user made (where pg_logical_emit_message is not wanted):
     * validation names what is missing (the table), then with the table they arrive as ordinary
     * changes and keep an idle pipeline's lag within two intervals; the target holds the row.
     */
    @Test
    void heartbeatsToATable() throws Exception {
        TestDatabase source = TestDatabases.create(HeartbeatIT.class);
        TestDatabase target = TestDatabases.create(HeartbeatIT.class);
        String name = "tablebeat";
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            source.execute("CREATE TABLE quiet (id int PRIMARY KEY, v text)", "INSERT INTO quiet VALUES (1, 'one')");
            int port = SluiceRuns.freePort();
            String base = "http://127.0.0.1:" + port;
            String[] command = {"run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", name,
                    "--offsets", work.resolve("tablebeat.offsets").toString(), "--metrics", "127.0.0.1:" + port,
                    "--set", "source.heartbeat.interval.ms=" + INTERVAL_MILLIS, "--set", "source.heartbeat.table=public.sluice_heartbeat"};
            Result refused = SluiceRuns.start(new CompletableFuture<>(), command).get(60, TimeUnit.SECONDS);
            assertThat(refused.exit()).as(refused.out() + refused.err()).isEqualTo(2);
            assertThat(refused.err()).contains("Heartbeat table public.sluice_heartbeat does not exist")
                    .contains("CREATE TABLE \"public\".\"sluice_heartbeat\" (pipeline text PRIMARY KEY, at timestamptz NOT NULL)");

            source.execute("CREATE TABLE public.sluice_heartbeat (pipeline text PRIMARY KEY, at timestamptz NOT NULL)");
            CompletableFuture<Result> run = SluiceRuns.start(stop, command);
            SluiceRuns.waitFor(() -> Scrape.orEmpty(base).value("sluice_end_to_end_lag_seconds", "target", name).isPresent(), run,
                    "the first heartbeat to be applied");
            double worst = 0;
            for (int i = 0; i < 12; i++) {
                worst = Math.max(worst, Scrape.of(base).value("sluice_end_to_end_lag_seconds", "target", name).orElseThrow());
                Thread.sleep(500);
            }
            assertThat(worst).as("the end-to-end lag of an idle pipeline, at most").isLessThanOrEqualTo(2 * INTERVAL_MILLIS / 1000.0);
            target.awaitSameAs(source, "SELECT count(*) FROM sluice_heartbeat WHERE pipeline = '" + name + "'",
                    java.time.Duration.ofSeconds(30), "the heartbeat row on the target");
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }
}
