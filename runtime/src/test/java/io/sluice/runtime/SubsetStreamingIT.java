package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice run --subset}: SubsetIT's shop subset to one region's customers, then changed
 * while streaming by a drawn workload: customers, orders, order lines, products, categories,
 * regions and audit rows added; columns changed; lines, orders and products deleted; then one
 * change at a time, foreign keys pointed elsewhere and customers moved into the region; then new
 * orders again. Each table on the target ends holding exactly the rows {@link SubsetStreamModel}
 * keeps (the rule judged against the target's rows, change by change), and no foreign key on the
 * target dangles. Changes that the model's "now" would read differently from the stream's (the
 * source's rows are read when a change is decoded) are made one at a time, each waited for.
 */
@ExtendWith(PostgresExtension.class)
class SubsetStreamingIT {

    @TempDir
    Path work;

    @Test
    void streamedChangesFollowTheSubsetsRule() throws Exception {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        TestDatabase source = TestDatabases.create(SubsetStreamingIT.class);
        TestDatabase target = TestDatabases.create(SubsetStreamingIT.class);
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CompletableFuture<Result> run = null;
        try {
            SubsetIT.shop(source);
            Map<String, List<String>> snapshot = SubsetIT.model(source, "eu");
            String[] pipeline = {"--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "staging",
                    "--offsets", work.resolve("staging.offsets").toString(), "--subset", "public.customers=region = 'eu'"};
            run = SluiceRuns.start(stop, SluiceRuns.with(new String[] {"run"}, pipeline));
            SluiceRuns.awaitSame(source, "SELECT count(*) FROM settings", target, "SELECT count(*) FROM settings", run, "the snapshot");
            caughtUp(source, target, run, "the snapshot");
            for (String table : SubsetIT.TABLES) {
                if (!table.equals("settings")) { // the marks are in it
                    assertThat(SubsetIT.rows(target, table)).as("the snapshot's rows of %s", table).isEqualTo(snapshot.get(table));
                }
            }
            SubsetStreamModel model = new SubsetStreamModel("eu");
            model.load(source, target);
            ShopWorkload workload = new ShopWorkload(model, random);

            // Rows added, changed and deleted, foreign keys as they were made: nothing the stream reads later differs.
            List<String> statements = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                statements.addAll(workload.next());
            }
            for (String statement : statements) {
                source.execute(statement);
            }
            caughtUp(source, target, run, "the added rows (seed " + seed + ")");
            // Keys pointed elsewhere and customers moved into the region: each read as the model reads it, so each waited for.
            for (int i = 0; i < 30; i++) {
                for (String statement : workload.repoint()) {
                    source.execute(statement);
                }
                caughtUp(source, target, run, "a repointed key (seed " + seed + ")");
            }
            statements.clear();
            for (int i = 0; i < 200; i++) {
                statements.addAll(workload.next());
            }
            for (String statement : statements) {
                source.execute(statement);
            }
            caughtUp(source, target, run, "the rows added after (seed " + seed + ")");

            matches(target, model, "streamed", seed);
            assertThat(model.expected("orders").size()).as("orders were added to the subset").isGreaterThan(snapshot.get("orders").size());
            assertThat(model.rows("orders").size() - model.expected("orders").size()).as("and some left out").isPositive();

            // A re-sync reads the tables again through the rule: the orders of customers moved into the region come, and their lines.
            int before = model.expected("orders").size();
            Result resync = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"resync", "public.orders",
                    "public.order_lines"}, pipeline)).get(300, TimeUnit.SECONDS);
            assertThat(resync.exit()).as(resync.out() + resync.err()).isZero();
            model.resync("orders");
            model.resync("order_lines");
            caughtUp(source, target, run, "the re-sync (seed " + seed + ")");
            matches(target, model, "re-synced", seed);
            assertThat(model.expected("orders").size()).as("the re-sync brought orders (seed %d)", seed).isGreaterThan(before);
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            cleanUp(stop, run, source, target);
        }
    }

    /**
     * Orders partitioned by range, with partitions published as themselves (the PostgreSQL
     * target's default): a new order of a kept customer arrives in its partition, one of another
     * customer does not, and a new customer of the region whose favourite order is another
     * customer's brings that order up from its partition, and that order's customer.
     */
    @Test
    void partitionedParentsComeUp() throws Exception {
        TestDatabase source = TestDatabases.create(SubsetStreamingIT.class);
        TestDatabase target = TestDatabases.create(SubsetStreamingIT.class);
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CompletableFuture<Result> run = null;
        try {
            source.execute("CREATE TABLE customers (id int PRIMARY KEY, region text NOT NULL, favorite_order int)",
                    "CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers) PARTITION BY RANGE (id)",
                    "CREATE TABLE orders_low PARTITION OF orders FOR VALUES FROM (0) TO (100)",
                    "CREATE TABLE orders_high PARTITION OF orders FOR VALUES FROM (100) TO (1000)",
                    "CREATE TABLE lines (order_id int REFERENCES orders, line int, PRIMARY KEY (order_id, line))",
                    "ALTER TABLE customers ADD FOREIGN KEY (favorite_order) REFERENCES orders",
                    "CREATE TABLE settings (k text PRIMARY KEY, v text)",
                    "INSERT INTO customers VALUES (1, 'eu', NULL), (2, 'us', NULL)",
                    "INSERT INTO orders VALUES (10, 1), (20, 2), (110, 2)",
                    "INSERT INTO lines VALUES (10, 1), (20, 1), (110, 1)");
            run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "parts",
                    "--offsets", work.resolve("parts.offsets").toString(), "--subset", "public.customers=region = 'eu'");
            caughtUp(source, target, run, "the snapshot");
            assertThat(target.queryText("SELECT string_agg(id::text, ',' ORDER BY id) FROM orders")).isEqualTo("10");

            source.execute("INSERT INTO orders VALUES (11, 1), (120, 1), (21, 2)", "INSERT INTO lines VALUES (11, 1), (120, 1), (21, 1)",
                    "INSERT INTO customers VALUES (3, 'eu', 110)");
            caughtUp(source, target, run, "the changes");
            assertThat(target.queryText("SELECT string_agg(id || ':' || customer_id, ',' ORDER BY id) FROM orders"))
                    .as("the kept customers' new orders, and customer 3's favourite brought up from its partition")
                    .isEqualTo("10:1,11:1,110:2,120:1");
            assertThat(target.queryText("SELECT string_agg(id || ':' || region, ',' ORDER BY id) FROM customers"))
                    .as("the favourite order's customer brought up too").isEqualTo("1:eu,2:us,3:eu");
            assertThat(target.queryText("SELECT string_agg(order_id || '/' || line, ',' ORDER BY order_id) FROM lines"))
                    .as("lines of kept orders only: 110's line was never a change").isEqualTo("10/1,11/1,120/1");
            assertThat(target.queryLong("SELECT count(*) FROM orders_high")).as("rows in their partitions").isEqualTo(2);
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            cleanUp(stop, run, source, target);
        }
    }

    private static void cleanUp(CompletableFuture<Void> stop, CompletableFuture<Result> run, TestDatabase source, TestDatabase target)
            throws Exception {
        stop.complete(null);
        if (run != null) {
            run.get(60, TimeUnit.SECONDS);
        }
        TestDatabases.drop(source);
        TestDatabases.drop(target);
    }

    /** Each table on the target holds exactly the model's rows, and no foreign key there dangles. */
    private static void matches(TestDatabase target, SubsetStreamModel model, String when, long seed) throws Exception {
        for (String table : SubsetIT.TABLES) {
            if (!table.equals("settings")) {
                assertThat(SubsetIT.rows(target, table)).as("the rows of %s, %s (seed %d)", table, when, seed)
                        .isEqualTo(model.expected(table));
            }
        }
        for (SubsetIT.Edge e : SubsetIT.EDGES) {
            String join = String.join(" AND ", java.util.stream.IntStream.range(0, e.childColumns().size())
                    .mapToObj(i -> "p." + e.parentColumns().get(i) + " = c." + e.childColumns().get(i)).toList());
            assertThat(target.queryLong("SELECT count(*) FROM " + e.child() + " c WHERE " + e.childColumns().get(0)
                    + " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + e.parent() + " p WHERE " + join + ")"))
                    .as("rows of %s whose %s reference no row on the target, %s (seed %d)", e.child(), e.childColumns(), when, seed)
                    .isZero();
        }
    }

    /** A settings row written now reaches the target: everything before it has. */
    private static void caughtUp(TestDatabase source, TestDatabase target, CompletableFuture<Result> run, String what) throws Exception {
        // The mark must come through the stream: one written before the snapshot began comes with it, maybe before other tables.
        SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE active "
                + "AND database = current_database()") == 1, run, what + " (streaming)");
        String mark = "m" + System.nanoTime();
        source.execute("INSERT INTO settings VALUES ('" + mark + "', 'caught up')");
        SluiceRuns.waitFor(() -> {
            try {
                return target.queryLong("SELECT count(*) FROM settings WHERE k = '" + mark + "'") == 1;
            } catch (java.sql.SQLException e) {
                return false; // the snapshot has not made the table yet
            }
        }, run, what);
    }
}
