package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice verify} against a real OpenSearch node while {@code sluice run} indexes a
 * workload: equal at every try (documents changed after the source's point are judged against the
 * states the changes took them through), then documents deleted, changed and added behind
 * Sluice's back are named by id (exit 1), {@code --repair} puts them right by key through the
 * running pipeline (exit 0), and the pipeline stopped they are named again. The rows hold values whose
 * documents are not their text: numerics with trailing zeros, arrays with NULL, jsonb, timestamps,
 * infinity, empty strings.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class OpenSearchVerifyIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path work;

    @Test
    void verifyFindsTheIndexEqualWhileItStreamsAndNamesWhatWasChangedBehindItsBack(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(OpenSearchVerifyIT.class);
        String prefix = source.name().toLowerCase() + ".";
        String name = "osverify_" + source.name().toLowerCase();
        Pgbench pgbench = Pgbench.locate();
        List<Process> workloads = new ArrayList<>();
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            pgbench.run(source, "-i", "-q", "-s", "1");
            source.execute("CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(10, 2), tags text[], meta jsonb, "
                            + "at timestamptz, n bigint)",
                    "INSERT INTO items SELECT g, CASE WHEN g % 7 = 0 THEN '' ELSE 'item ' || g END, g * 1.10, "
                            + "CASE WHEN g % 5 = 0 THEN ARRAY['a', NULL, 'c'] WHEN g % 5 = 1 THEN '{}' END, "
                            + "jsonb_build_object('g', g, 'nested', jsonb_build_object('x', g % 3)), "
                            + "CASE WHEN g = 1 THEN 'infinity'::timestamptz ELSE timestamptz '2024-02-29 12:00+00' + g * interval '1 minute' END, "
                            + "CASE WHEN g % 11 = 0 THEN NULL ELSE g::bigint * 1000000007 END FROM generate_series(1, 1000) g",
                    // Rows the workload inserts, deletes and moves to other keys; out-of-line values it leaves unsent.
                    "INSERT INTO items (id, name) SELECT g, 'mover ' || g FROM generate_series(2101, 2200) g",
                    "ALTER TABLE items ADD COLUMN big text", "ALTER TABLE items ALTER COLUMN big SET STORAGE EXTERNAL",
                    "UPDATE items SET big = repeat(md5(id::text), 100) WHERE id % 3 = 0",
                    "CREATE TABLE pairs (a text, b int, v text, PRIMARY KEY (a, b))",
                    "INSERT INTO pairs SELECT 'k,' || (g % 10), g, 'v' || g FROM generate_series(1, 200) g");
            Path touch = work.resolve("touch.sql");
            Files.writeString(touch, """
                    \\set id random(1, 500)
                    \\set k random(2001, 2100)
                    UPDATE items SET price = price + 0.10, n = coalesce(n, 0) + 1, meta = meta || jsonb_build_object('t', :id) WHERE id = :id;
                    UPDATE pairs SET v = v || '.' WHERE b = :id % 100 + 101;
                    INSERT INTO items (id, name) VALUES (:k, 'new') ON CONFLICT (id) DO UPDATE SET name = items.name || '+';
                    DELETE FROM items WHERE id = :k - 1;
                    UPDATE items SET id = CASE WHEN id < 3000 THEN id + 1000 ELSE id - 1000 END WHERE id IN (:k + 100, :k + 1100);
                    """);
            String[] pipeline = {"--source", SluiceRuns.url(source), "--target", node.httpUrl(), "--name", name,
                    "--offsets", work.resolve("verify.offsets").toString(), "--exclude", "public.pgbench_history",
                    "--set", "source.status.update.interval.ms=200", "--set", "source.heartbeat.interval.ms=500",
                    "--set", "target.index.name.format=" + prefix + "${schema}.${table}"};
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(new String[] {"run"}, pipeline));
            SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_" + name
                    + "' AND active") == 1, run, "streaming");
            workloads.add(pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "150", "-T", "3600"));
            workloads.add(pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "1", "-R", "100", "-T", "3600", "-f",
                    touch.toString()));

            for (int i = 0; i < 3; i++) {
                Result equal = verify(pipeline);
                assertThat(equal.exit()).as("verify %d while streaming:\n%s%s", i, equal.out(), equal.err()).isZero();
                assertThat(equal.out()).contains("The pipeline is streaming").contains("public.items: EQUAL: ")
                        .contains("public.pairs: EQUAL: 200 rows").contains("public.pgbench_accounts: EQUAL: 100000 rows")
                        .contains("public.pgbench_branches: EQUAL").contains("public.pgbench_tellers: EQUAL").contains("5 tables equal");
            }

            // Behind Sluice's back, on rows the workload leaves alone.
            String items = prefix + "public.items";
            call(node, "DELETE", "/" + items + "/_doc/600?refresh=true", null);
            call(node, "POST", "/" + items + "/_update/601?refresh=true", "{\"doc\": {\"name\": \"tampered\"}}");
            call(node, "PUT", "/" + items + "/_doc/5000?refresh=true", "{\"id\": 5000, \"name\": \"stray\"}");
            call(node, "POST", "/" + prefix + "public.pairs/_update/" + java.net.URLEncoder.encode("k\\,3,3", java.nio.charset.StandardCharsets.UTF_8)
                    + "?refresh=true", "{\"doc\": {\"v\": \"tampered\"}}");
            Result differs = verify(pipeline);
            assertThat(differs.exit()).as(differs.out() + differs.err()).isEqualTo(1);
            assertThat(differs.out()).contains("public.items: DIFFERS: ").contains(" documents in " + items)
                    .contains("1 missing from the index: ids 600").contains("1 in the index, not on the source: ids 5000")
                    .contains("1 with other contents: ids 601").contains("public.pairs: DIFFERS")
                    .contains("1 with other contents: ids k\\,3,3").contains("public.pgbench_accounts: EQUAL");

            // Repaired through the running pipeline, by key: the stray document's key read from its fields.
            Result repaired = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"verify", "--repair"}, pipeline))
                    .get(300, TimeUnit.SECONDS);
            assertThat(repaired.exit()).as(repaired.out() + repaired.err()).isZero();
            assertThat(repaired.out()).contains("Repairing 3 rows of public.items").contains("Repairing 1 row of public.pairs")
                    .contains("Comparing again after the repair:").contains("5 tables equal");
            assertThat(IndexDocuments.get(node, items, "5000")).isNull();
            assertThat(IndexDocuments.get(node, items, "600")).isNotNull();

            call(node, "DELETE", "/" + items + "/_doc/602?refresh=true", null);
            call(node, "POST", "/" + items + "/_update/601?refresh=true", "{\"doc\": {\"name\": \"tampered again\"}}");
            call(node, "PUT", "/" + items + "/_doc/5000?refresh=true", "{\"id\": 5000, \"name\": \"stray\"}");
            for (Process w : workloads) {
                w.destroy();
                w.waitFor(30, TimeUnit.SECONDS);
            }
            // Once more while it streams, so that the pipeline has indexed the workload's last changes when it stops.
            Result caughtUp = verify(pipeline);
            assertThat(caughtUp.exit()).as(caughtUp.out() + caughtUp.err()).isEqualTo(1);
            assertThat(caughtUp.out()).contains("1 missing from the index: ids 602").contains("1 with other contents: ids 601");
            SluiceRuns.stopCleanly(stop, run);
            Result stopped = verify(pipeline);
            assertThat(stopped.exit()).as(stopped.out() + stopped.err()).isEqualTo(1);
            assertThat(stopped.out()).contains("is not streaming").contains("1 missing from the index: ids 602")
                    .contains("1 in the index, not on the source: ids 5000").contains("1 with other contents: ids 601")
                    .contains("public.pgbench_accounts: EQUAL");
            Result refused = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"verify", "--repair"}, pipeline))
                    .get(300, TimeUnit.SECONDS);
            assertThat(refused.exit()).as(refused.out() + refused.err()).isEqualTo(2);
            assertThat(refused.err()).contains("is not streaming: start it (sluice run)");
        } finally {
            workloads.forEach(Process::destroy);
            stop.complete(null);
            TestDatabases.drop(source);
        }
    }

    private static Result verify(String[] pipeline) throws Exception {
        return SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"verify"}, pipeline)).get(300, TimeUnit.SECONDS);
    }

    /** A request to the node that must succeed. */
    private static void call(OpenSearchNode node, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.httpUrl() + path)).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> answer = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(method + " " + path + ": " + answer.body()).isBetween(200, 299);
    }
}
