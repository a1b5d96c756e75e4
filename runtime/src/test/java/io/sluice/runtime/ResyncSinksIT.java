package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
 * {@code sluice resync} into the other sinks, with a row filter: an index whose documents were
 * deleted, changed and added behind Sluice's back ends with one document per row the filter
 * takes, as the source has it; a subscriber gets every such row once more as a {@code read}, and
 * none the filter leaves out.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class ResyncSinksIT {

    private static final String FILTER = "id % 3 = 0";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path work;

    @Test
    void anIndexChangedBehindSluicesBackEndsEqual(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(ResyncSinksIT.class);
        String index = source.name().toLowerCase() + ".public.orders";
        String[] pipeline = {"--source", SluiceRuns.url(source), "--target", node.httpUrl(), "--name", "search_" + source.name().toLowerCase(),
                "--offsets", work.resolve("search.offsets").toString(), "--filter", "public.orders=" + FILTER,
                "--set", "target.index.name.format=" + source.name().toLowerCase() + ".${schema}.${table}"};
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            orders(source);
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(SluiceRuns.with(new String[] {"run"}, pipeline),
                    "--set", "source.resync.chunk.rows=100"));
            SluiceRuns.waitFor(() -> indexed(node, index).equals(rows(source)), run, "the snapshot's documents");
            for (int id = 3; id <= 300; id += 9) {
                send("DELETE", node.httpUrl() + "/" + index + "/_doc/" + id, null);
            }
            for (int id = 6; id <= 600; id += 27) {
                send("PUT", node.httpUrl() + "/" + index + "/_doc/" + id, "{\"id\": " + id + ", \"amount\": -1}");
            }
            // Documents the source does not have: inside the key range (4 is left out by the filter), before and after it.
            for (int id : new int[] {4, -9, 5000}) {
                send("PUT", node.httpUrl() + "/" + index + "/_doc/" + id, "{\"id\": " + id + ", \"amount\": 1}");
            }
            send("POST", node.httpUrl() + "/" + index + "/_refresh", null);
            assertThat(indexed(node, index)).isNotEqualTo(rows(source));
            source.execute("UPDATE orders SET amount = amount + 1 WHERE id % 10 = 0");
            Result resync = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"resync", "public.orders"}, pipeline))
                    .get(180, TimeUnit.SECONDS);
            assertThat(resync.exit()).as(resync.out() + resync.err()).isZero();
            Map<String, String>[] last = new Map[1];
            try {
                SluiceRuns.waitFor(() -> (last[0] = indexed(node, index)).equals(rows(source)), run, "the documents after the re-sync");
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
    void aSubscriberGetsEveryRowTheFilterTakesOnceMoreAsARead() throws Exception {
        TestDatabase source = TestDatabases.create(ResyncSinksIT.class);
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new SecureRandom());
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try (TestReceiver receiver = new TestReceiver(List.of(secret))) {
            orders(source);
            String[] pipeline = {"--source", SluiceRuns.url(source), "--target", "webhook", "--name", "hooks",
                    "--offsets", work.resolve("hooks.offsets").toString(), "--filter", "public.orders=" + FILTER,
                    "--set", "target.delivery.allow.networks=127.0.0.1/32", "--set", "target.subscriptions=orders",
                    "--set", "target.subscription.orders.url=" + receiver.url(), "--set", "target.subscription.orders.secrets=" + secret};
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(SluiceRuns.with(new String[] {"run"}, pipeline),
                    "--set", "source.resync.chunk.rows=100"));
            long rows = source.queryLong("SELECT count(*) FROM orders WHERE " + FILTER);
            SluiceRuns.waitFor(() -> reads(receiver).size() == rows, run, "the snapshot's rows at the subscriber");
            Map<String, Integer> before = reads(receiver);
            assertThat(before.values()).allMatch(n -> n == 1);
            Result resync = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"resync", "public.orders"}, pipeline))
                    .get(180, TimeUnit.SECONDS);
            assertThat(resync.exit()).as(resync.out() + resync.err()).isZero();
            SluiceRuns.waitFor(() -> reads(receiver).values().stream().allMatch(n -> n == 2), run, "every row read once more");
            assertThat(reads(receiver)).as("reads per row: the snapshot's and the re-sync's, of the rows the filter takes only")
                    .hasSize((int) rows).allSatisfy((id, n) -> {
                        assertThat(Integer.parseInt(id) % 3).isZero();
                        assertThat(n).isEqualTo(2);
                    });
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
        }
    }

    private static void orders(TestDatabase source) throws Exception {
        source.execute("CREATE TABLE orders (id int PRIMARY KEY, amount numeric)",
                "INSERT INTO orders SELECT g, g FROM generate_series(1, 1000) g");
    }

    /** Reads the subscriber accepted, per row id, each delivery counted once by its id. */
    private static Map<String, Integer> reads(TestReceiver receiver) {
        Map<String, Integer> reads = new HashMap<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (TestReceiver.Received r : receiver.accepted()) {
            if (r.id().startsWith("msg_test_") || !seen.add(r.id()) || !r.json().path("operation").asText().equals("read")) {
                continue;
            }
            reads.merge(r.json().path("after").path("id").asText(), 1, Integer::sum);
        }
        return reads;
    }

    private static void send(String method, String url, String body) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(method + " " + url + ": " + response.body()).isBetween(200, 299);
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
}
