package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.sink.opensearch.client.ClusterAddress;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A PostgreSQL database into a real OpenSearch node through the source and sink tasks: the
 * snapshot, then streamed inserts, updates (one that changes the key, one that leaves a TOASTed
 * value out), deletes and a TRUNCATE; the indexes end with one document per row, equal field by
 * field, and none for a deleted row. Then a crash before the offsets were stored: the changes come
 * again, OpenSearch refuses them as older than what it has, and the end state is the same.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class SnapshotAndStreamIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theIndexesEndAsTheTablesAreAndAReplayChangesNothing(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(SnapshotAndStreamIT.class);
        String prefix = source.name().toLowerCase() + "-";
        try (ClusterClient client = new ClusterClient(ClusterAddress.parse(node.httpUrl(), null, null, null, null, true, 30_000), 1)) {
            source.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL, note text)",
                    "INSERT INTO accounts SELECT g, g * 10, 'n' || g FROM generate_series(1, 2000) g",
                    "CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(8,2), score float8, born date, at timestamp, "
                            + "seen timestamptz, meta jsonb, ok boolean, tags text[], u uuid, spot point, addr inet, big text)",
                    "ALTER TABLE items ALTER COLUMN big SET STORAGE EXTERNAL",
                    "INSERT INTO items VALUES (1, 'plain', 12.50, 1.5, '2024-05-01', '2024-05-01 10:15:30.123456', "
                            + "'2024-05-01 10:15:30.5+02', '{\"a\": {\"b\": [1, 2]}}', true, ARRAY['x', NULL, 'y'], "
                            + "'5b7e2a3c-0000-4000-8000-000000000001', '(13.4,52.5)', '10.1.2.3', repeat('big', 5000))",
                    "INSERT INTO items VALUES (2, '', 'NaN', 'NaN', 'infinity', '-infinity', 'infinity', '{}', false, '{}', NULL, NULL, "
                            + "'::1', NULL)",
                    "INSERT INTO items VALUES (3, NULL, NULL, '-Infinity', '0044-03-15 BC', '12345-01-01 00:00:00', NULL, NULL, NULL, "
                            + "NULL, NULL, NULL, NULL, NULL)",
                    "CREATE TABLE scratch (id int PRIMARY KEY, v text)", "INSERT INTO scratch VALUES (1, 'a'), (2, 'b')");
            Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            Map<String, String> sinkProps = SourceToIndex.sinkProps(node, "index.name.format", prefix + "${schema}.${table}");
            Map<Map<String, ?>, Map<String, Object>> beforeChanges;
            try (SourceToIndex pipe = new SourceToIndex(stored, SourceToIndex.sourceProps(source, "os"), sinkProps)) {
                pumpUntil(pipe, "accounts", -1, () -> source.execute("INSERT INTO accounts VALUES (-1, 0, 'snapshot done')"));
                pipe.commit();
                beforeChanges = new HashMap<>(stored);

                source.execute("UPDATE accounts SET balance = balance + 1 WHERE id % 3 = 0",
                        "DELETE FROM accounts WHERE id % 7 = 0",
                        "UPDATE accounts SET id = 100000 WHERE id = 1",
                        "BEGIN", "UPDATE accounts SET note = 'twice-1' WHERE id = 2", "UPDATE accounts SET note = 'twice-2' WHERE id = 2", "COMMIT",
                        "UPDATE items SET name = 'renamed' WHERE id = 1", // big stays TOASTed and unchanged
                        "TRUNCATE scratch", "INSERT INTO scratch VALUES (3, 'c')",
                        "INSERT INTO accounts VALUES (-2, 0, 'end')");
                pumpUntil(pipe, "accounts", -2, () -> { });
                pipe.flushWithoutStoring(); // then a crash: the source never confirms these changes
                assertThat(pipe.sink().documentsWritten()).isGreaterThan(2000);
            }
            assertSame(source, client, prefix);
            JsonNode item1 = doc(client, prefix + "public.items", "1");
            assertThat(item1.path("name").asText()).isEqualTo("renamed");
            assertThat(item1.path("big").asText()).hasSize(15_000).startsWith("bigbig");
            JsonNode item2 = doc(client, prefix + "public.items", "2");
            assertThat(item2.path("price").asText()).isEqualTo("NaN");
            assertThat(item2.path("score").asText()).isEqualTo("NaN");
            assertThat(item2.path("born").asText()).isEqualTo("infinity");
            assertThat(item2.path("at").asText()).isEqualTo("-infinity");
            assertThat(item2.path("seen").asText()).isEqualTo("infinity");
            assertThat(item2.path("tags").isArray()).isTrue();
            assertThat(item2.path("tags").size()).isZero();
            JsonNode item3 = doc(client, prefix + "public.items", "3");
            assertThat(item3.path("score").asText()).isEqualTo("-Infinity");
            assertThat(item3.path("born").asText()).isEqualTo("-0043-03-15");
            assertThat(item3.path("at").asText()).isEqualTo("+12345-01-01T00:00:00");
            JsonNode item1Full = doc(client, prefix + "public.items", "1");
            assertThat(item1Full.path("price").asText()).isEqualTo("12.50");
            assertThat(item1Full.path("meta").path("a").path("b").get(1).asInt()).isEqualTo(2);
            assertThat(item1Full.path("tags").get(1).isNull()).isTrue();
            assertThat(item1Full.path("spot").path("lat").asDouble()).isEqualTo(52.5);
            assertThat(item1Full.path("at").asText()).isEqualTo("2024-05-01T10:15:30.123456");
            assertThat(item1Full.path("seen").asText()).isEqualTo("2024-05-01T08:15:30.5Z");
            assertThat(searchCount(client, prefix + "public.items", "{\"query\":{\"range\":{\"price\":{\"gte\":12}}}}"))
                    .as("numeric is searchable as a number").isEqualTo(1);
            assertThat(searchCount(client, prefix + "public.items", "{\"query\":{\"match\":{\"name.text\":\"RENAMED\"}}}"))
                    .as("text is searchable as full text").isEqualTo(1);
            assertThat(count(client, prefix + "public.scratch")).isEqualTo(1);

            // A crash after the snapshot: every change is streamed again over the indexes that have them.
            stored.clear();
            stored.putAll(beforeChanges);
            try (SourceToIndex again = new SourceToIndex(stored, SourceToIndex.sourceProps(source, "os"), sinkProps)) {
                source.execute("INSERT INTO accounts VALUES (-3, 0, 'replayed')");
                pumpUntil(again, "accounts", -3, () -> { });
                again.commit();
                assertThat(again.sink().olderThanStored()).as("replayed writes refused as older").isGreaterThan(100);
            }
            assertSame(source, client, prefix);
        } finally {
            TestDatabases.drop(source);
        }
    }

    /** Every row of accounts is a document with its values, and there is no other document. */
    private static void assertSame(TestDatabase source, ClusterClient client, String prefix) throws Exception {
        String index = prefix + "public.accounts";
        client.send("POST", "/" + index + "/_refresh", Map.of(), null);
        Map<String, String> rows = new HashMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, balance, note FROM accounts")) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getLong(2) + "|" + rs.getString(3));
            }
        }
        Map<String, String> docs = new HashMap<>();
        JsonNode page = JSON.readTree(client.send("POST", "/" + index + "/_search", Map.of("scroll", "1m"),
                "{\"size\":5000,\"query\":{\"match_all\":{}}}".getBytes()).body());
        while (page.path("hits").path("hits").size() > 0) {
            for (JsonNode hit : page.path("hits").path("hits")) {
                JsonNode src = hit.path("_source");
                assertThat(src.path("id").asText()).as("the id field of document " + hit.path("_id").asText()).isEqualTo(hit.path("_id").asText());
                docs.put(hit.path("_id").asText(), src.path("balance").asLong() + "|" + src.path("note").asText());
            }
            String scroll = page.path("_scroll_id").asText();
            page = JSON.readTree(client.send("POST", "/_search/scroll", Map.of(),
                    ("{\"scroll\":\"1m\",\"scroll_id\":\"" + scroll + "\"}").getBytes()).body());
        }
        assertThat(docs).isEqualTo(rows);
    }

    private static JsonNode doc(ClusterClient client, String alias, String id) throws Exception {
        ClusterClient.Answer answer = client.send("GET", "/" + alias + "/_doc/" + id, Map.of(), null);
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        return JSON.readTree(answer.body()).path("_source");
    }

    private static long count(ClusterClient client, String alias) throws Exception {
        client.send("POST", "/" + alias + "/_refresh", Map.of(), null);
        return JSON.readTree(client.send("GET", "/" + alias + "/_count", Map.of(), null).body()).path("count").asLong();
    }

    private static long searchCount(ClusterClient client, String alias, String query) throws Exception {
        client.send("POST", "/" + alias + "/_refresh", Map.of(), null);
        ClusterClient.Answer answer = client.send("POST", "/" + alias + "/_count", Map.of(), query.getBytes());
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        return JSON.readTree(answer.body()).path("count").asLong();
    }

    interface Step {
        void run() throws Exception;
    }

    /** Runs {@code then} once the snapshot has come through, and pumps until the row with id {@code marker} of {@code table} arrives. */
    private static void pumpUntil(SourceToIndex pipe, String table, int marker, Step then) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        boolean stepped = false;
        while (System.nanoTime() < deadline) {
            for (SourceRecord r : pipe.pump()) {
                if (!stepped && r.value() instanceof Struct v && !Envelope.isEnvelope(r.valueSchema()) && "last".equals(snapshot(v))) {
                    then.run();
                    stepped = true;
                }
                if (r.topic().endsWith("." + table) && Envelope.isEnvelope(r.valueSchema())) {
                    Struct after = ((Struct) r.value()).getStruct(Envelope.AFTER);
                    if (after != null && Integer.valueOf(marker).equals(after.get("id"))) {
                        return;
                    }
                }
            }
        }
        throw new AssertionError("Timed out waiting for " + table + " row " + marker);
    }

    private static String snapshot(Struct value) {
        Struct source = value.schema().field(Envelope.SOURCE) == null ? null : value.getStruct(Envelope.SOURCE);
        return source == null ? null : source.getString("snapshot");
    }
}
