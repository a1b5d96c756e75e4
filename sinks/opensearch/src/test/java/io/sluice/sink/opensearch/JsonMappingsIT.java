package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ConcurrentHashMap;

import io.sluice.sink.opensearch.client.ClusterAddress;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * json and jsonb columns indexed as their JSON text ({@code mapping.json=keyword} or
 * {@code text}): objects, arrays and scalars alike (which an object mapping refuses), the text as
 * PostgreSQL prints it; {@code text} finds a row by a word inside, {@code keyword} by the whole text.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class JsonMappingsIT {

    @ParameterizedTest(name = "mapping.json={0}")
    @ValueSource(strings = {"keyword", "text"})
    void jsonAsItsTextTakesAnyJsonValue(String mapping, OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(JsonMappingsIT.class);
        String prefix = source.name().toLowerCase() + "-";
        String index = prefix + "public.j";
        try (ClusterClient client = new ClusterClient(ClusterAddress.parse(node.httpUrl(), null, null, null, null, true, 30_000), 1, 30_000)) {
            source.execute("CREATE TABLE j (id int PRIMARY KEY, doc jsonb, raw json)",
                    "INSERT INTO j VALUES (1, '{\"color\": \"red\", \"size\": 3}', '{\"b\":1,  \"a\":2}'), (2, '[1, \"two\", null]', '\"x\"'), "
                            + "(3, '\"just text\"', 'null'), (4, NULL, NULL)");
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(new ConcurrentHashMap<>(), Pipes.sourceProps(source, "json" + mapping),
                    Pipes.sinkProps(node, "index.name.format", prefix + "${schema}.${table}", "mapping.json", mapping))) {
                Pipes.pumpUntil(pipe, "j", 5, () -> source.execute("INSERT INTO j VALUES (5, '{\"after\": \"snapshot\"}', '{}')"));
                pipe.commit();
            }
            var properties = ClusterClient.json(client.send("GET", "/" + index + "/_mapping", java.util.Map.of(), null))
                    .elements().next().at("/mappings/properties");
            assertThat(properties.at("/doc/type").asText()).isEqualTo(mapping);
            assertThat(properties.at("/raw/type").asText()).isEqualTo(mapping);
            assertThat(IndexDocuments.get(node, index, "1").path("doc").asText()).isEqualTo("{\"size\": 3, \"color\": \"red\"}");
            assertThat(IndexDocuments.get(node, index, "1").path("raw").asText()).as("json keeps its text").isEqualTo("{\"b\":1,  \"a\":2}");
            assertThat(IndexDocuments.get(node, index, "2").path("doc").asText()).isEqualTo("[1, \"two\", null]");
            assertThat(IndexDocuments.get(node, index, "3").path("doc").asText()).isEqualTo("\"just text\"");
            assertThat(IndexDocuments.get(node, index, "3").path("raw").asText()).isEqualTo("null");
            assertThat(IndexDocuments.get(node, index, "4").path("doc").isNull()).isTrue();
            assertThat(IndexDocuments.get(node, index, "5").path("doc").asText()).isEqualTo("{\"after\": \"snapshot\"}");
            if (mapping.equals("text")) {
                assertThat(IndexDocuments.ids(node, index, "{\"query\":{\"match\":{\"doc\":\"red\"}}}")).containsExactly("1");
                assertThat(IndexDocuments.ids(node, index, "{\"query\":{\"match\":{\"doc\":\"two\"}}}")).containsExactly("2");
            } else {
                assertThat(IndexDocuments.ids(node, index, "{\"query\":{\"term\":{\"doc\":\"[1, \\\"two\\\", null]\"}}}")).containsExactly("2");
                assertThat(IndexDocuments.ids(node, index, "{\"query\":{\"term\":{\"doc\":\"red\"}}}")).isEmpty();
            }
        } finally {
            TestDatabases.drop(source);
        }
    }
}
