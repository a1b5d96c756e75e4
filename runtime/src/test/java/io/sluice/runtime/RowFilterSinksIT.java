package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A row filter into the other sinks: an OpenSearch index ends with exactly one document per row
 * the filter takes, and a webhook subscriber, replaying what it got by id, ends with exactly those
 * rows; updates moving rows in arrive as inserts, out as deletes, in both.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class RowFilterSinksIT {

    private static final String FILTER = "region = 'eu'";
    private static final String[] CHANGES = {
        "UPDATE orders SET region = 'eu' WHERE id BETWEEN 1 AND 40",
        "UPDATE orders SET region = 'us' WHERE id BETWEEN 300 AND 330",
        "UPDATE orders SET amount = amount + 1 WHERE id % 5 = 0",
        "UPDATE orders SET id = id + 100000 WHERE id IN (3, 6, 9, 10)",
        "DELETE FROM orders WHERE id BETWEEN 500 AND 560",
        "INSERT INTO orders SELECT g, CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END, g FROM generate_series(2001, 2100) g"};

    @TempDir
    Path work;

    @Test
    void anIndexHoldsOneDocumentPerRowTheFilterTakes(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(RowFilterSinksIT.class);
        String index = source.name().toLowerCase() + ".public.orders";
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            orders(source);
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target", node.httpUrl(),
                    "--name", "search_" + source.name().toLowerCase(), "--offsets", work.resolve("search.offsets").toString(),
                    "--filter", "public.orders=" + FILTER, "--set", "target.index.name.format=" + source.name().toLowerCase()
                            + ".${schema}.${table}");
            SluiceRuns.waitFor(() -> indexed(node, index).equals(rows(source)), run, "the snapshot's documents");
            source.execute(CHANGES);
            Map<String, String>[] last = new Map[1];
            try {
                SluiceRuns.waitFor(() -> (last[0] = indexed(node, index)).equals(rows(source)), run, "the documents after the changes");
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + ": index " + last[0] + ", source " + rows(source), e);
            }
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
        }
    }

    @Test
    void aSubscriberGetsTheRowsTheFilterTakesAndMovesAsInsertsAndDeletes() throws Exception {
        TestDatabase source = TestDatabases.create(RowFilterSinksIT.class);
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new SecureRandom());
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try (TestReceiver receiver = new TestReceiver(List.of(secret))) {
            orders(source);
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target", "webhook",
                    "--name", "hooks", "--offsets", work.resolve("hooks.offsets").toString(), "--filter", "public.orders=" + FILTER,
                    "--set", "target.delivery.allow.networks=127.0.0.1/32", "--set", "target.subscriptions=orders",
                    "--set", "target.subscription.orders.url=" + receiver.url(), "--set", "target.subscription.orders.secrets=" + secret,
                    "--set", "target.subscription.orders.max.in.flight=1");
            SluiceRuns.waitFor(() -> replayed(receiver).equals(rows(source)), run, "the snapshot's rows at the subscriber");
            source.execute(CHANGES);
            SluiceRuns.waitFor(() -> replayed(receiver).equals(rows(source)), run, "the rows after the changes at the subscriber");
            Set<String> operations = new HashSet<>();
            receiver.accepted().forEach(r -> operations.add(r.json().path("operation").asText()));
            assertThat(operations).as("moves in arrive as inserts, out as deletes").contains("read", "insert", "update", "delete");
            receiver.accepted().forEach(r -> {
                JsonNode after = r.json().path("after");
                assertThat(after.isMissingNode() || after.isNull() || after.path("region").asText().equals("eu"))
                        .as("no row outside the filter: %s", r.json()).isTrue();
            });
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
        }
    }

    /** A column list: the index's documents and mapping, and the subscriber's rows, carry the listed columns and the key only. */
    @Test
    void aColumnListNarrowsDocumentsAndPayloads(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(RowFilterSinksIT.class);
        String index = source.name().toLowerCase() + ".public.orders";
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new SecureRandom());
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CompletableFuture<Void> stopHooks = new CompletableFuture<>();
        try (TestReceiver receiver = new TestReceiver(List.of(secret))) {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount numeric, secret text)",
                    "INSERT INTO orders SELECT g, 'eu', g, 's' || g FROM generate_series(1, 100) g");
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target", node.httpUrl(),
                    "--name", "narrow_" + source.name().toLowerCase(), "--offsets", work.resolve("narrow.offsets").toString(),
                    "--tables", "public.orders", "--columns", "public.orders=region", "--set", "target.index.name.format=" + source.name().toLowerCase()
                            + ".${schema}.${table}");
            CompletableFuture<Result> hooks = SluiceRuns.start(stopHooks, "run", "--source", SluiceRuns.url(source), "--target", "webhook",
                    "--name", "narrowhooks", "--offsets", work.resolve("narrowhooks.offsets").toString(), "--tables", "public.orders",
                    "--columns", "public.orders=region",
                    "--set", "target.delivery.allow.networks=127.0.0.1/32", "--set", "target.subscriptions=orders",
                    "--set", "target.subscription.orders.url=" + receiver.url(), "--set", "target.subscription.orders.secrets=" + secret);
            SluiceRuns.waitFor(() -> count(node, index) == 100, run, "the snapshot's documents");
            source.execute("UPDATE orders SET amount = amount + 1, region = 'us' WHERE id <= 10", "INSERT INTO orders VALUES (101, 'eu', 1, 'x')");
            SluiceRuns.waitFor(() -> {
                Map<String, JsonNode> docs = IndexDocuments.all(node, index);
                return docs.size() == 101 && docs.get("1").path("region").asText().equals("us");
            }, run, "the changes indexed");
            IndexDocuments.all(node, index).values().forEach(d -> assertThat(fields(d)).as("document %s", d).containsOnly("id", "region"));
            SluiceRuns.waitFor(() -> receiver.accepted().stream().anyMatch(r -> r.json().path("after").path("id").asInt() == 101), hooks,
                    "the insert at the subscriber");
            receiver.accepted().stream().filter(r -> !r.id().startsWith("msg_test_")).forEach(r -> assertThat(fields(r.json().path("after")))
                    .as("payload %s", r.json()).containsOnly("id", "region"));
            SluiceRuns.stopCleanly(stop, run);
            SluiceRuns.stopCleanly(stopHooks, hooks);
        } finally {
            stop.complete(null);
            stopHooks.complete(null);
            TestDatabases.drop(source);
        }
    }

    private static long count(OpenSearchNode node, String index) {
        try {
            return IndexDocuments.all(node, index).size();
        } catch (Exception e) {
            return -1; // no index yet
        }
    }

    private static Set<String> fields(JsonNode object) {
        Set<String> names = new HashSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static void orders(TestDatabase source) throws Exception {
        source.execute("CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount numeric)",
                "ALTER TABLE orders REPLICA IDENTITY FULL",
                "INSERT INTO orders SELECT g, CASE WHEN g % 3 = 0 THEN 'eu' ELSE 'us' END, g FROM generate_series(1, 1000) g");
    }

    /** The source's rows the filter takes, id to amount. */
    private static Map<String, String> rows(TestDatabase source) throws Exception {
        Map<String, String> rows = new TreeMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, amount FROM orders WHERE " + FILTER)) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getBigDecimal(2).stripTrailingZeros().toPlainString());
            }
        }
        return rows;
    }

    /** The index's documents, id to amount; empty while there is no index. */
    private static Map<String, String> indexed(OpenSearchNode node, String index) {
        Map<String, String> docs = new TreeMap<>();
        try {
            IndexDocuments.all(node, index).forEach((id, d) -> docs.put(id, new java.math.BigDecimal(d.path("amount").asText())
                    .stripTrailingZeros().toPlainString()));
        } catch (Exception e) {
            return Map.of();
        }
        return docs;
    }

    /** The rows the subscriber holds once it applied what it got, each delivery once by its id, in the order they came. */
    private static Map<String, String> replayed(TestReceiver receiver) {
        Map<String, String> rows = new TreeMap<>();
        Set<String> seen = new HashSet<>();
        for (TestReceiver.Received r : receiver.accepted()) {
            if (r.id().startsWith("msg_test_") || !seen.add(r.id())) {
                continue;
            }
            JsonNode event = r.json();
            JsonNode before = event.path("before");
            if (!before.isMissingNode() && !before.isNull()) {
                rows.remove(before.path("id").asText());
            }
            if (event.path("operation").asText().equals("delete")) {
                rows.remove(event.path("key").path("id").asText());
                continue;
            }
            JsonNode after = event.path("after");
            rows.put(after.path("id").asText(), new java.math.BigDecimal(after.path("amount").asText()).stripTrailingZeros().toPlainString());
        }
        return rows;
    }
}
