package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;

/** What the tests of pipelines with several targets share: a customers table and its workload, and checks of each kind of target. */
final class FanOutFixture {

    private FanOutFixture() {
    }

    /**
     * A customers table of {@code rows} rows (id, email, name) on the source, and
     * {@code customers.sql} in {@code work}: a pgbench script that moves one customer's address.
     */
    static void customers(TestDatabase source, Path work, int rows) throws Exception {
        source.execute("CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL, name text)",
                "INSERT INTO customers SELECT g, 'person' || g || '@example.org', 'name ' || g FROM generate_series(1, " + rows + ") g");
        Files.writeString(work.resolve("customers.sql"), "\\set id random(1, " + rows + ")\n"
                + "UPDATE customers SET email = 'moved' || :id || '.' || floor(random() * 1000)::int || '@example.net' WHERE id = :id;\n");
    }

    /** A pipeline file's webhook target subscribing {@code url} to the customers, indented under {@code targets:}. */
    static String hooks(String url, String secret) {
        return """
                  hooks:
                    url: webhook
                    delivery.allow.networks: 127.0.0.1/32
                    subscriptions: customers
                    subscription.customers.url: %s
                    subscription.customers.secrets: %s
                    subscription.customers.tables: public.customers
                """.formatted(url, secret).stripTrailing();
    }

    /** Each customer's last state as delivered to the receiver (its address); deleted ones left out. */
    static Map<String, String> lastStates(TestReceiver receiver) {
        Map<String, String> delivered = new HashMap<>();
        for (TestReceiver.Received r : receiver.accepted()) {
            com.fasterxml.jackson.databind.JsonNode change = r.json();
            if (change.path("after").isObject()) {
                delivered.put(change.path("after").path("id").asText(), change.path("after").path("email").asText());
            } else if (change.path("before").isObject()) {
                delivered.remove(change.path("before").path("id").asText());
            }
        }
        return delivered;
    }

    static void cleanUp(Process workload, SluiceProcess sluice, TestDatabase... databases) throws Exception {
        if (workload != null) {
            workload.destroyForcibly();
        }
        if (sluice != null) {
            sluice.close();
        }
        for (TestDatabase db : databases) {
            TestDatabases.drop(db);
        }
    }

    /** A condition on the targets, observed. */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits until the condition holds, for up to 180 s, while sluice runs. */
    static void awaitOn(SluiceProcess sluice, String what, Condition condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!condition.holds()) {
            assertThat(sluice.alive()).as("sluice runs:\n" + sluice.output()).isTrue();
            assertThat(System.nanoTime()).as(what + " within 180 s:\n" + sluice.output()).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    static void awaitOutput(SluiceProcess sluice, String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!sluice.output().contains(line)) {
            assertThat(sluice.alive()).as("sluice runs:\n" + sluice.output()).isTrue();
            assertThat(System.nanoTime()).as("'" + line + "' within 180 s:\n" + sluice.output()).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** Waits until the customer row with this id is on all three targets. */
    static void awaitEverywhere(SluiceProcess sluice, TestDatabase replica, TestDatabase staging, OpenSearchNode node, String prefix,
                                        int id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!(has(replica, id) && has(staging, id) && IndexDocuments.get(node, prefix + "public.customers", Integer.toString(id)) != null)) {
            assertThat(sluice.alive()).as("sluice runs:\n" + sluice.output()).isTrue();
            assertThat(System.nanoTime()).as("customer " + id + " on every target within 180 s:\n" + sluice.output()).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    static boolean has(TestDatabase target, int id) throws Exception {
        return target.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = 'customers'") == 1
                && target.queryLong("SELECT count(*) FROM customers WHERE id = " + id) == 1;
    }

    static Map<String, String> rows(TestDatabase db, String query) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getString(2));
            }
        }
        return rows;
    }

    /** Every row is a document whose id is the key and whose field equals the column; no other document. */
    static void assertSame(TestDatabase source, OpenSearchNode node, String index, String query, String field) throws Exception {
        Map<String, String> rows = rows(source, query);
        Map<String, String> docs = new HashMap<>();
        IndexDocuments.all(node, index).forEach((id, doc) -> docs.put(id, doc.path(field).asText()));
        assertThat(docs).as(index).hasSameSizeAs(rows).isEqualTo(rows);
    }
}
