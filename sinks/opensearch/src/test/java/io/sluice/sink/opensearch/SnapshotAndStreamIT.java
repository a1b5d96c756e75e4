package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.sink.opensearch.client.ClusterAddress;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.state.SnapshotDocuments;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A PostgreSQL database into a real OpenSearch node through the source and sink tasks: the
 * snapshot, then streamed inserts, updates (one that changes the key, one that leaves a TOASTed
 * value out), deletes and a TRUNCATE; the indexes end with one document per row, equal field by
 * field, and none for a deleted row. Then a crash before the offsets were stored: the changes come
 * again, OpenSearch refuses them as older than what it has, and the end state is the same. The
 * state index records each snapshot; another pipeline's snapshot over the same indexes is refused
 * by default and, with table.exists=truncate, makes them again with exactly its rows.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class SnapshotAndStreamIT {

    @Test
    void theIndexesEndAsTheTablesAreAndAReplayChangesNothing(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(SnapshotAndStreamIT.class);
        String prefix = source.name().toLowerCase() + "-";
        try (ClusterClient client = new ClusterClient(ClusterAddress.parse(node.httpUrl(), null, null, null, null, true, 30_000), 1, 30_000)) {
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
            Map<String, String> sinkProps = Pipes.sinkProps(node, "index.name.format", prefix + "${schema}.${table}",
                    "mapping.overrides", "{\"*.accounts\": {\"note\": {\"type\": \"text\"}}}",
                    "index.settings", "{\"number_of_replicas\": 0, \"refresh_interval\": \"2s\"}");
            Map<Map<String, ?>, Map<String, Object>> beforeChanges;
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "os"), sinkProps)) {
                Pipes.pumpUntil(pipe, "accounts", -1, () -> source.execute("INSERT INTO accounts VALUES (-1, 0, 'snapshot done')"));
                pipe.commit();
                SnapshotDocuments.Snapshot record = new SnapshotDocuments(client, "sluice_state").read("os").orElseThrow();
                assertThat(record.finished()).as("the state index records the snapshot as finished").isTrue();
                assertThat(record.aliases()).containsExactlyInAnyOrder(prefix + "public.accounts", prefix + "public.items",
                        prefix + "public.scratch");
                assertThat(record.sourceTables()).containsExactlyInAnyOrder("public.accounts", "public.items", "public.scratch");
                JsonNode mapping = ClusterClient.json(client.send("GET", "/" + prefix + "public.accounts/_mapping", Map.of(), null));
                assertThat(mapping.elements().next().at("/mappings/properties/note/type").asText()).as("the override's mapping").isEqualTo("text");
                assertThat(mapping.elements().next().at("/mappings/properties/balance/type").asText()).isEqualTo("long");
                JsonNode settings = ClusterClient.json(client.send("GET", "/" + prefix + "public.accounts/_settings", Map.of(), null));
                assertThat(settings.elements().next().at("/settings/index/refresh_interval").asText()).isEqualTo("2s");
                beforeChanges = new HashMap<>(stored);

                source.execute("UPDATE accounts SET balance = balance + 1 WHERE id % 3 = 0",
                        "DELETE FROM accounts WHERE id % 7 = 0",
                        "UPDATE accounts SET id = 100000 WHERE id = 1",
                        "BEGIN", "UPDATE accounts SET note = 'twice-1' WHERE id = 2", "UPDATE accounts SET note = 'twice-2' WHERE id = 2", "COMMIT",
                        "UPDATE items SET name = 'renamed' WHERE id = 1", // big stays TOASTed and unchanged
                        "UPDATE items SET id = 10 WHERE id = 1", // a new key, big still unchanged: taken from the old document
                        "TRUNCATE scratch", "INSERT INTO scratch VALUES (3, 'c')",
                        "INSERT INTO accounts VALUES (-2, 0, 'end')");
                Pipes.pumpUntil(pipe, "accounts", -2, () -> { });
                pipe.flushWithoutStoring(); // then a crash: the source never confirms these changes
                assertThat(pipe.sink().documentsWritten()).isGreaterThan(2000);
            }
            AccountsIndex.assertSame(source, node, prefix + "public.accounts");
            assertThat(IndexDocuments.get(node, prefix + "public.items", "1")).as("the old key's document").isNull();
            JsonNode item1 = doc(node, prefix + "public.items", "10");
            assertThat(item1.path("id").asInt()).isEqualTo(10);
            assertThat(item1.path("name").asText()).isEqualTo("renamed");
            assertThat(item1.path("big").asText()).hasSize(15_000).startsWith("bigbig");
            JsonNode item2 = doc(node, prefix + "public.items", "2");
            assertThat(item2.path("price").asText()).isEqualTo("NaN");
            assertThat(item2.path("score").asText()).isEqualTo("NaN");
            assertThat(item2.path("born").asText()).isEqualTo("infinity");
            assertThat(item2.path("at").asText()).isEqualTo("-infinity");
            assertThat(item2.path("seen").asText()).isEqualTo("infinity");
            assertThat(item2.path("tags").isArray()).isTrue();
            assertThat(item2.path("tags").size()).isZero();
            JsonNode item3 = doc(node, prefix + "public.items", "3");
            assertThat(item3.path("score").asText()).isEqualTo("-Infinity");
            assertThat(item3.path("born").asText()).isEqualTo("-0043-03-15");
            assertThat(item3.path("at").asText()).isEqualTo("+12345-01-01T00:00:00");
            JsonNode item1Full = doc(node, prefix + "public.items", "10");
            assertThat(item1Full.path("price").asText()).isEqualTo("12.50");
            assertThat(item1Full.path("meta").path("a").path("b").get(1).asInt()).isEqualTo(2);
            assertThat(item1Full.path("tags").get(1).isNull()).isTrue();
            assertThat(item1Full.path("spot").path("lat").asDouble()).isEqualTo(52.5);
            assertThat(item1Full.path("at").asText()).isEqualTo("2024-05-01T10:15:30.123456");
            assertThat(item1Full.path("seen").asText()).isEqualTo("2024-05-01T08:15:30.5Z");
            assertThat(IndexDocuments.count(node, prefix + "public.items", "{\"query\":{\"range\":{\"price\":{\"gte\":12}}}}"))
                    .as("numeric is searchable as a number").isEqualTo(1);
            assertThat(IndexDocuments.count(node, prefix + "public.items", "{\"query\":{\"match\":{\"name.text\":\"RENAMED\"}}}"))
                    .as("text is searchable as full text").isEqualTo(1);
            assertThat(IndexDocuments.count(node, prefix + "public.scratch")).isEqualTo(1);

            // A crash after the snapshot: every change is streamed again over the indexes that have them.
            stored.clear();
            stored.putAll(beforeChanges);
            try (SourceToSink<OpenSearchSinkTask> again = Pipes.open(stored, Pipes.sourceProps(source, "os"), sinkProps)) {
                source.execute("INSERT INTO accounts VALUES (-3, 0, 'replayed')");
                Pipes.pumpUntil(again, "accounts", -3, () -> { });
                again.commit();
                assertThat(again.sink().olderThanStored()).as("replayed writes refused as older").isGreaterThan(100);
            }
            AccountsIndex.assertSame(source, node, prefix + "public.accounts");
            assertThat(IndexDocuments.get(node, prefix + "public.items", "1")).as("the old key's document, after the replay").isNull();
            assertThat(doc(node, prefix + "public.items", "10").path("big").asText()).as("after the replay").hasSize(15_000);

            // Another pipeline's snapshot over the same indexes: refused by default, naming them and the choices.
            try (SourceToSink<OpenSearchSinkTask> other = Pipes.open(new ConcurrentHashMap<>(), Pipes.sourceProps(source, "os2"), sinkProps)) {
                assertThatThrownBy(() -> {
                    for (int i = 0; i < 200; i++) {
                        other.pump();
                    }
                }).hasMessageContaining("exist already").hasMessageContaining(prefix + "public.accounts")
                        .hasMessageContaining("table.exists=truncate");
            }
            // With table.exists=truncate they are made again and hold exactly the new snapshot's rows.
            source.execute("DELETE FROM accounts WHERE id < 0");
            Map<String, String> truncating = new HashMap<>(sinkProps);
            truncating.put("table.exists", "truncate");
            try (SourceToSink<OpenSearchSinkTask> third = Pipes.open(new ConcurrentHashMap<>(), Pipes.sourceProps(source, "os3"), truncating)) {
                Pipes.pumpUntil(third, "accounts", -4, () -> source.execute("INSERT INTO accounts VALUES (-4, 0, 'third')"));
                third.commit();
            }
            AccountsIndex.assertSame(source, node, prefix + "public.accounts");
            assertThat(new SnapshotDocuments(client, "sluice_state").read("os3").orElseThrow().finished()).isTrue();
        } finally {
            TestDatabases.drop(source);
        }
    }

    private static JsonNode doc(OpenSearchNode node, String alias, String id) throws Exception {
        JsonNode doc = IndexDocuments.get(node, alias, id);
        assertThat(doc).as("document " + id + " of " + alias).isNotNull();
        return doc;
    }
}
