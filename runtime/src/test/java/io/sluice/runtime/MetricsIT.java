package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.runtime.metrics.Scrape;
import io.sluice.testing.network.TcpProxy;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice run --metrics} under a pgbench workload, scraped as Prometheus scrapes it: the
 * snapshot's rows per table, the slot's lag against what {@code pg_replication_slots} says, the
 * changes applied against the target's rows; with the target gone for 30 s (a proxy between Sluice
 * and the target drops every connection and refuses new ones), the slot lag holds the WAL written
 * meanwhile and no change is counted applied, the end-to-end lag (by heartbeat) grows at least as
 * long as the outage, and all fall back once the target is back.
 */
@ExtendWith(PostgresExtension.class)
class MetricsIT {

    @TempDir
    Path work;

    @Test
    void metricsFollowAPgbenchRunAndATargetThatGoesAway() throws Exception {
        TestDatabase source = TestDatabases.create(MetricsIT.class);
        TestDatabase target = TestDatabases.create(MetricsIT.class);
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        String name = "watched";
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try (TcpProxy toTarget = new TcpProxy(target.host(), target.port())) {
            pgbench.run(source, "-i", "-q", "-s", "1");
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "100", "-T", "3600");
            int port = SluiceRuns.freePort();
            String base = "http://127.0.0.1:" + port;
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target, toTarget), "--name", name, "--offsets", work.resolve("watched.offsets").toString(),
                    "--metrics", "127.0.0.1:" + port, "--set", "source.status.update.interval.ms=200",
                    "--set", "source.slot.health.interval.ms=300", "--set", "source.heartbeat.interval.ms=1000");
            SluiceRuns.waitFor(() -> status(base, "/ready") == 200 && Scrape.get(base, "/ready").body().contains("streaming"), run,
                    "/ready to answer 200, streaming");
            assertThat(status(base, "/health")).isEqualTo(200);

            Scrape first = Scrape.of(base);
            assertThat(first.value("sluice_snapshot_rows_total", "pipeline", name, "table", "public.pgbench_accounts")).hasValue(100_000);
            assertThat(first.value("sluice_snapshot_tables", "pipeline", name, "state", "done")).hasValue(4);
            assertThat(first.value("sluice_snapshot_tables", "pipeline", name, "state", "left")).hasValue(0);
            assertThat(first.text()).contains("jvm_memory_used_bytes");
            SluiceRuns.waitFor(() -> Scrape.of(base).sum("sluice_sink_changes_applied_total", "target", name) > 0
                            && Scrape.of(base).sum("sluice_sink_write_seconds_count", "target", name, "batches", "stream-apply") > 0,
                    run, "changes to be counted applied");
            String slot = source.queryText("SELECT slot_name FROM pg_replication_slots WHERE database = current_database()");
            assertThat(Scrape.of(base).value("sluice_source_slot_wal_status", "pipeline", name, "slot", slot, "status", "reserved"))
                    .hasValue(1);

            // The target goes away for 30 s (every connection to it dropped, new ones refused): the workload goes on.
            toTarget.cut();
            double cutAt = System.currentTimeMillis() / 1000.0;
            String walAtCut = source.queryText("SELECT pg_current_wal_lsn()::text");
            Thread.sleep(30_000);
            String walAfter = source.queryText("SELECT pg_current_wal_lsn()::text");
            double readAt = System.currentTimeMillis() / 1000.0;
            long written = source.queryLong("SELECT pg_wal_lsn_diff('" + walAfter + "', '" + walAtCut + "')::bigint");
            assertThat(written).as("WAL the workload wrote while the target was away").isGreaterThan(100_000);
            // The slot stays where the outage found it (nothing after is durable): a reading taken after walAfter sees at
            // least the WAL from there to walAfter, and that is most of what the workload wrote meanwhile.
            String confirmed = source.queryText("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '"
                    + slot + "'");
            long held = source.queryLong("SELECT pg_wal_lsn_diff('" + walAfter + "', '" + confirmed + "')::bigint");
            assertThat(held).as("WAL the slot holds while the target is away").isGreaterThan(100_000);
            SluiceRuns.waitFor(() -> Scrape.of(base).value("sluice_source_slot_checked_timestamp_seconds", "pipeline", name, "slot", slot)
                    .orElse(0) > readAt, run, "a slot reading after the outage");
            Scrape stopped = Scrape.of(base);
            assertThat(stopped.value("sluice_source_slot_lag_bytes", "pipeline", name, "slot", slot).orElseThrow())
                    .isGreaterThanOrEqualTo(held);
            assertThat(stopped.value("sluice_sink_newest_applied_commit_timestamp_seconds", "target", name).orElseThrow())
                    .isLessThanOrEqualTo(cutAt);
            // Heartbeats wait behind the batch the target did not take, like changes: nothing after the cut is durable.
            assertThat(stopped.value("sluice_end_to_end_lag_seconds", "target", name).orElseThrow())
                    .isGreaterThanOrEqualTo(readAt - cutAt);
            toTarget.restore();
            double restoredAt = System.currentTimeMillis() / 1000.0;
            SluiceRuns.waitFor(() -> {
                Scrape after = Scrape.of(base);
                return after.value("sluice_source_slot_lag_bytes", "pipeline", name, "slot", slot).orElseThrow() < held
                        && after.value("sluice_sink_newest_applied_commit_timestamp_seconds", "target", name).orElseThrow() > restoredAt
                        && after.value("sluice_end_to_end_lag_seconds", "target", name).orElseThrow() < 5;
            }, run, "the lag to fall back once the target is back");

            workload.destroy();
            workload.waitFor(30, TimeUnit.SECONDS);
            target.awaitSameAs(source, "SELECT count(*), sum(delta) FROM pgbench_history", Duration.ofSeconds(120), "pgbench_history");
            target.awaitSameAs(source, "SELECT sum(abalance) FROM pgbench_accounts", Duration.ofSeconds(120), "pgbench_accounts");
            long historyOnTarget = target.queryLong("SELECT count(*) FROM pgbench_history");
            // Idle now: what the slot holds is what the server says, and every change is counted once it is durable.
            SluiceRuns.waitFor(() -> {
                Scrape idle = Scrape.of(base);
                long serverLag = source.queryLong("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint "
                        + "FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
                double copied = idle.value("sluice_snapshot_rows_total", "pipeline", name, "table", "public.pgbench_history").orElse(0);
                return idle.value("sluice_sink_changes_applied_total", "target", name, "table", "public.pgbench_history", "op", "insert")
                        .orElse(0) + copied == historyOnTarget
                        && idle.value("sluice_source_slot_lag_bytes", "pipeline", name, "slot", slot).orElseThrow() == serverLag;
            }, run, "applied inserts to match the target's rows and the lag the server's");
            Scrape last = Scrape.of(base);
            double inserts = last.value("sluice_sink_changes_applied_total", "target", name, "table", "public.pgbench_history", "op", "insert")
                    .orElseThrow();
            // Every pgbench transaction updates one account and inserts one history row.
            assertThat(last.value("sluice_sink_changes_applied_total", "target", name, "table", "public.pgbench_accounts", "op", "update"))
                    .hasValue(inserts);
            assertThat(last.sum("sluice_source_changes_total", "pipeline", name, "op", "insert")).isGreaterThanOrEqualTo(inserts);
            assertThat(last.sum("sluice_source_transactions_total", "pipeline", name)).isGreaterThanOrEqualTo(inserts);
            assertThat(last.value("sluice_sink_commit_to_applied_seconds_count", "target", name).orElseThrow()).isPositive();
            assertThat(last.value("sluice_sink_batch_size_bytes", "target", name, "batches", "stream-apply").orElseThrow()).isPositive();

            SluiceRuns.stopCleanly(stop, run);
            assertThat(canConnect(port)).as("the metrics server stops with the pipeline").isFalse();
        } finally {
            if (workload != null) {
                workload.destroy();
            }
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static int status(String base, String path) {
        try {
            return Scrape.get(base, path).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static boolean canConnect(int port) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
