package io.sluice.connector.postgres.resync;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pipelines of one source that start together each record their tables in the ledger, whose
 * table the first of them makes: none may fail on the others' making it (CREATE TABLE IF NOT
 * EXISTS alone does not wait for a creation in progress, and failed so in CI).
 */
@ExtendWith(PostgresExtension.class)
class SelectionLedgerIT {

    @RepeatedTest(5)
    void pipelinesStartingTogetherAllRecordTheirTables() throws Exception {
        TestDatabase db = TestDatabases.create(SelectionLedgerIT.class);
        int pipelines = 6;
        ExecutorService pool = Executors.newFixedThreadPool(pipelines);
        try {
            SignalTable signals = new SignalTable(SignalTable.DEFAULT);
            try (Connection c = db.connect()) {
                assertThat(signals.ensure(c)).isEmpty();
            }
            CyclicBarrier together = new CyclicBarrier(pipelines);
            List<Future<?>> runs = new ArrayList<>();
            for (int i = 0; i < pipelines; i++) {
                String pipeline = "p" + i;
                runs.add(pool.submit(() -> {
                    try (Connection c = db.connect()) {
                        together.await();
                        new SelectionLedger(signals).record(c, pipeline, List.of("public.t" + pipeline));
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
            assertThat(db.queryLong("SELECT count(*) FROM sluice_signals.selections")).isEqualTo(pipelines);
        } finally {
            pool.shutdownNow();
            TestDatabases.drop(db);
        }
    }
}
