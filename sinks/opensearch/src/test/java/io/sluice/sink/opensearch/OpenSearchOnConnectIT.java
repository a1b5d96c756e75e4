package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The OpenSearch sink as a Connect plugin on a cluster of three workers, reading table topics of
 * three partitions with three tasks: the ordering barriers the source writes are agreed on in
 * the sink's barrier index, so the snapshot's start and end and a schema change apply in the
 * source's order across tasks. A column added with a default (every row gains a value) copies the
 * table into the stream with ddl.copy.on=column_change, and the tasks build the index's next
 * version from the copy behind its alias. A worker is stopped while changes stream (rows written
 * into every partition, then a TRUNCATE of their table); its tasks move and the indexes end with
 * exactly the tables' rows, the new column's default included, no row from before the TRUNCATE.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class OpenSearchOnConnectIT {

    private static final int PARTITIONS = 3;

    @Test
    void threeTasksOnThreeWorkersKeepTheIndexesInStepThroughAStoppedWorker(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(OpenSearchOnConnectIT.class);
        String prefix = source.name().toLowerCase() + ".";
        source.execute("CREATE TABLE items (id int PRIMARY KEY, name text, qty int)",
                "INSERT INTO items SELECT g, 'item ' || g, g FROM generate_series(1, 3000) g",
                "CREATE TABLE notes (id int PRIMARY KEY, body text)",
                "INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 200) g",
                "CREATE TABLE docs (id int PRIMARY KEY, title text, body text)", "ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL",
                "INSERT INTO docs SELECT g, 't' || g, repeat('d', 5000) || g FROM generate_series(1, 20) g");
        // Tasks of a stopped worker move after two seconds, not Connect's default five minutes.
        try (ConnectCluster connect = ConnectCluster.start("os", 3, Map.of("scheduled.rebalance.max.delay.ms", "2000"))) {
            Map<String, String> sourceConfig = ConnectorConfigs.sourceWithBarriers(source, "os", "public.*", PARTITIONS);
            sourceConfig.put("slot.name", "os_slot");
            // A column added with a default gives every row a value: the table is copied and its index rebuilt.
            sourceConfig.put("ddl.copy.on", "column_change");
            connect.embedded().configureConnector("os-source", sourceConfig);
            connect.embedded().configureConnector("os-sink", sinkConfig(node, "os", prefix));
            await(() -> IndexDocuments.count(node, prefix + "public.items") == 3000 && IndexDocuments.count(node, prefix + "public.notes") == 200
                            && IndexDocuments.count(node, prefix + "public.docs") == 20,
                    "the snapshot indexed");

            source.execute("UPDATE items SET qty = qty + 1 WHERE id % 7 = 0", "DELETE FROM notes WHERE id % 5 = 0",
                    "ALTER TABLE items ADD COLUMN color text DEFAULT 'red'",
                    "INSERT INTO items SELECT g, 'item ' || g, g, 'blue' FROM generate_series(3001, 3300) g",
                    "UPDATE items SET color = 'green' WHERE id % 11 = 0");
            await(() -> IndexDocuments.get(node, prefix + "public.items", "3300") != null, "changes streamed");

            WorkerHandle stopped = connect.busiestWorker("os-sink");
            String gone = ":" + stopped.url().getPort();
            connect.embedded().removeWorker(stopped);
            // Rows in every partition just before a TRUNCATE (which has no key): its barrier keeps them before it.
            // Key changes: keyed by the new key, the old key's earlier changes in another partition. Those of docs leave the
            // TOASTed body out (it is in the old key's document); the last ones give a moved key back to a row.
            source.execute("UPDATE items SET qty = qty * 2 WHERE id % 19 = 0", "UPDATE items SET id = id + 100000 WHERE id % 19 = 0",
                    "UPDATE docs SET title = title || '+' WHERE id % 2 = 0", "UPDATE docs SET id = id + 1000 WHERE id % 4 = 0",
                    "UPDATE docs SET id = 1005 WHERE id = 1004", "UPDATE docs SET id = 4, title = 'back' WHERE id = 1005");
            source.execute("UPDATE items SET name = name || '.' WHERE id % 13 = 0", "DELETE FROM items WHERE id % 17 = 0",
                    "INSERT INTO notes SELECT g, 'before the truncate ' || g FROM generate_series(1000, 4000) g", "TRUNCATE notes",
                    "INSERT INTO notes SELECT g, 'after ' || g FROM generate_series(5000, 5100) g",
                    "INSERT INTO notes VALUES (-1, 'the end')");
            await(() -> connect.allTasksRunningElsewhere("os-sink", PARTITIONS, gone), "the sink's tasks running on the other workers");
            await(() -> IndexDocuments.get(node, prefix + "public.notes", "-1") != null, "the last change indexed");

            await(() -> same(source, node, prefix + "public.items", "SELECT id, name || '|' || qty || '|' || coalesce(color, '-') FROM items",
                    doc -> doc.path("name").asText() + "|" + doc.path("qty").asText() + "|" + (doc.path("color").isTextual()
                            ? doc.path("color").asText() : "-")), "items equal to the table");
            await(() -> same(source, node, prefix + "public.notes", "SELECT id, body FROM notes", doc -> doc.path("body").asText()),
                    "notes equal to the table");
            await(() -> same(source, node, prefix + "public.docs", "SELECT id, title || '|' || length(body) || '|' || right(body, 4) FROM docs",
                    doc -> doc.path("title").asText() + "|" + doc.path("body").asText().length() + "|"
                            + doc.path("body").asText().substring(Math.max(0, doc.path("body").asText().length() - 4))),
                    "docs equal to the table");
            assertThat(connect.embedded().connectorStatus("os-sink").tasks())
                    .allSatisfy(task -> assertThat(task.state()).as("task %d: %s", task.id(), task.trace()).isEqualTo("RUNNING"));
            connect.embedded().deleteConnector("os-source");
            connect.embedded().deleteConnector("os-sink");
        } finally {
            TestDatabases.drop(source);
        }
    }

    /**
     * A worker stopped while a table's copy is being written into the next index version (a
     * column added with a default: every row gains a value): its tasks move, the copy goes on from
     * what was committed, and the alias moves to a version with every row, each with the new column.
     */
    @Test
    void aWorkerLostWhileACopyIsWrittenLosesNothing(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(OpenSearchOnConnectIT.class);
        String prefix = source.name().toLowerCase() + ".";
        String alias = prefix + "public.big";
        source.execute("CREATE TABLE big (id int PRIMARY KEY, name text)",
                "INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 60000) g");
        try (ConnectCluster connect = ConnectCluster.start("oscopy", 3, Map.of("scheduled.rebalance.max.delay.ms", "2000"))) {
            Map<String, String> sourceConfig = ConnectorConfigs.sourceWithBarriers(source, "oc", "public.*", PARTITIONS);
            sourceConfig.put("slot.name", "oc_slot");
            sourceConfig.put("ddl.copy.on", "column_change");
            connect.embedded().configureConnector("oc-source", sourceConfig);
            Map<String, String> sink = sinkConfig(node, "oc", prefix);
            sink.put("bulk.max.bytes", "32768"); // small requests: the copy takes long enough to stop a worker in it
            connect.embedded().configureConnector("oc-sink", sink);
            await(() -> IndexDocuments.count(node, alias) == 60000, "the snapshot indexed");

            source.execute("ALTER TABLE big ADD COLUMN color text DEFAULT 'red'");
            await(() -> IndexDocuments.count(node, alias + "_v2") > 0, "the copy being written into the next version");
            assertThat(IndexDocuments.count(node, alias + "_v2")).as("the copy is not whole yet").isLessThan(60000);
            WorkerHandle stopped = connect.busiestWorker("oc-sink");
            String gone = ":" + stopped.url().getPort();
            connect.embedded().removeWorker(stopped);
            source.execute("UPDATE big SET name = name || '!' WHERE id % 100 = 0", "INSERT INTO big VALUES (-1, 'the end', 'blue')");
            await(() -> connect.allTasksRunningElsewhere("oc-sink", PARTITIONS, gone), "the sink's tasks running on the other workers");
            await(() -> same(source, node, alias, "SELECT id, name || '|' || color FROM big",
                    doc -> doc.path("name").asText() + "|" + doc.path("color").asText()), "big equal to the table");
            // The alias moves, then the old version is dropped, in two requests: the check above can fall between them.
            await(() -> IndexDocuments.count(node, alias + "_v1") == -1, "the old version dropped");
            assertThat(connect.embedded().connectorStatus("oc-sink").tasks())
                    .allSatisfy(task -> assertThat(task.state()).as("task %d: %s", task.id(), task.trace()).isEqualTo("RUNNING"));
            connect.embedded().deleteConnector("oc-source");
            connect.embedded().deleteConnector("oc-sink");
        } finally {
            TestDatabases.drop(source);
        }
    }

    private static Map<String, String> sinkConfig(OpenSearchNode node, String topicPrefix, String indexPrefix) {
        Map<String, String> sink = new HashMap<>();
        sink.put("connector.class", OpenSearchSinkConnector.class.getName());
        sink.put("tasks.max", String.valueOf(PARTITIONS));
        sink.put("topics.regex", topicPrefix + "\\..*");
        sink.put("consumer.override.metadata.max.age.ms", "1000");
        sink.put("connection.url", node.httpUrl());
        sink.put("index.name.format", indexPrefix + "${schema}.${table}");
        sink.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        sink.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        sink.put("bulk.max.delay.ms", "10");
        return sink;
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!condition.holds()) {
            assertThat(System.nanoTime()).as("waiting for " + what + " (" + LAST_DIFFERENCE.get() + ")").isLessThan(deadline);
            Thread.sleep(250);
        }
    }

    private static boolean same(TestDatabase source, OpenSearchNode node, String index, String query,
                                java.util.function.Function<com.fasterxml.jackson.databind.JsonNode, String> field) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getString(2));
            }
        }
        Map<String, String> docs = new HashMap<>();
        IndexDocuments.all(node, index).forEach((id, doc) -> docs.put(id, field.apply(doc)));
        if (!docs.equals(rows)) {
            Map<String, String> differ = new java.util.TreeMap<>();
            rows.forEach((id, row) -> {
                if (!row.equals(docs.get(id)) && differ.size() < 5) {
                    differ.put(id, row + " / " + docs.get(id));
                }
            });
            docs.keySet().stream().filter(id -> !rows.containsKey(id)).limit(5).forEach(id -> differ.put(id, "no row / " + docs.get(id)));
            LAST_DIFFERENCE.set(index + ": " + rows.size() + " rows, " + docs.size() + " documents; row / document: " + differ);
            return false;
        }
        return true;
    }

    /** What the last failed comparison found, for the timeout's message. */
    private static final ThreadLocal<String> LAST_DIFFERENCE = new ThreadLocal<>();
}
