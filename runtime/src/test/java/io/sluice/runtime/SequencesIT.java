package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Logical decoding does not carry sequences, so a target kept in step by {@code sluice run}
 * would hand out ids that collide after a cut-over. The target's sequences follow the source's
 * while changes stream, and at a stop by SIGTERM they are past every id the source used: serial,
 * identity, a sequence no table owns, and one that counts down.
 */
@ExtendWith(PostgresExtension.class)
class SequencesIT {

    @TempDir
    Path work;

    @Test
    void afterAStopTheTargetsSequencesHandOutNoIdTheSourceUsed() throws Exception {
        TestDatabase source = TestDatabases.create(SequencesIT.class);
        TestDatabase target = TestDatabases.create(SequencesIT.class);
        SluiceProcess sluice = null;
        try {
            source.execute("CREATE TABLE invoices (id serial PRIMARY KEY, v text)",
                    "CREATE TABLE events (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)",
                    "CREATE SEQUENCE ticket_numbers START 1000",
                    "CREATE TABLE tickets (id int PRIMARY KEY DEFAULT nextval('ticket_numbers'), v text)",
                    "CREATE SEQUENCE countdown INCREMENT -1 MINVALUE -1000000 MAXVALUE 0 START 0",
                    "CREATE TABLE launches (id int PRIMARY KEY DEFAULT nextval('countdown'), v text)");
            insert(source, 50);
            sluice = SluiceProcess.start(work, "run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "seq",
                    "--offsets", work.resolve("seq.offsets").toString(), "--set", "source.sequences.interval.ms=500");

            // While streaming, the target's sequences follow the source's every interval.
            awaitRows(sluice, target, 50);
            insert(source, 100);
            long invoicesNow = source.queryLong("SELECT last_value FROM invoices_id_seq");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (target.queryLong("SELECT last_value FROM invoices_id_seq") < invoicesNow) {
                assertThat(System.nanoTime()).as("the target's sequence followed within 60 s:\n" + sluice.output()).isLessThan(deadline);
                Thread.sleep(100);
            }

            assertThat(sluice.terminate(60)).as(sluice.output()).isZero();

            // A run whose interval never comes: only the stop can move the sequences past the rows it streamed.
            sluice = SluiceProcess.start(work, "run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "seq",
                    "--offsets", work.resolve("seq.offsets").toString(), "--set", "source.sequences.interval.ms=3600000");
            insert(source, 40);
            awaitRows(sluice, target, 190);
            assertThat(target.queryLong("SELECT last_value FROM invoices_id_seq")).as("not moved while running")
                    .isLessThan(source.queryLong("SELECT last_value FROM invoices_id_seq"));
            int exit = sluice.terminate(60);
            assertThat(exit).as(sluice.output()).isZero();
            assertThat(sluice.output()).contains("Stopped.").contains("sequence(s) of the target forward to the source's values");
            sluice = null;

            // A cut-over: the application writes to the target now.
            for (String table : new String[] {"invoices", "events", "tickets"}) {
                long highest = source.queryLong("SELECT max(id) FROM " + table);
                long next = target.queryLong("INSERT INTO " + table + " (v) VALUES ('after the cut-over') RETURNING id");
                assertThat(next).as(table + ": the target's next id is past the source's").isGreaterThan(highest);
            }
            long lowest = source.queryLong("SELECT min(id) FROM launches");
            assertThat(target.queryLong("INSERT INTO launches (v) VALUES ('after the cut-over') RETURNING id")).as("a descending sequence")
                    .isLessThan(lowest);
        } finally {
            if (sluice != null) {
                sluice.close();
            }
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static void insert(TestDatabase db, int rows) throws Exception {
        db.execute("INSERT INTO invoices (v) SELECT 'invoice ' || g FROM generate_series(1, " + rows + ") g",
                "INSERT INTO events (v) SELECT 'event ' || g FROM generate_series(1, " + rows + ") g",
                "INSERT INTO tickets (v) SELECT 'ticket ' || g FROM generate_series(1, " + rows + ") g",
                "INSERT INTO launches (v) SELECT 'launch ' || g FROM generate_series(1, " + rows + ") g");
    }

    /** Waits until every table has this many rows on the target. */
    private static void awaitRows(SluiceProcess sluice, TestDatabase target, long rows) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            boolean all = true;
            for (String table : new String[] {"invoices", "events", "tickets", "launches"}) {
                all &= target.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = '" + table + "'") == 1
                        && target.queryLong("SELECT count(*) FROM " + table) == rows;
            }
            if (all) {
                return;
            }
            assertThat(sluice.alive()).as("sluice runs:\n" + sluice.output()).isTrue();
            assertThat(System.nanoTime()).as(rows + " rows of each table on the target within 120 s:\n" + sluice.output()).isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
