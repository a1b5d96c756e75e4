package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.runtime.SluiceRuns.Result;

/**
 * {@code sluice run} end to end, in-process: snapshot then streaming under a live workload into
 * a real target, stopped gracefully and run again, ending with each table equal to the source's.
 */
@ExtendWith(PostgresExtension.class)
class SluiceRunIT {

    @TempDir
    Path work;

    @Test
    void runCopiesThenStreamsALiveWorkloadAndGoesOnAfterAStop() throws Exception {
        TestDatabase source = TestDatabases.create(SluiceRunIT.class);
        TestDatabase target = TestDatabases.create(SluiceRunIT.class);
        try {
            source.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, note text)",
                    "INSERT INTO accounts SELECT g, 0, 'account ' || g FROM generate_series(1, 50000) g",
                    "CREATE TABLE history (account bigint, delta bigint, at timestamptz DEFAULT clock_timestamp())",
                    "CREATE SEQUENCE account_ids START 1000000",
                    // Not in the WAL, so not streamable: the snapshot copies it, and init and status say so.
                    "CREATE UNLOGGED TABLE cache (k int PRIMARY KEY, v text)",
                    "INSERT INTO cache SELECT g, 'cached ' || g FROM generate_series(1, 300) g");
            String[] command = {"run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "live",
                    "--offsets", work.resolve("live.offsets").toString(), "--set", "source.status.update.interval.ms=200"};
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicLong transactions = new AtomicLong();
            AtomicReference<Throwable> workloadFailure = new AtomicReference<>();
            Thread writer = new Thread(() -> workload(source, writing, transactions, workloadFailure), "workload");
            String[] pipeline = java.util.Arrays.copyOfRange(command, 1, command.length);
            Result init = SluiceRuns.start(new CompletableFuture<>(), concat("init", pipeline)).get(60, TimeUnit.SECONDS);
            assertThat(init.exit()).as(init.err()).isZero();
            assertThat(init.out()).contains("may replicate").contains("Created publication sluice_live for 2 tables")
                    .contains("DDL capture: event triggers installed").contains("Ready")
                    .contains("Warning: 1 selected table(s) are UNLOGGED: public.cache").contains("cannot be streamed");
            assertThat(count(source, "SELECT count(*) FROM pg_event_trigger WHERE evtname LIKE 'sluice%'")).isEqualTo(2);
            Result again = SluiceRuns.start(new CompletableFuture<>(), concat("init", pipeline)).get(60, TimeUnit.SECONDS);
            assertThat(again.out()).as("init is idempotent").contains("Publication sluice_live covers the 2 selected tables");
            writer.start();
            try {
                CompletableFuture<Void> stop = new CompletableFuture<>();
                CompletableFuture<Result> first = SluiceRuns.start(stop, command);
                // Streamed changes on the target (snapshot rows alone do not count): the position table says how many.
                SluiceRuns.waitFor(() -> transactions.get() > 300
                        && count(target, "SELECT count(*) FROM pg_tables WHERE schemaname = 'sluice' AND tablename = 'applied_position'") == 1
                        && count(target, "SELECT count(*) FROM sluice.applied_position WHERE source = 'live' AND changes > 300") == 1,
                        first, "the target to follow the workload");
                stop.complete(null);
                Result stopped = first.get(60, TimeUnit.SECONDS);
                assertThat(stopped.exit()).as(stopped.err()).isZero();
                assertThat(stopped.out()).contains("Snapshot done").contains("Streaming changes from slot sluice_live").contains("Stopped.");
                assertThat(checksum(target, "cache")).as("the unlogged table, copied").isEqualTo(checksum(source, "cache"));
                assertThat(text(target, "SELECT relpersistence FROM pg_class WHERE relname = 'cache'")).isEqualTo("u");
                // With the DDL capture installed, creating another unlogged table under the include list must not fail.
                source.execute("CREATE UNLOGGED TABLE scratch (id int)");

                String appliedAtStop = text(target, "SELECT lsn_commit::text FROM sluice.applied_position WHERE source = 'live'");
                // The workload goes on while the pipeline is stopped; the next run picks up where the target is.
                Thread.sleep(500);
                CompletableFuture<Void> stopAgain = new CompletableFuture<>();
                CompletableFuture<Result> second = SluiceRuns.start(stopAgain, command);
                Thread.sleep(1500);
                writing.set(false);
                writer.join();
                assertThat(workloadFailure.get()).isNull();
                source.execute("INSERT INTO history VALUES (-1, 0)");
                SluiceRuns.waitFor(() -> count(target, "SELECT count(*) FROM history WHERE account = -1") == 1, second, "the last change");
                // Only a table outside the publication is written now: the slot must still move on, or WAL piles up.
                source.execute("CREATE TABLE noise (filler text)", "INSERT INTO noise SELECT repeat('n', 500) FROM generate_series(1, 20000)");
                String written = text(source, "SELECT pg_current_wal_lsn()::text");
                SluiceRuns.waitFor(() -> count(source, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_live' "
                        + "AND confirmed_flush_lsn >= '" + written + "'::pg_lsn") == 1, second, "the slot to confirm past idle WAL");
                source.execute("DROP TABLE noise");
                stopAgain.complete(null);
                Result resumed = second.get(60, TimeUnit.SECONDS);
                assertThat(resumed.exit()).as(resumed.err()).isZero();
                assertThat(resumed.out()).contains("Resuming pipeline live").doesNotContain("Snapshot done");
                for (String table : List.of("accounts", "history")) {
                    assertThat(checksum(target, table)).as(table).isEqualTo(checksum(source, table));
                }
                assertThat(count(source, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_live' "
                        + "AND confirmed_flush_lsn >= '" + appliedAtStop + "'::pg_lsn")).as("the slot confirmed what the first run applied")
                        .isEqualTo(1);

                Result status = SluiceRuns.start(new CompletableFuture<>(), concat("status", pipeline)).get(60, TimeUnit.SECONDS);
                assertThat(status.exit()).as(status.err()).isZero();
                assertThat(status.out()).contains("slot sluice_live: idle").contains("applied up to").contains("changes in all")
                        .contains("changes/s").contains("snapshot only (UNLOGGED, so never streamed): public.cache, public.scratch");
                source.execute("DROP TABLE scratch");

                // --fresh forgets the run: the old slot goes, and a new one comes with a new snapshot.
                source.execute("INSERT INTO history VALUES (-2, 0)");
                CompletableFuture<Void> stopFresh = new CompletableFuture<>();
                String[] fresh = java.util.Arrays.copyOf(command, command.length + 3);
                fresh[command.length] = "--fresh";
                fresh[command.length + 1] = "--table-exists";
                fresh[command.length + 2] = "truncate";
                CompletableFuture<Result> third = SluiceRuns.start(stopFresh, fresh);
                SluiceRuns.waitFor(() -> count(target, "SELECT count(*) FROM history WHERE account = -2") == 1, third, "the fresh copy");
                source.execute("INSERT INTO history VALUES (-3, 0)"); // after the fresh snapshot's view: streamed
                SluiceRuns.waitFor(() -> count(target, "SELECT count(*) FROM history WHERE account = -3") == 1, third, "streaming after the copy");
                stopFresh.complete(null);
                Result copiedAgain = third.get(60, TimeUnit.SECONDS);
                assertThat(copiedAgain.exit()).as(copiedAgain.err()).isZero();
                assertThat(copiedAgain.out()).contains("Dropped replication slot sluice_live of the earlier run").contains("Snapshot done");
                for (String table : List.of("accounts", "history")) {
                    assertThat(checksum(target, table)).as(table).isEqualTo(checksum(source, table));
                }

                Result teardown = SluiceRuns.start(new CompletableFuture<>(), concat("teardown", pipeline)).get(60, TimeUnit.SECONDS);
                assertThat(teardown.exit()).as(teardown.err()).isZero();
                assertThat(teardown.out()).contains("Dropped replication slot sluice_live").contains("Dropped publication sluice_live")
                        .contains("Forgot the applied position").contains("Dropped the DDL capture event triggers");
                assertThat(count(source, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_live'")).isZero();
                assertThat(count(source, "SELECT count(*) FROM pg_event_trigger")).isZero();
                assertThat(count(source, "SELECT count(*) FROM pg_namespace WHERE nspname = 'sluice_capture'")).isZero();
                assertThat(count(source, "SELECT count(*) FROM pg_publication WHERE pubname = 'sluice_live'")).isZero();
                assertThat(count(target, "SELECT count(*) FROM sluice.applied_position")).isZero();
                assertThat(work.resolve("live.offsets")).doesNotExist();
                assertThat(checksum(target, "accounts")).as("the target keeps its rows").isEqualTo(checksum(source, "accounts"));
            } finally {
                writing.set(false);
                writer.join();
            }
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static String[] concat(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    private static void workload(TestDatabase db, AtomicBoolean writing, AtomicLong transactions, AtomicReference<Throwable> failure) {
        Random r = new Random(11);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            while (writing.get()) {
                long from = 1 + r.nextInt(50000);
                long to = 1 + r.nextInt(50000);
                long delta = 1 + r.nextInt(100);
                s.execute("UPDATE accounts SET balance = balance - " + delta + " WHERE id = " + from);
                s.execute("UPDATE accounts SET balance = balance + " + delta + " WHERE id = " + to);
                s.execute("INSERT INTO history (account, delta) VALUES (" + from + ", " + -delta + "), (" + to + ", " + delta + ")");
                if (r.nextInt(10) == 0) {
                    s.execute("INSERT INTO accounts VALUES (nextval('account_ids'), 0, 'new')");
                } else if (r.nextInt(10) == 0) {
                    s.execute("DELETE FROM accounts WHERE id = " + (1 + r.nextInt(50000)));
                }
                c.commit();
                transactions.incrementAndGet();
                Thread.sleep(2);
            }
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    private static String checksum(TestDatabase db, String table) throws Exception {
        return db.checksum(table);
    }

    private static String text(TestDatabase db, String sql) throws Exception {
        return db.queryText(sql);
    }

    private static long count(TestDatabase db, String sql) throws Exception {
        return db.queryLong(sql);
    }
}
