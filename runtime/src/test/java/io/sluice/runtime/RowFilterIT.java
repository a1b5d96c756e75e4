package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Row filters through the snapshot and the stream: the target holds exactly the source's rows
 * that meet each filter, under a pgbench workload whose updates move accounts in and out of the
 * filter, with deletes and key changes that do so too. And what PostgreSQL would refuse of a
 * filter (a column outside the replica identity, a user function, a misspelt column, a table not
 * selected) stops the run before anything is made, naming the key.
 */
@ExtendWith(PostgresExtension.class)
class RowFilterIT {

    private static final String ACCOUNTS = "SELECT count(*) || ':' || coalesce(sum(aid), 0) || ':' || coalesce(sum(abalance), 0) || ':' "
            + "|| coalesce(sum(hashtext(aid || '/' || abalance || '/' || filler)), 0) FROM pgbench_accounts";
    private static final String TELLERS = "SELECT count(*) || ':' || coalesce(sum(tid), 0) || ':' || coalesce(sum(tbalance), 0) FROM pgbench_tellers";

    @TempDir
    Path work;

    @Test
    void theTargetHoldsExactlyTheRowsTheFiltersTake() throws Exception {
        TestDatabase source = TestDatabases.create(RowFilterIT.class);
        TestDatabase target = TestDatabases.create(RowFilterIT.class);
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            pgbench.run(source, "-i", "-q", "-s", "1");
            // A filter on a column outside the key needs the whole old row in the WAL.
            source.execute("ALTER TABLE pgbench_accounts REPLICA IDENTITY FULL",
                    "UPDATE pgbench_accounts SET abalance = (aid % 7) - 3");
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "filtered", "--offsets", work.resolve("filtered.offsets").toString(),
                    "--filter", "public.pgbench_accounts=abalance >= 0", "--filter", "public.pgbench_tellers=tid % 2 = 0",
                    "--set", "source.status.update.interval.ms=200");
            // The snapshot copied the rows the filters take, and no other.
            SluiceRuns.awaitSame(source, ACCOUNTS + " WHERE abalance >= 0", target, ACCOUNTS, run, "the snapshot of the filtered accounts");
            SluiceRuns.awaitSame(source, TELLERS + " WHERE tid % 2 = 0", target, TELLERS, run, "the snapshot of the filtered tellers");
            assertThat(target.queryLong("SELECT count(*) FROM pgbench_accounts WHERE abalance < 0")).isZero();

            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "150", "-T", "3600");
            Thread.sleep(3_000);
            source.execute(
                    // Deletes of rows in and out of the filter.
                    "DELETE FROM pgbench_accounts WHERE aid BETWEEN 100 AND 120",
                    // Key changes: staying in, staying out, moving in (an insert), moving out (a delete).
                    "UPDATE pgbench_accounts SET aid = aid + 10000000 WHERE aid = 4",
                    "UPDATE pgbench_accounts SET aid = aid + 10000000 WHERE aid = 7",
                    "UPDATE pgbench_accounts SET aid = aid + 20000000, abalance = 5 WHERE aid = 14",
                    "UPDATE pgbench_accounts SET aid = aid + 30000000, abalance = -9 WHERE aid = 5",
                    // Inserts in and out of it.
                    "INSERT INTO pgbench_accounts (aid, bid, abalance, filler) VALUES (40000001, 1, 1, 'in'), (40000002, 1, -1, 'out')",
                    // Moving rows in and out without the workload's help, many at once.
                    "UPDATE pgbench_accounts SET abalance = -abalance - 1 WHERE aid BETWEEN 1000 AND 1200");
            Thread.sleep(5_000);
            workload.destroy();
            workload.waitFor(30, TimeUnit.SECONDS);
            long moved = source.queryLong("SELECT count(*) FROM pgbench_history");
            assertThat(moved).as("the workload ran").isPositive();

            SluiceRuns.awaitSame(source, ACCOUNTS + " WHERE abalance >= 0", target, ACCOUNTS, run, "the filtered accounts after the workload");
            SluiceRuns.awaitSame(source, TELLERS + " WHERE tid % 2 = 0", target, TELLERS, run, "the filtered tellers after the workload");
            // Unfiltered tables whole.
            SluiceRuns.awaitSame(source, "SELECT count(*) || ':' || sum(delta) FROM pgbench_history", target,
                    "SELECT count(*) || ':' || sum(delta) FROM pgbench_history", run, "the history, unfiltered");
            assertThat(target.queryLong("SELECT count(*) FROM pgbench_accounts WHERE aid IN (40000002, 5, 30000005, 20000014)"))
                    .as("rows out of the filter: the insert out, the key change out; the key change in is there").isEqualTo(1);
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

    @Test
    void whatPostgresWouldRefuseOfAFilterStopsTheRunNamingTheKey() throws Exception {
        TestDatabase source = TestDatabases.create(RowFilterIT.class);
        TestDatabase target = TestDatabases.create(RowFilterIT.class);
        try {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, region text, amount numeric)",
                    "INSERT INTO orders VALUES (1, 'eu', 10), (2, 'us', 20)",
                    "CREATE FUNCTION is_big(numeric) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT $1 > 15'");
            assertThat(refused(source, target, "public.orders=region = 'eu'"))
                    .contains("table.filter.public.orders").contains("region").contains("replica identity")
                    .contains("REPLICA IDENTITY FULL");
            assertThat(refused(source, target, "public.orders=is_big(amount)"))
                    .contains("table.filter.public.orders").contains("user-defined");
            assertThat(refused(source, target, "public.orders=regoin = 'eu'"))
                    .contains("table.filter.public.orders").contains("regoin").contains("is not a condition on public.orders");
            assertThat(refused(source, target, "public.ordres=id > 1"))
                    .contains("table.filter.public.ordres matches no selected table");
            assertThat(refused(source, target, "public.orders=id > 1; DROP TABLE orders"))
                    .contains("table.filter.public.orders holds a ';'");
            assertThat(source.queryLong("SELECT count(*) FROM orders")).isEqualTo(2);
            assertThat(source.queryLong("SELECT count(*) FROM pg_publication")).as("publications left behind").isZero();
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")).as("slots").isZero();
            assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).as("tables on the target").isZero();

            // With the whole old row in the WAL, a filter on any column is taken.
            source.execute("ALTER TABLE orders REPLICA IDENTITY FULL");
            CompletableFuture<Void> stop = new CompletableFuture<>();
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "regions", "--offsets", work.resolve("regions.offsets").toString(),
                    "--filter", "public.orders=region = 'eu'");
            SluiceRuns.awaitSame(source, "SELECT string_agg(id::text, ',' ORDER BY id) FROM orders WHERE region = 'eu'", target,
                    "SELECT string_agg(id::text, ',' ORDER BY id) FROM orders", run, "the eu orders");
            source.execute("UPDATE orders SET region = 'eu' WHERE id = 2", "UPDATE orders SET region = 'us' WHERE id = 1",
                    "INSERT INTO orders VALUES (3, 'eu', 1)");
            SluiceRuns.awaitSame(source, "SELECT string_agg(id::text, ',' ORDER BY id) FROM orders WHERE region = 'eu'", target,
                    "SELECT string_agg(id::text, ',' ORDER BY id) FROM orders", run, "the eu orders after they moved");
            SluiceRuns.stopCleanly(stop, run);

            // The filter changed: set anew on the publication, and the stream follows it from there (the rows copied stay).
            CompletableFuture<Void> stopAgain = new CompletableFuture<>();
            CompletableFuture<Result> again = SluiceRuns.start(stopAgain, "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "regions", "--offsets", work.resolve("regions.offsets").toString(),
                    "--filter", "public.orders=region = 'us'");
            SluiceRuns.waitFor(() -> source.queryText("SELECT coalesce(string_agg(rowfilter, ','), '') FROM pg_publication_tables "
                    + "WHERE tablename = 'orders'").contains("'us'"), again, "the new filter on the publication");
            source.execute("INSERT INTO orders VALUES (4, 'us', 1), (5, 'eu', 1)");
            SluiceRuns.waitFor(() -> target.queryLong("SELECT count(*) FROM orders WHERE id = 4") == 1, again, "a us order, new filter");
            SluiceRuns.stopCleanly(stopAgain, again);
            assertThat(target.queryLong("SELECT count(*) FROM orders WHERE id = 5")).as("an eu order, outside the new filter").isZero();
            assertThat(source.queryLong("SELECT count(*) FROM pg_publication")).as("one publication, altered").isEqualTo(1);
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * A filter on a partitioned table's root holds for every partition, in the snapshot and the
     * stream; given as a pipeline file's {@code table.filter:} mapping; and it sees the source's
     * values where a transform rewrites the column it filters on.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "partitions published through their root: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void aFilterOnTheRootHoldsForEveryPartitionAndSeesSourceValues(boolean viaRoot) throws Exception {
        TestDatabase source = TestDatabases.create(RowFilterIT.class);
        TestDatabase target = TestDatabases.create(RowFilterIT.class);
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            source.execute("CREATE TABLE events (id int, at date, region text NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
                    "CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
                    "CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')",
                    "ALTER TABLE events_2025 REPLICA IDENTITY FULL",
                    "INSERT INTO events SELECT g, date '2025-06-01' + (g % 400), CASE WHEN g % 3 = 0 THEN 'eu' ELSE 'us' END "
                            + "FROM generate_series(1, 3000) g");
            Path pipeline = work.resolve("events.yaml");
            java.nio.file.Files.writeString(pipeline, """
                    name: events
                    source:
                      url: %s
                      status.update.interval.ms: 200
                      publish.via.partition.root: %s
                      table.filter:
                        public.events: region = 'eu'
                    target:
                      url: %s
                    transforms:
                      transforms: anonymize
                      transforms.anonymize.type: io.sluice.transforms.anonymize.Anonymize
                      transforms.anonymize.secret: a secret for this test only
                      transforms.anonymize.rules: |
                        public.events*.region = template(text="somewhere")
                    offsets: %s
                    """.formatted(SluiceRuns.url(source), viaRoot, SluiceRuns.url(target), work.resolve("events.offsets")));
            // PostgreSQL checks the replica identity of the partition an UPDATE modifies, whichever table is published.
            Result refused = SluiceRuns.start(new CompletableFuture<>(), "run", "--config", pipeline.toString()).get(120, TimeUnit.SECONDS);
            assertThat(refused.exit()).as(refused.out() + refused.err()).isNotZero();
            assertThat(refused.err() + refused.out()).contains("table.filter.public.events uses region")
                    .contains("\"public\".\"events_2026\"").doesNotContain("\"public\".\"events_2025\"");
            source.execute("ALTER TABLE events_2026 REPLICA IDENTITY FULL");
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--config", pipeline.toString());
            String keys = "SELECT count(*) || ':' || coalesce(sum(id), 0) || ':' || coalesce(sum(at - date '2025-01-01'), 0) FROM events";
            SluiceRuns.awaitSame(source, keys + " WHERE region = 'eu'", target, keys, run, "the snapshot of the eu events");
            source.execute("UPDATE events SET region = 'eu' WHERE id BETWEEN 1 AND 50", // moving in, in both partitions
                    "UPDATE events SET region = 'us' WHERE id BETWEEN 300 AND 360",         // moving out
                    "UPDATE events SET at = at + 200 WHERE id BETWEEN 1000 AND 1100",       // across partitions
                    "DELETE FROM events WHERE id BETWEEN 2000 AND 2100",
                    "INSERT INTO events VALUES (5001, '2026-05-05', 'eu'), (5002, '2025-05-05', 'us')");
            SluiceRuns.awaitSame(source, keys + " WHERE region = 'eu'", target, keys, run, "the eu events after the changes");
            // A partition made while streaming takes the root's filter from its first row (published as itself, or through the root).
            source.execute("BEGIN; CREATE TABLE events_2027 PARTITION OF events FOR VALUES FROM ('2027-01-01') TO ('2028-01-01'); "
                            + "ALTER TABLE events_2027 REPLICA IDENTITY FULL; "
                            + "INSERT INTO events SELECT g, date '2027-03-01', CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END "
                            + "FROM generate_series(7001, 7100) g; COMMIT",
                    "INSERT INTO events SELECT g, date '2027-04-01', CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END FROM generate_series(7101, 7200) g",
                    "UPDATE events SET region = 'us' WHERE id BETWEEN 7001 AND 7010",
                    "UPDATE events SET region = 'eu' WHERE id BETWEEN 7101 AND 7110");
            SluiceRuns.awaitSame(source, keys + " WHERE region = 'eu'", target, keys, run, "the eu events of a partition made while streaming");
            assertThat(target.queryText("SELECT string_agg(DISTINCT region, ',') FROM events")).as("the region as the transform wrote it")
                    .isEqualTo("somewhere");
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * A table made while streaming takes its row filter and column list in the transaction that
     * makes it (the DDL capture adds it to the publication so): its first rows, inserted with it,
     * are filtered too. One whose filter does not fit it (a column it lacks, a column outside its
     * replica identity) is left out of the publication rather than published unfiltered, and the
     * user's writes still work; it joins at its next DDL once the filter fits, its rows copied. (A
     * key must match a table that exists at start; a pattern takes the tables made later too.)
     */
    @Test
    void aTableMadeWhileStreamingTakesItsFilterAndListFromItsFirstRow() throws Exception {
        TestDatabase source = TestDatabases.create(RowFilterIT.class);
        TestDatabase target = TestDatabases.create(RowFilterIT.class);
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            source.execute("CREATE TABLE late_2025 (id int PRIMARY KEY, region text NOT NULL, secret text)",
                    "INSERT INTO late_2025 VALUES (1, 'eu', 'a'), (2, 'us', 'b')",
                    "CREATE TABLE misfit_a (id int PRIMARY KEY, nope int)", "INSERT INTO misfit_a VALUES (1, 1), (2, -1)",
                    "ALTER TABLE late_2025 REPLICA IDENTITY FULL", "ALTER TABLE misfit_a REPLICA IDENTITY FULL",
                    "CREATE TABLE wide_2025 (id int PRIMARY KEY, region text, secret text)", "INSERT INTO wide_2025 VALUES (1, 'eu', 's')");
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "later", "--offsets", work.resolve("later.offsets").toString(),
                    "--filter", "public.late_*=region = 'eu'", "--columns", "public.wide_*=id, region", "--filter", "public.misfit*=nope > 0",
                    "--set", "source.status.update.interval.ms=200");
            SluiceRuns.awaitSame(source, "SELECT count(*) FROM misfit_a WHERE nope > 0", target, "SELECT count(*) FROM misfit_a", run,
                    "the snapshot");
            source.execute("BEGIN; CREATE TABLE late_2026 (id int PRIMARY KEY, region text NOT NULL, secret text); "
                            + "ALTER TABLE late_2026 REPLICA IDENTITY FULL; "
                            + "INSERT INTO late_2026 SELECT g, CASE WHEN g % 3 = 0 THEN 'eu' ELSE 'us' END, 's' || g FROM generate_series(1, 300) g; "
                            + "COMMIT",
                    "INSERT INTO late_2026 SELECT g, CASE WHEN g % 3 = 0 THEN 'eu' ELSE 'us' END, 's' || g FROM generate_series(301, 600) g",
                    "UPDATE late_2026 SET region = 'us' WHERE id BETWEEN 1 AND 30",        // moving out
                    "UPDATE late_2026 SET region = 'eu' WHERE id BETWEEN 301 AND 330",     // moving in
                    "UPDATE late_2026 SET secret = 'changed' WHERE id BETWEEN 500 AND 600",
                    "DELETE FROM late_2026 WHERE id BETWEEN 590 AND 600",
                    "BEGIN; CREATE TABLE wide_2026 (id int PRIMARY KEY, region text, secret text); "
                            + "INSERT INTO wide_2026 SELECT g, 'r' || g, 'secret' FROM generate_series(1, 50) g; COMMIT",
                    "UPDATE wide_2026 SET region = 'changed', secret = 'changed too' WHERE id <= 5");
            String rows = "SELECT count(*) || ':' || coalesce(sum(id), 0) FROM late_2026";
            SluiceRuns.awaitSame(source, rows + " WHERE region = 'eu'", target, rows, run, "the eu rows of a table made while streaming");
            String wide = "SELECT count(*) || ':' || string_agg(id || region, ',' ORDER BY id) FROM wide_2026";
            SluiceRuns.awaitSame(source, wide, target, wide, run, "the rows of a listed table made while streaming");
            assertThat(target.queryText("SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns "
                    + "WHERE table_name = 'wide_2026'")).as("the listed columns only").isEqualTo("id,region");

            // Its filter outside its replica identity: left out (published so, PostgreSQL would refuse its updates), and its
            // writes go on; it joins, its rows copied, once the identity holds the filter's column.
            source.execute("CREATE TABLE late_2027 (id int PRIMARY KEY, region text NOT NULL, secret text)",
                    "INSERT INTO late_2027 SELECT g, CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END, 's' FROM generate_series(1, 100) g",
                    "UPDATE late_2027 SET secret = 'still works' WHERE id <= 10");
            assertThat(source.queryLong("SELECT count(*) FROM pg_publication_tables WHERE tablename = 'late_2027'")).isZero();
            source.execute("ALTER TABLE late_2027 REPLICA IDENTITY FULL", "UPDATE late_2027 SET region = 'eu' WHERE id BETWEEN 1 AND 9",
                    "DELETE FROM late_2027 WHERE id BETWEEN 90 AND 100");
            String rows2027 = "SELECT count(*) || ':' || coalesce(sum(id), 0) FROM late_2027";
            SluiceRuns.awaitSame(source, rows2027 + " WHERE region = 'eu'", target, rows2027, run,
                    "the eu rows of a table that joined once its replica identity held its filter's column");

            source.execute("CREATE TABLE misfit_b (id int PRIMARY KEY)", "INSERT INTO misfit_b VALUES (1)");
            assertThat(source.queryLong("SELECT count(*) FROM pg_publication_tables WHERE tablename = 'misfit_b'"))
                    .as("a table its filter does not fit is left out of the publication").isZero();
            assertThat(run).as("the run goes on").isNotDone();
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * A publication the user keeps ({@code publication.autocreate.mode=disabled}) is not changed:
     * its row filter and the key must be the same, so the snapshot copies what the stream will
     * carry; a filter in only one of them, or two different ones, stops the start showing both.
     */
    @Test
    void aPublicationTheUserKeepsMustFilterAsTheKeySays() throws Exception {
        TestDatabase source = TestDatabases.create(RowFilterIT.class);
        TestDatabase target = TestDatabases.create(RowFilterIT.class);
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, region text)", "ALTER TABLE orders REPLICA IDENTITY FULL",
                    "INSERT INTO orders VALUES (1, 'eu'), (2, 'us'), (3, 'eu')",
                    "CREATE PUBLICATION mine FOR TABLE orders WHERE (region = 'eu')");
            String[] kept = {"--set", "source.publication.autocreate.mode=disabled", "--set", "source.publication.name=mine"};
            assertThat(refused(source, target, null, kept)).contains("publication mine filters public.orders by")
                    .contains("region = 'eu'").contains("no table.filter key names it");
            assertThat(refused(source, target, "public.orders=region = 'us'", kept)).contains("publication mine filters public.orders by")
                    .contains("table.filter.public.orders says region = 'us'");
            assertThat(source.queryText("SELECT rowfilter FROM pg_publication_tables WHERE pubname = 'mine'")).as("left as it was")
                    .contains("'eu'");

            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(new String[] {"run", "--source", SluiceRuns.url(source),
                    "--target", SluiceRuns.url(target), "--name", "kept", "--offsets", work.resolve("kept.offsets").toString(),
                    "--filter", "public.orders=(region = 'eu')"}, kept));
            source.execute("UPDATE orders SET region = 'eu' WHERE id = 2", "UPDATE orders SET region = 'us' WHERE id = 1");
            SluiceRuns.awaitSame(source, "SELECT string_agg(id::text, ',' ORDER BY id) FROM orders WHERE region = 'eu'", target,
                    "SELECT string_agg(id::text, ',' ORDER BY id) FROM orders", run, "the eu orders through the user's publication");
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /** Runs {@code sluice run} with one filter, which must end by itself, not 0; what it said. */
    private String refused(TestDatabase source, TestDatabase target, String filter, String... more) throws Exception {
        String[] command = {"run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "refused",
                "--offsets", work.resolve("refused.offsets").toString()};
        if (filter != null) {
            command = SluiceRuns.with(command, "--filter", filter);
        }
        Result r = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(command, more)).get(120, TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.out() + r.err()).isNotZero();
        return r.out() + r.err();
    }
}
