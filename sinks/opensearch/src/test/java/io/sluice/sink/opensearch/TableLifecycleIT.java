package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
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
 * Tables coming and going while the stream runs, and what their indexes become: a renamed table's
 * index moves to the new name with every document; a dropped table's index is dropped, emptied or
 * kept as {@code table.drop.action} says; a table created under the name of an earlier table's
 * index gets a fresh index; a table that joins the selection with rows ({@code CREATE TABLE … AS},
 * moved into the selected schema) is copied, and where its name has an earlier table's index with
 * newer versions than the copy's, the copy replaces that index whole. Index settings per table
 * apply to the indexes the sink creates.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class TableLifecycleIT {

    @Test
    void indexesFollowTablesRenamedDroppedAndCreated(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(TableLifecycleIT.class);
        String prefix = source.name().toLowerCase() + "-";
        try {
            source.execute("CREATE SCHEMA other",
                    "CREATE TABLE marker (id int PRIMARY KEY)",
                    "CREATE TABLE a (id int PRIMARY KEY, v text)", "INSERT INTO a SELECT g, 'a' || g FROM generate_series(1, 300) g",
                    "CREATE TABLE b (id int PRIMARY KEY, v text)", "INSERT INTO b SELECT g, 'b' || g FROM generate_series(1, 50) g",
                    "CREATE TABLE c (id int PRIMARY KEY, v text)", "INSERT INTO c SELECT g, 'c' || g FROM generate_series(1, 50) g",
                    "CREATE TABLE d (id int PRIMARY KEY, v text)", "INSERT INTO d SELECT g, 'd' || g FROM generate_series(1, 50) g",
                    "CREATE TABLE y (id int PRIMARY KEY, v text)", "INSERT INTO y SELECT g, 'old y' || g FROM generate_series(1, 80) g",
                    "CREATE TABLE other.x (id int PRIMARY KEY, v text)", "INSERT INTO other.x SELECT g, 'x' || g FROM generate_series(1, 40) g",
                    "CREATE TABLE other.y (id int PRIMARY KEY, v text)", "INSERT INTO other.y SELECT g, 'new y' || g FROM generate_series(1, 30) g");
            Map<String, String> sourceProps = Pipes.sourceProps(source, "life");
            sourceProps.put("table.include.list", "public.*");
            sourceProps.put("ddl.copy.on", "column_change");
            Map<Map<String, ?>, Map<String, Object>> offsets = new ConcurrentHashMap<>();
            Map<String, String> sinkProps = Pipes.sinkProps(node, "index.name.format", prefix + "${schema}.${table}",
                    "index.settings", "{\"number_of_replicas\": 0, \"refresh_interval\": \"1s\"}",
                    "index.settings.tables", "{\"public.a*\": {\"refresh_interval\": \"7s\"}}");
            String a = prefix + "public.a";
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(offsets, sourceProps, sinkProps)) {
                Pipes.pumpUntil(pipe, "marker", 1, () -> source.execute("INSERT INTO marker VALUES (1)"));
                pipe.commit();
                assertThat(setting(node, a, "refresh_interval")).as("the per-table setting over the common one").isEqualTo("7s");
                assertThat(setting(node, a, "number_of_replicas")).isEqualTo("0");
                assertThat(setting(node, prefix + "public.b", "refresh_interval")).isEqualTo("1s");

                source.execute("UPDATE a SET v = v || '!' WHERE id % 10 = 0",
                        "ALTER TABLE a RENAME TO a2", "UPDATE a2 SET v = 'renamed' WHERE id = 5", "INSERT INTO a2 VALUES (301, 'new')",
                        "DROP TABLE b",
                        "CREATE TABLE e AS SELECT id, v || ' as' AS v FROM c WHERE id <= 20", "ALTER TABLE e ADD PRIMARY KEY (id)",
                        "ALTER TABLE other.x SET SCHEMA public",
                        "INSERT INTO marker VALUES (2)");
                Pipes.pumpUntil(pipe, "marker", 2, () -> { });
                pipe.commit();
            }
            assertThat(IndexDocuments.count(node, a)).as("the old name's index is gone").isEqualTo(-1);
            assertSame(source, node, "a2", prefix + "public.a2");
            assertThat(setting(node, prefix + "public.a2", "refresh_interval")).as("a clone keeps its settings").isEqualTo("7s");
            assertThat(IndexDocuments.count(node, prefix + "public.b")).as("drop_index: the dropped table's index is gone").isEqualTo(-1);
            assertSame(source, node, "e", prefix + "public.e");
            assertSame(source, node, "x", prefix + "public.x");

            // delete_documents, then ignore; a table created again under a kept index's name starts it afresh.
            Map<String, String> deleting = new HashMap<>(sinkProps);
            deleting.put("table.drop.action", "delete_documents");
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(offsets, sourceProps, deleting)) {
                source.execute("DROP TABLE c", "INSERT INTO marker VALUES (3)");
                Pipes.pumpUntil(pipe, "marker", 3, () -> { });
                pipe.commit();
            }
            assertThat(IndexDocuments.count(node, prefix + "public.c")).as("delete_documents: the index stays, empty").isZero();
            Map<String, String> ignoring = new HashMap<>(sinkProps);
            ignoring.put("table.drop.action", "ignore");
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(offsets, sourceProps, ignoring)) {
                source.execute("DROP TABLE d", "UPDATE y SET v = v || ' later' WHERE id <= 10", "DROP TABLE y",
                        "INSERT INTO marker VALUES (4)");
                Pipes.pumpUntil(pipe, "marker", 4, () -> { });
                pipe.commit();
                assertThat(IndexDocuments.count(node, prefix + "public.d")).as("ignore: the documents stay").isEqualTo(50);
                assertThat(IndexDocuments.count(node, prefix + "public.y")).isEqualTo(80);

                source.execute("CREATE TABLE d (id int PRIMARY KEY, v text)", "INSERT INTO d VALUES (1000, 'the new d')",
                        // Its copy has older versions than the kept documents of the earlier y (updated above): it must replace them.
                        "ALTER TABLE other.y SET SCHEMA public", "UPDATE y SET v = 'changed after the move' WHERE id = 3",
                        "INSERT INTO marker VALUES (5)");
                Pipes.pumpUntil(pipe, "marker", 5, () -> { });
                pipe.commit();
            }
            assertSame(source, node, "d", prefix + "public.d");
            assertSame(source, node, "y", prefix + "public.y");
        } finally {
            TestDatabases.drop(source);
        }
    }

    /** Every row of the table is a document with its id and v, and there is no other document. */
    private static void assertSame(TestDatabase source, OpenSearchNode node, String table, String alias) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v FROM " + table)) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getString(2));
            }
        }
        Map<String, String> docs = new HashMap<>();
        IndexDocuments.all(node, alias).forEach((id, doc) -> docs.put(id, doc.path("v").asText()));
        assertThat(docs).as("index %s against table %s", alias, table).isEqualTo(rows);
    }

    private static String setting(OpenSearchNode node, String alias, String name) throws Exception {
        java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(node.httpUrl() + "/" + alias + "/_settings")).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        JsonNode settings = new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer.body());
        return settings.elements().next().path("settings").path("index").path(name).asText();
    }
}
