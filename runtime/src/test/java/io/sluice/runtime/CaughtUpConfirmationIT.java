package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changes the source hands out in full polls, with nothing after them, are confirmed on the
 * slot at once: transactions of exactly one poll's worth of changes. (A full poll used to say
 * "more is coming" even when nothing was: the runtime then neither settled nor confirmed the
 * batch, and the slot stayed behind it for about ten seconds, until a later round confirmed it.)
 */
@ExtendWith(PostgresExtension.class)
class CaughtUpConfirmationIT {

    @TempDir
    Path work;

    @Test
    void burstsOfExactlyOnePollAreConfirmedWithNothingAfterThem() throws Exception {
        TestDatabase source = TestDatabases.create(CaughtUpConfirmationIT.class);
        TestDatabase target = TestDatabases.create(CaughtUpConfirmationIT.class);
        try {
            source.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
            String[] command = {"run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "exact",
                    "--offsets", work.resolve("exact.offsets").toString(), "--set", "source.status.update.interval.ms=200"};
            CompletableFuture<Void> stop = new CompletableFuture<>();
            CompletableFuture<Result> run = SluiceRuns.start(stop, command);
            SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_exact' AND active") == 1
                    && target.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = 't'") == 1, run, "the pipeline to stream");
            int size = PostgresSourceTask.MAX_BATCH;
            for (int burst = 1; burst <= 3; burst++) {
                source.execute("INSERT INTO t SELECT g, 'burst' FROM generate_series(" + ((burst - 1) * size + 1) + ", " + burst * size + ") g");
                String written = source.queryText("SELECT pg_current_wal_lsn()::text");
                int rows = burst * size;
                SluiceRuns.waitFor(() -> target.queryLong("SELECT count(*) FROM t") == rows, run, "burst " + burst + " on the target");
                long applied = System.nanoTime();
                SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_exact' "
                        + "AND confirmed_flush_lsn >= '" + written + "'::pg_lsn") == 1, run, "the slot to confirm burst " + burst
                        + " (" + written + ") with no change after it");
                // Status goes to the server every 200 ms here: a few seconds is plenty on a loaded machine, ten is the old delay.
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - applied)).as("ms from burst %d applied to confirmed", burst)
                        .isLessThan(5_000);
            }
            stop.complete(null);
            Result stopped = run.get(60, TimeUnit.SECONDS);
            assertThat(stopped.exit()).as(stopped.out() + stopped.err()).isZero();
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }
}
