package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice resync} while {@code sluice run} streams a pgbench workload: the target's copy of
 * the accounts is corrupted behind Sluice's back (rows deleted, changed, and added before, inside
 * and after the source's keys); the re-sync makes it equal again, while changes of the other
 * tables keep reaching the target within a second and none is applied twice (the keyless history
 * table, whose every duplicate would show, ends with the source's count).
 */
@ExtendWith(PostgresExtension.class)
class ResyncIT {

    private static final String ACCOUNTS = "SELECT count(*) || ':' || coalesce(sum(aid), 0) || ':' || coalesce(sum(abalance), 0) || ':' "
            + "|| coalesce(sum(hashtext(aid || '/' || bid || '/' || abalance || '/' || filler)), 0) FROM pgbench_accounts";
    private static final String HISTORY = "SELECT count(*) || ':' || coalesce(sum(delta), 0) FROM pgbench_history";

    @TempDir
    Path work;

    @Test
    void aCorruptedTableEndsEqualWhileTheStreamGoesOn() throws Exception {
        TestDatabase source = TestDatabases.create(ResyncIT.class);
        TestDatabase target = TestDatabases.create(ResyncIT.class);
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        CompletableFuture<Void> stop = new CompletableFuture<>();
        String[] pipeline = {"--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "resynced",
                "--offsets", work.resolve("resynced.offsets").toString()};
        try {
            pgbench.run(source, "-i", "-q", "-s", "2");
            source.execute("CREATE TABLE probe (id int PRIMARY KEY, at timestamptz NOT NULL)");
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(SluiceRuns.with(new String[] {"run"}, pipeline), "--set", "source.status.update.interval.ms=200",
                    "--set", "source.resync.chunk.rows=1000"));
            SluiceRuns.awaitSame(source, ACCOUNTS, target, ACCOUNTS, run, "the snapshot of the accounts");
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "200", "-T", "3600");

            // Rows gone from the source first, so that the target can hold keys inside the source's range that the source lacks.
            source.execute("DELETE FROM pgbench_accounts WHERE aid BETWEEN 5001 AND 5100");
            SluiceRuns.waitFor(() -> target.queryLong("SELECT count(*) FROM pgbench_accounts WHERE aid BETWEEN 5001 AND 5100") == 0, run,
                    "the deletes on the target");
            target.execute(
                    "DELETE FROM pgbench_accounts WHERE aid % 997 = 0",
                    "UPDATE pgbench_accounts SET abalance = 424242, filler = 'changed behind its back' WHERE aid % 1009 = 0",
                    "INSERT INTO pgbench_accounts (aid, bid, abalance, filler) SELECT g, 1, 7, 'added behind its back' "
                            + "FROM generate_series(5001, 5100) g",
                    "INSERT INTO pgbench_accounts (aid, bid, abalance, filler) VALUES (-5, 1, 0, 'before the first key'), "
                            + "(90000000, 1, 0, 'after the last key')");
            assertThat(target.queryText(ACCOUNTS)).isNotEqualTo(source.queryText(ACCOUNTS));

            Probes probes = new Probes(source, target);
            Thread prober = new Thread(probes::run, "probe");
            prober.start();
            Result resync = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"resync", "public.pgbench_accounts"},
                    pipeline)).get(300, TimeUnit.SECONDS);
            probes.stop();
            prober.join(10_000);
            assertThat(resync.exit()).as(resync.out() + resync.err()).isZero();
            assertThat(resync.out()).contains("Re-synced public.pgbench_accounts");

            Thread.sleep(2_000);
            workload.destroy();
            workload.waitFor(30, TimeUnit.SECONDS);
            assertThat(source.queryLong("SELECT count(*) FROM pgbench_history")).as("the workload ran").isPositive();
            SluiceRuns.awaitSame(source, ACCOUNTS, target, ACCOUNTS, run, "the accounts after the re-sync");
            SluiceRuns.awaitSame(source, HISTORY, target, HISTORY, run, "the history: no change applied twice");
            assertThat(probes.latencies()).as("probes during the re-sync").hasSizeGreaterThan(3);
            assertThat(Collections.max(probes.latencies())).as("commit-to-visibility of another table during the re-sync, ms: "
                    + probes.latencies()).isLessThan(1_000L);

            Result status = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"status"}, pipeline))
                    .get(60, TimeUnit.SECONDS);
            assertThat(status.out()).contains("re-sync of public.pgbench_accounts (request 1): done");
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            if (workload != null) {
                workload.destroy();
            }
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * Text and composite keys, one re-sync stopped midway and going on after a restart, and a
     * target whose key column sorts by another collation: there the rows are written again but
     * the range is not trusted, so rows the source lacks stay, and no row the source has is lost.
     */
    @Test
    void textAndCompositeKeysARestartMidwayAndAnotherCollation() throws Exception {
        TestDatabase source = TestDatabases.create(ResyncIT.class);
        TestDatabase target = TestDatabases.create(ResyncIT.class);
        String[] pipeline = {"--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "keys",
                "--offsets", work.resolve("keys.offsets").toString()};
        // A row per chunk: codes takes thousands of watermark round trips, so the stop lands midway, once five are durable.
        String[] run = SluiceRuns.with(SluiceRuns.with(new String[] {"run"}, pipeline), "--set", "source.resync.chunk.rows=1",
                "--set", "source.status.update.interval.ms=200");
        String codes = "SELECT count(*) || ':' || coalesce(sum(hashtext(code || '/' || v)), 0) FROM codes";
        String pairs = "SELECT count(*) || ':' || coalesce(sum(hashtext(a || '/' || b || '/' || v)), 0) FROM pairs";
        String ordered = "SELECT count(*) || ':' || coalesce(sum(hashtext(code || '/' || v)), 0) FROM ordered";
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CompletableFuture<Void> stopAgain = new CompletableFuture<>();
        try {
            source.execute("CREATE TABLE codes (code text PRIMARY KEY, v int)",
                    "INSERT INTO codes SELECT (ARRAY['k', 'K', 'é', ' ', 'z'])[g % 5 + 1] || g, g FROM generate_series(1, 3000) g",
                    "CREATE TABLE pairs (a text, b int, v int, PRIMARY KEY (a, b))",
                    "INSERT INTO pairs SELECT (ARRAY['x', 'X', 'y'])[g % 3 + 1], g, g FROM generate_series(1, 2000) g",
                    "CREATE TABLE ordered (code text PRIMARY KEY, v int)",
                    "INSERT INTO ordered SELECT (ARRAY['a', 'B', 'c', 'D'])[g % 4 + 1] || g, g FROM generate_series(1, 400) g");
            CompletableFuture<Result> first = SluiceRuns.start(stop, run);
            SluiceRuns.awaitSame(source, codes, target, codes, first, "the snapshot of codes");
            SluiceRuns.awaitSame(source, pairs, target, pairs, first, "the snapshot of pairs");
            SluiceRuns.awaitSame(source, ordered, target, ordered, first, "the snapshot of ordered");
            // The target's key of ordered sorts otherwise than the source's.
            target.execute("ALTER TABLE ordered ALTER COLUMN code TYPE text COLLATE \"und-x-icu\"");
            target.execute("DELETE FROM codes WHERE v % 101 = 0", "UPDATE codes SET v = -v WHERE v % 103 = 0",
                    "INSERT INTO codes VALUES ('', 0), ('K1a', 0), ('zzzz', 0), ('k2999x', 0)",
                    "DELETE FROM pairs WHERE b % 89 = 0", "UPDATE pairs SET v = -v WHERE b % 97 = 0",
                    "INSERT INTO pairs VALUES ('x', 0, 0), ('X', 5000, 0), ('w', 1, 1)",
                    "DELETE FROM ordered WHERE v % 41 = 0", "UPDATE ordered SET v = -v WHERE v % 43 = 0",
                    "INSERT INTO ordered VALUES ('b0', 0), ('C9999', 0)");
            Result requested = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"resync", "--detach",
                    "public.codes", "public.pairs", "public.ordered"}, pipeline)).get(60, TimeUnit.SECONDS);
            assertThat(requested.exit()).as(requested.out() + requested.err()).isZero();
            SluiceRuns.waitFor(() -> source.queryLong("SELECT chunks FROM sluice_signals.requests WHERE target = 'public.codes'") >= 5, first,
                    "chunks of codes durable");
            SluiceRuns.stopCleanly(stop, first);
            assertThat(source.queryText("SELECT state FROM sluice_signals.requests WHERE target = 'public.codes'")).isEqualTo("running");

            CompletableFuture<Result> second = SluiceRuns.start(stopAgain, run);
            SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM sluice_signals.requests WHERE state = 'done'") == 3, second,
                    "the three re-syncs done");
            SluiceRuns.awaitSame(source, codes, target, codes, second, "codes after the re-sync");
            SluiceRuns.awaitSame(source, pairs, target, pairs, second, "pairs after the re-sync");
            // Every row the source has, with its values; the two the target alone has stay, as the key ranges are not trusted.
            String sourceRows = source.queryText(ordered);
            SluiceRuns.awaitSame(source, "SELECT " + (Long.parseLong(sourceRows.split(":")[0]) + 2) + " || ':' || "
                    + "(SELECT coalesce(sum(hashtext(code || '/' || v)), 0) FROM ordered)", target,
                    "SELECT count(*) || ':' || (SELECT coalesce(sum(hashtext(code || '/' || v)), 0) FROM ordered WHERE code NOT IN "
                            + "('b0', 'C9999')) FROM ordered", second, "ordered: its rows written again, nothing deleted");
            SluiceRuns.stopCleanly(stopAgain, second);
        } finally {
            stop.complete(null);
            stopAgain.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * DDL on the table while it is re-synced, one chunk of a row at a time so that it lands
     * midway: a column added and filled, one dropped, the table renamed. The re-sync follows the
     * table (by its identity, not its name) in its new shape and ends equal.
     */
    @Test
    void ddlWhileATableIsResyncedIsFollowed() throws Exception {
        TestDatabase source = TestDatabases.create(ResyncIT.class);
        TestDatabase target = TestDatabases.create(ResyncIT.class);
        String[] pipeline = {"--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "ddl",
                "--offsets", work.resolve("ddl.offsets").toString()};
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            source.execute("CREATE TABLE items (id int PRIMARY KEY, name text, gone text)",
                    "INSERT INTO items SELECT g, 'n' || g, 'g' || g FROM generate_series(1, 3000) g");
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(SluiceRuns.with(new String[] {"run"}, pipeline),
                    "--set", "source.resync.chunk.rows=1"));
            String rows = "SELECT count(*) || ':' || coalesce(sum(hashtext(id || '/' || name)), 0) FROM items";
            SluiceRuns.awaitSame(source, rows, target, rows, run, "the snapshot");
            target.execute("UPDATE items SET name = 'changed' WHERE id % 7 = 0", "DELETE FROM items WHERE id % 11 = 0");
            Result requested = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"resync", "--detach",
                    "public.items"}, pipeline)).get(60, TimeUnit.SECONDS);
            assertThat(requested.exit()).as(requested.out() + requested.err()).isZero();
            SluiceRuns.waitFor(() -> source.queryLong("SELECT chunks FROM sluice_signals.requests") >= 20, run, "the re-sync under way");
            source.execute("ALTER TABLE items ADD COLUMN note text DEFAULT 'new'", "UPDATE items SET note = 'x' || id WHERE id % 10 = 0");
            SluiceRuns.waitFor(() -> source.queryLong("SELECT chunks FROM sluice_signals.requests") >= 200, run, "more chunks");
            source.execute("ALTER TABLE items DROP COLUMN gone");
            SluiceRuns.waitFor(() -> source.queryLong("SELECT chunks FROM sluice_signals.requests") >= 400, run, "more chunks still");
            source.execute("ALTER TABLE items RENAME TO things");
            SluiceRuns.waitFor(() -> source.queryText("SELECT state FROM sluice_signals.requests").equals("done"), run, "the re-sync done");
            assertThat(source.queryLong("SELECT chunks FROM sluice_signals.requests")).as("it went on, not over").isLessThan(3200);
            String all = "SELECT count(*) || ':' || coalesce(sum(hashtext(id || '/' || name || '/' || note)), 0) FROM things";
            SluiceRuns.awaitSame(source, all, target, all, run, "the table in its last shape");
            assertThat(target.queryText("SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns "
                    + "WHERE table_name = 'things'")).isEqualTo("id,name,note");
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * A table added to the selection between two runs (--tables widened) is made on the target
     * and copied by a re-sync while the other tables stream, with no new snapshot: a row only the
     * target has in a table copied before stays (a new snapshot, or a re-sync of it, would take it
     * away), and only the newcomer is re-synced.
     */
    @Test
    void aTableAddedToTheSelectionIsCopiedWithoutANewSnapshot() throws Exception {
        TestDatabase source = TestDatabases.create(ResyncIT.class);
        TestDatabase target = TestDatabases.create(ResyncIT.class);
        String[] pipeline = {"--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "widened",
                "--offsets", work.resolve("widened.offsets").toString(), "--set", "source.resync.chunk.rows=100"};
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CompletableFuture<Void> stopAgain = new CompletableFuture<>();
        try {
            source.execute("CREATE TABLE first (id int PRIMARY KEY, v text)", "INSERT INTO first SELECT g, 'a' || g FROM generate_series(1, 500) g",
                    "CREATE TABLE later (id int PRIMARY KEY, v text NOT NULL, n numeric(10, 2) DEFAULT 1.5)",
                    "CREATE INDEX later_v ON later (v)",
                    "INSERT INTO later (id, v) SELECT g, 'b' || g FROM generate_series(1, 2000) g");
            String first = "SELECT count(*) || ':' || coalesce(sum(hashtext(id || v)), 0) FROM first";
            String later = "SELECT count(*) || ':' || coalesce(sum(hashtext(id || v || n)), 0) FROM later";
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(SluiceRuns.with(new String[] {"run"}, pipeline),
                    "--tables", "public.first"));
            SluiceRuns.awaitSame(source, first, target, first, run, "the snapshot of first");
            // Streaming, so the snapshot is over. (One stopped before its end is resumed, and leaves a table that joined
            // meanwhile to the stream as well: ResumedSnapshotSelectionIT.)
            SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_widened' "
                    + "AND active") == 1, run, "streaming");
            SluiceRuns.stopCleanly(stop, run);
            assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = 'later'")).isZero();

            target.execute("INSERT INTO first VALUES (-1, 'only on the target')");
            source.execute("UPDATE first SET v = v || '!' WHERE id % 10 = 0", "UPDATE later SET v = v || '?' WHERE id % 10 = 0",
                    "INSERT INTO later (id, v) VALUES (3000, 'before the second run')");
            CompletableFuture<Result> second = SluiceRuns.start(stopAgain, SluiceRuns.with(SluiceRuns.with(new String[] {"run"}, pipeline),
                    "--tables", "public.first,public.later"));
            for (int i = 0; i < 10; i++) {
                source.execute("UPDATE later SET n = n + 1 WHERE id % 50 = " + i, "INSERT INTO later (id, v) VALUES (" + (4000 + i) + ", 'w')",
                        "UPDATE first SET v = 'x' WHERE id = " + (i + 1));
                Thread.sleep(100);
            }
            SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM sluice_signals.requests WHERE target = 'public.later' "
                    + "AND state = 'done'") == 1, second, "the re-sync of the newcomer");
            SluiceRuns.awaitSame(source, later, target, later, second, "the newcomer, copied and streamed");
            SluiceRuns.awaitSame(source, "SELECT (" + first + ") || '+1'", target,
                    "SELECT (" + first + " WHERE id <> -1) || '+' || (SELECT count(*) FROM first WHERE id = -1)", second,
                    "first streamed, not copied again");
            assertThat(source.queryText("SELECT string_agg(target, ',') FROM sluice_signals.requests")).isEqualTo("public.later");
            assertThat(target.queryText("SELECT indexdef FROM pg_indexes WHERE indexname = 'later_v'")).contains("(v)");
            assertThat(target.queryText("SELECT column_default FROM information_schema.columns WHERE table_name = 'later' "
                    + "AND column_name = 'n'")).contains("1.5");
            SluiceRuns.stopCleanly(stopAgain, second);
        } finally {
            stop.complete(null);
            stopAgain.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    @Test
    void whatCannotBeResyncedIsRefusedNamingTheTable() throws Exception {
        TestDatabase source = TestDatabases.create(ResyncIT.class);
        TestDatabase target = TestDatabases.create(ResyncIT.class);
        CompletableFuture<Void> stop = new CompletableFuture<>();
        String[] pipeline = {"--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "refusing",
                "--offsets", work.resolve("refusing.offsets").toString(), "--exclude", "public.left_out"};
        try {
            source.execute("CREATE TABLE keyed (id int PRIMARY KEY, v text)", "CREATE TABLE keyless (v text)",
                    "CREATE TABLE left_out (id int PRIMARY KEY)", "INSERT INTO keyed VALUES (1, 'a')", "INSERT INTO keyless VALUES ('a')");
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(new String[] {"run"}, pipeline));
            SluiceRuns.awaitSame(source, "SELECT count(*) FROM keyed", target, "SELECT count(*) FROM keyed", run, "the snapshot");
            assertThat(refused(pipeline, "public.keyless")).contains("public.keyless has no primary key or replica identity index");
            assertThat(refused(pipeline, "public.left_out")).contains("public.left_out is not among the tables pipeline refusing streams");
            assertThat(refused(pipeline, "public.missing")).contains("table public.missing does not exist");
            // And one that can be, after them: the refusals did not stop the pipeline.
            Result ok = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"resync", "public.keyed"}, pipeline))
                    .get(120, TimeUnit.SECONDS);
            assertThat(ok.exit()).as(ok.out() + ok.err()).isZero();
            assertThat(ok.out()).contains("Re-synced public.keyed: 1 rows in 1 chunks");
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static String refused(String[] pipeline, String table) throws Exception {
        Result r = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"resync", table}, pipeline))
                .get(120, TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        return r.err();
    }

    /**
     * Rows written to a table of the source, one every 100 ms, and how long each took to show on
     * the target (from its commit, both read on this machine's clock).
     */
    private static final class Probes {
        private final TestDatabase source;
        private final TestDatabase target;
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final List<Long> latencies = Collections.synchronizedList(new ArrayList<>());

        Probes(TestDatabase source, TestDatabase target) {
            this.source = source;
            this.target = target;
        }

        void run() {
            try (Connection s = source.connect(); Connection t = target.connect();
                 PreparedStatement insert = s.prepareStatement("INSERT INTO probe VALUES (?, now())");
                 PreparedStatement seen = t.prepareStatement("SELECT 1 FROM probe WHERE id = ?")) {
                for (int id = 1; !stopped.get(); id++) {
                    insert.setInt(1, id);
                    insert.executeUpdate(); // autocommit: committed when it returns
                    long committed = System.nanoTime();
                    seen.setInt(1, id);
                    while (true) {
                        try (ResultSet rs = seen.executeQuery()) {
                            if (rs.next()) {
                                break;
                            }
                        } catch (java.sql.SQLException e) {
                            // the probe table is not on the target yet
                        }
                        if (System.nanoTime() - committed > TimeUnit.SECONDS.toNanos(30)) {
                            throw new AssertionError("probe " + id + " did not reach the target in 30 s");
                        }
                        Thread.sleep(5);
                    }
                    latencies.add((System.nanoTime() - committed) / 1_000_000);
                    Thread.sleep(100);
                }
            } catch (Exception e) {
                latencies.add(Long.MAX_VALUE);
                throw new IllegalStateException(e);
            }
        }

        void stop() {
            stopped.set(true);
        }

        List<Long> latencies() {
            return List.copyOf(latencies);
        }
    }
}
