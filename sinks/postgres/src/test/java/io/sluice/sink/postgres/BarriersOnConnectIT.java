package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;

/**
 * Sluice's source and sink on a Kafka Connect worker, the table topics with three partitions and
 * three sink tasks: schema events travel on their own topic, rows on the tables' topics, and the
 * ordering barriers the source writes let the sink apply them in the source's order — the
 * snapshot's schema before its rows, each table's keys after its rows, streamed schema changes
 * between the rows before and after them, a new table's topic from its first row.
 */
@ExtendWith(PostgresExtension.class)
class BarriersOnConnectIT {

    private static final int PARTITIONS = 3;

    @Test
    void snapshotAndSchemaChangesApplyInTheSourceOrderAcrossPartitions() throws Exception {
        TestDatabase source = TestDatabases.create(BarriersOnConnectIT.class);
        TestDatabase target = TestDatabases.create(BarriersOnConnectIT.class);
        source.execute("CREATE TABLE items (id int PRIMARY KEY, name text, qty int)",
                "INSERT INTO items SELECT g, 'item ' || g, g FROM generate_series(1, 3000) g",
                "CREATE TABLE notes (id int PRIMARY KEY, body text)",
                "INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 200) g",
                "CREATE INDEX notes_body ON notes (body)",
                "CREATE TABLE log (at int, line text)",
                "INSERT INTO log SELECT g, 'line ' || g FROM generate_series(1, 500) g",
                "CREATE TABLE docs (id int PRIMARY KEY, title text, body text)", "ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL",
                "INSERT INTO docs SELECT g, 't' || g, repeat('d', 5000) || g FROM generate_series(1, 20) g");
        try (ConnectCluster connect = ConnectCluster.start("barriers", 1)) {
            connect.embedded().configureConnector("barriers-source", sourceConfig(source));
            connect.embedded().configureConnector("barriers-sink", ConnectorConfigs.sinkOfPrefix(target, "bar", PARTITIONS));
            awaitEqual(source, target, "items", "notes", "log", "docs");
            // The rows are in before their table's keys and indexes are built: those come after them.
            target.awaitSameAs(source, indexes("notes"), Duration.ofSeconds(60), "post-data after the rows");

            source.execute("INSERT INTO items SELECT g, 'item ' || g, g FROM generate_series(3001, 3500) g",
                    "UPDATE items SET qty = qty + 1 WHERE id % 7 = 0",
                    "ALTER TABLE items ADD COLUMN color text DEFAULT 'red'",
                    "INSERT INTO items SELECT g, 'item ' || g, g, 'blue' FROM generate_series(3501, 3800) g",
                    "UPDATE items SET color = 'green' WHERE id % 11 = 0",
                    "BEGIN; UPDATE notes SET body = body || '!' WHERE id <= 50; ALTER TABLE notes RENAME COLUMN body TO text; "
                            + "UPDATE notes SET text = text || '?' WHERE id > 150; COMMIT",
                    "DELETE FROM notes WHERE id % 5 = 0",
                    "BEGIN; CREATE TABLE fresh (k text PRIMARY KEY, v int NOT NULL DEFAULT 0); INSERT INTO fresh VALUES ('a', 1); COMMIT",
                    "INSERT INTO fresh SELECT 'k' || g, g FROM generate_series(1, 300) g",
                    "ALTER TABLE items DROP COLUMN qty",
                    "UPDATE items SET name = name || '.' WHERE id % 13 = 0",
                    // Key changes: keyed by the new key, the old key's earlier changes in another partition. Those of docs leave
                    // the TOASTed body out (only the row under the old key has it); the last ones give a moved key back to a row.
                    "UPDATE items SET name = name || '*' WHERE id % 19 = 0", "UPDATE items SET id = id + 100000 WHERE id % 19 = 0",
                    "UPDATE docs SET title = title || '+' WHERE id % 2 = 0", "UPDATE docs SET id = id + 1000 WHERE id % 4 = 0",
                    "UPDATE docs SET id = 1005 WHERE id = 1004", "UPDATE docs SET id = 4, title = 'back' WHERE id = 1005",
                    // Rows in every partition just before a TRUNCATE (which has no key): its barrier keeps them before it.
                    "INSERT INTO fresh SELECT 'x' || g, g FROM generate_series(1, 3000) g", "TRUNCATE fresh",
                    "INSERT INTO fresh SELECT 'y' || g, g FROM generate_series(1, 100) g",
                    "INSERT INTO log VALUES (-1, 'end')");
            awaitEqual(source, target, "items", "notes", "log", "fresh", "docs");
            for (String table : List.of("items", "notes", "fresh")) {
                target.awaitSameAs(source, columns(table), Duration.ofSeconds(60), "columns of " + table);
            }
            var status = connect.embedded().connectorStatus("barriers-sink");
            assertThat(status.tasks()).as("sink tasks").hasSize(PARTITIONS)
                    .allSatisfy(task -> assertThat(task.state()).as("task %d: %s", task.id(), task.trace()).isEqualTo("RUNNING"));
            connect.embedded().deleteConnector("barriers-source");
            connect.embedded().deleteConnector("barriers-sink");
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * Barriers must reach every partition: validation reports a partition count that differs from
     * the one topics are created with, and a topic with more partitions than the barriers cover
     * stops the source with the reason.
     */
    @Test
    void aTopicWithMorePartitionsThanTheBarriersStopsTheSource() throws Exception {
        TestDatabase source = TestDatabases.create(BarriersOnConnectIT.class);
        source.execute("CREATE TABLE items (id int PRIMARY KEY, name text)",
                "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 200) g");
        try (ConnectCluster connect = ConnectCluster.start("few-barriers", 1)) {
            Map<String, String> config = ConnectorConfigs.source(source, "few", "public.items");
            config.put("barriers.topic.partitions", "2");
            config.put("topic.creation.default.partitions", "3");
            var validated = connect.embedded().validateConnectorConfig("PostgresSourceConnector", config);
            assertThat(validated.values().stream().filter(v -> v.configValue().name().equals("barriers.topic.partitions"))
                    .flatMap(v -> v.configValue().errors().stream())).anySatisfy(e -> assertThat(e).contains("creates them with 3"));

            // Topics made beforehand with more partitions than the barriers cover: validation cannot see it, the source does.
            config.remove("topic.creation.default.partitions");
            config.remove("topic.creation.default.replication.factor");
            config.put("slot.name", "few_slot");
            connect.embedded().kafka().createTopic("few.public.items", 3);
            connect.embedded().kafka().createTopic("few.schema-changes", 1);
            connect.embedded().configureConnector("few-source", config);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            String trace = null;
            while (trace == null) {
                assertThat(System.nanoTime()).as("the source stopped within 120 s").isLessThan(deadline);
                try {
                    var tasks = connect.embedded().connectorStatus("few-source").tasks();
                    if (!tasks.isEmpty() && tasks.get(0).state().equals("FAILED")) {
                        trace = tasks.get(0).trace();
                    }
                } catch (org.apache.kafka.connect.runtime.rest.errors.ConnectRestException e) {
                    // no status yet: the connector is starting
                }
                Thread.sleep(250);
            }
            assertThat(trace).contains("few.public.items").contains("barriers.topic.partitions=2");
            connect.embedded().deleteConnector("few-source");
        } finally {
            TestDatabases.drop(source);
        }
    }

    private static void awaitEqual(TestDatabase source, TestDatabase target, String... tables) throws Exception {
        for (String table : tables) {
            target.awaitChecksumOf(source, "public." + table, Duration.ofSeconds(180));
        }
    }

    private static Map<String, String> sourceConfig(TestDatabase source) {
        Map<String, String> config = ConnectorConfigs.sourceWithBarriers(source, "bar", "public.*", PARTITIONS);
        config.put("name", "barriers-source");
        config.put("slot.name", "barriers_slot");
        return config;
    }

    private static String columns(String table) {
        return "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute "
                + "WHERE attrelid = 'public." + table + "'::regclass AND attnum > 0 AND NOT attisdropped";
    }

    private static String indexes(String table) {
        return "SELECT string_agg(indexname, ', ' ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'public' AND tablename = '"
                + table + "'";
    }
}
