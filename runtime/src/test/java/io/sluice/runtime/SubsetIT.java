package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
 * {@code sluice snapshot --subset}: a shop of four levels of foreign keys (regions, customers who
 * refer customers, orders, order lines, products in a tree of categories, customers' favourite
 * orders making a cycle, a keyless audit table) subset to the customers of one region. Each table
 * on the target holds exactly the rows a plain model of the rule keeps (their every column), the
 * target's foreign keys are made and valid, a table no key links is copied whole, and a subset
 * streamed into webhooks, or with a key that matches no table, is refused naming the key. With the
 * customers' keys anonymized, the joins still hold.
 */
@ExtendWith(PostgresExtension.class)
class SubsetIT {

    @TempDir
    Path work;

    /** A foreign key of the shop: child table and columns, parent table and columns. */
    record Edge(String child, List<String> childColumns, String parent, List<String> parentColumns) {
    }

    static final List<Edge> EDGES = List.of(
            new Edge("customers", List.of("region"), "regions", List.of("code")),
            new Edge("customers", List.of("referred_by"), "customers", List.of("id")),
            new Edge("customers", List.of("favorite_order"), "orders", List.of("id")),
            new Edge("orders", List.of("customer_id"), "customers", List.of("id")),
            new Edge("order_lines", List.of("order_id"), "orders", List.of("id")),
            new Edge("order_lines", List.of("product_id"), "products", List.of("id")),
            new Edge("products", List.of("category_id"), "categories", List.of("id")),
            new Edge("categories", List.of("parent_id"), "categories", List.of("id")),
            new Edge("audit", List.of("customer_id"), "customers", List.of("id")));
    static final List<String> TABLES = List.of("regions", "customers", "orders", "order_lines", "products", "categories", "audit",
            "settings");

    @Test
    void theSubsetHoldsWhatTheRuleKeepsAndNoKeyDangles() throws Exception {
        TestDatabase source = TestDatabases.create(SubsetIT.class);
        TestDatabase target = TestDatabases.create(SubsetIT.class);
        try {
            shop(source);
            Result snapshot = SluiceRuns.start(new CompletableFuture<>(), "snapshot", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "staging", "--subset", "public.customers=region = 'eu'").get(300, TimeUnit.SECONDS);
            assertThat(snapshot.exit()).as(snapshot.out() + snapshot.err()).isZero();

            Map<String, List<String>> expected = model(source, "eu");
            for (String table : TABLES) {
                assertThat(rows(target, table)).as("the rows of %s", table).isEqualTo(expected.get(table));
            }
            assertThat(expected.get("customers")).as("the model keeps customers of other regions, referred or referring")
                    .anyMatch(row -> !row.contains("|eu|"));
            assertThat(expected.get("orders").size()).isLessThan(rows(source, "orders").size());
            assertThat(target.queryText("SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint WHERE contype = 'f' "
                    + "AND convalidated")).as("every foreign key made on the target, and valid")
                    .isEqualTo(source.queryText("SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint WHERE contype = 'f'"));

            Result webhooks = SluiceRuns.start(new CompletableFuture<>(), "run", "--source", SluiceRuns.url(source), "--target",
                    "webhook", "--name", "streamed", "--offsets", work.resolve("streamed.offsets").toString(),
                    "--subset", "public.customers=region = 'eu'").get(120, TimeUnit.SECONDS);
            assertThat(webhooks.exit()).as(webhooks.out() + webhooks.err()).isEqualTo(2);
            assertThat(webhooks.err()).contains("subset.public.customers").contains("PostgreSQL targets only");
            Result unmatched = SluiceRuns.start(new CompletableFuture<>(), "snapshot", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "typo", "--subset", "public.customer=region = 'eu'").get(120, TimeUnit.SECONDS);
            assertThat(unmatched.exit()).as(unmatched.out() + unmatched.err()).isEqualTo(2);
            assertThat(unmatched.err()).contains("subset.public.customer").contains("no selected table");
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * With Anonymize hashing the customers' keys and every reference to them (one value, one
     * output, in every table), the subset is taken on the source's values and its joins hold on
     * the target: the same rows per table as the rule keeps, every foreign key valid, no source
     * key or email left.
     */
    @Test
    void anonymizedKeysKeepTheSubsetsJoins() throws Exception {
        TestDatabase source = TestDatabases.create(SubsetIT.class);
        TestDatabase target = TestDatabases.create(SubsetIT.class);
        try {
            shop(source);
            Path pipeline = work.resolve("staging.yaml");
            java.nio.file.Files.writeString(pipeline, """
                    name: staging
                    source:
                      url: %s
                      subset:
                        public.customers: region = 'eu'
                    target:
                      url: %s
                    transforms:
                      transforms: anonymize
                      transforms.anonymize.type: io.sluice.transforms.anonymize.Anonymize
                      transforms.anonymize.secret: a secret for this test only
                      transforms.anonymize.rules: |
                        public.customers.id = hash(format=integer, min=1000000, max=2000000000)
                        public.customers.referred_by = hash(format=integer, min=1000000, max=2000000000)
                        public.orders.customer_id = hash(format=integer, min=1000000, max=2000000000)
                        public.audit.customer_id = hash(format=integer, min=1000000, max=2000000000)
                        public.customers.email = email
                    """.formatted(SluiceRuns.url(source), SluiceRuns.url(target)));
            Result snapshot = SluiceRuns.start(new CompletableFuture<>(), "snapshot", "--config", pipeline.toString())
                    .get(300, TimeUnit.SECONDS);
            assertThat(snapshot.exit()).as(snapshot.out() + snapshot.err()).isZero();
            Map<String, List<String>> expected = model(source, "eu");
            for (String table : TABLES) {
                assertThat(rows(target, table)).as("the rows of %s", table).hasSameSizeAs(expected.get(table));
            }
            assertThat(target.queryText("SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint WHERE contype = 'f' "
                    + "AND convalidated")).as("every foreign key valid on anonymized keys")
                    .isEqualTo(source.queryText("SELECT string_agg(conname, ',' ORDER BY conname) FROM pg_constraint WHERE contype = 'f'"));
            assertThat(target.queryLong("SELECT count(*) FROM customers WHERE id < 1000000 OR email LIKE '%@shop.test'"))
                    .as("no source key or email").isZero();
            assertThat(target.queryLong("SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id"))
                    .as("every order joins its customer").isEqualTo(expected.get("orders").size());
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    static void shop(TestDatabase source) throws Exception {
        source.execute("CREATE TABLE regions (code text PRIMARY KEY, name text)",
                "INSERT INTO regions VALUES ('eu', 'Europe'), ('us', 'Americas'), ('ap', 'Asia'), ('af', 'Africa')",
                "CREATE TABLE categories (id int PRIMARY KEY, parent_id int REFERENCES categories, name text)",
                "INSERT INTO categories SELECT g, CASE WHEN g > 3 THEN 1 + g % 3 END, 'cat ' || g FROM generate_series(1, 12) g",
                "CREATE TABLE products (id int PRIMARY KEY, category_id int REFERENCES categories, name text)",
                "INSERT INTO products SELECT g, 1 + g % 12, 'product ' || g FROM generate_series(1, 200) g",
                "CREATE TABLE customers (id int PRIMARY KEY, region text NOT NULL REFERENCES regions, referred_by int REFERENCES customers, "
                        + "favorite_order int, email text)",
                "INSERT INTO customers SELECT g, (ARRAY['eu', 'us', 'ap'])[1 + g % 3], CASE WHEN g % 5 = 0 THEN g - 1 END, NULL, "
                        + "'c' || g || '@shop.test' FROM generate_series(1, 300) g",
                "CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers, placed date)",
                "INSERT INTO orders SELECT g, 1 + (g * 7) % 300, date '2026-01-01' + g % 300 FROM generate_series(1, 1500) g",
                "ALTER TABLE customers ADD CONSTRAINT customers_favorite_order_fkey FOREIGN KEY (favorite_order) REFERENCES orders",
                // A cycle: some customers' favourite order is another customer's.
                "UPDATE customers SET favorite_order = 1 + (id * 13) % 1500 WHERE id % 7 = 0",
                "CREATE TABLE order_lines (order_id int REFERENCES orders, line int, product_id int NOT NULL REFERENCES products, qty int, "
                        + "PRIMARY KEY (order_id, line))",
                "INSERT INTO order_lines SELECT o, l, 1 + (o * l) % 200, l FROM generate_series(1, 1500) o, generate_series(1, 3) l",
                "CREATE TABLE audit (customer_id int REFERENCES customers, note text)",
                "INSERT INTO audit SELECT 1 + g % 300, 'note ' || g FROM generate_series(1, 600) g",
                "CREATE TABLE settings (k text PRIMARY KEY, v text)", "INSERT INTO settings VALUES ('a', '1'), ('b', '2')");
    }

    /** Every row of a table as text, its columns joined by '|', sorted. */
    static List<String> rows(TestDatabase db, String table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder("|");
                for (int i = 1; i <= n; i++) {
                    row.append(rs.getString(i)).append('|');
                }
                rows.add(row.toString());
            }
        }
        rows.sort(null);
        return rows;
    }

    /**
     * The rule, plainly, over the source's rows: the customers of the region kept going down;
     * down from those to the rows referencing them; up from every kept row to what it
     * references; to a fixed point. Tables no key links to customers are whole.
     */
    static Map<String, List<String>> model(TestDatabase source, String region) throws Exception {
        Map<String, List<Map<String, String>>> data = new HashMap<>();
        Map<String, List<String>> text = new HashMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                List<Map<String, String>> rows = new ArrayList<>();
                List<String> texts = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        Map<String, String> row = new HashMap<>();
                        StringBuilder t = new StringBuilder("|");
                        for (int i = 1; i <= n; i++) {
                            row.put(rs.getMetaData().getColumnName(i), rs.getString(i));
                            t.append(rs.getString(i)).append('|');
                        }
                        rows.add(row);
                        texts.add(t.toString());
                    }
                }
                data.put(table, rows);
                text.put(table, texts);
            }
        }
        record Kept(String table, int row, boolean down) {
        }
        Set<Kept> kept = new HashSet<>();
        Deque<Kept> next = new ArrayDeque<>();
        List<Map<String, String>> customers = data.get("customers");
        for (int i = 0; i < customers.size(); i++) {
            if (region.equals(customers.get(i).get("region"))) {
                kept.add(new Kept("customers", i, true));
                next.add(new Kept("customers", i, true));
            }
        }
        while (!next.isEmpty()) {
            Kept k = next.poll();
            Map<String, String> row = data.get(k.table()).get(k.row());
            for (Edge e : EDGES) {
                if (k.down() && e.parent().equals(k.table())) {
                    List<Map<String, String>> children = data.get(e.child());
                    for (int i = 0; i < children.size(); i++) {
                        if (refers(children.get(i), e.childColumns(), row, e.parentColumns()) && kept.add(new Kept(e.child(), i, true))) {
                            next.add(new Kept(e.child(), i, true));
                        }
                    }
                }
                if (e.child().equals(k.table())) {
                    List<Map<String, String>> parents = data.get(e.parent());
                    for (int i = 0; i < parents.size(); i++) {
                        if (refers(row, e.childColumns(), parents.get(i), e.parentColumns()) && kept.add(new Kept(e.parent(), i, false))) {
                            next.add(new Kept(e.parent(), i, false));
                        }
                    }
                }
            }
        }
        Map<String, List<String>> out = new TreeMap<>();
        for (String table : TABLES) {
            List<String> rows = new ArrayList<>();
            if (table.equals("settings")) {
                rows.addAll(text.get(table));
            } else {
                Set<Integer> once = new HashSet<>();
                kept.stream().filter(k -> k.table().equals(table) && once.add(k.row())).forEach(k -> rows.add(text.get(table).get(k.row())));
            }
            rows.sort(null);
            out.put(table, rows);
        }
        return out;
    }

    /** Whether the child row's columns, none NULL, equal the parent row's. */
    private static boolean refers(Map<String, String> child, List<String> childColumns, Map<String, String> parent, List<String> parentColumns) {
        for (int i = 0; i < childColumns.size(); i++) {
            String v = child.get(childColumns.get(i));
            if (v == null || !v.equals(parent.get(parentColumns.get(i)))) {
                return false;
            }
        }
        return true;
    }
}
