package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.testing.postgres.PartitionedTables;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code publish.via.partition.root}: a table of twelve monthly partitions, whose partitions'
 * columns are in other orders than the root's, is one table to the records. The snapshot
 * reads every partition (each apart, in parallel) and names every row after the root, in the
 * root's shape; the end of each table's copy is said once, for the root, after its last
 * partition. Changes of any partition come as the root's; a row moved to another partition has
 * a new key (the key holds the partition key): its old key is deleted and its new one inserted,
 * in the one table, not in two. Without the setting
 * every partition is a table of its own, as before.
 */
@ExtendWith(PostgresExtension.class)
class PartitionRootIT {

    @Test
    void twelvePartitionsAreOneTableFromSnapshotToStream(TestDatabase db) throws Exception {
        PartitionedTables.monthly(db, 3);
        Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        PostgresSourceTask task = SourceTasks.start(db, stored, "topic.prefix", "rooted", "snapshot.mode", "initial",
                "snapshot.schema", "none", "snapshot.batch.bytes", "65536", "snapshot.max.threads", "3", "publish.via.partition.root", "true",
                "table.include.list", "public.events");
        try {
            List<SourceRecord> snapshot = pollUntil(task, r -> r.stream().anyMatch(PartitionRootIT::endOfSnapshot));
            List<SourceRecord> rows = snapshot.stream().filter(r -> Envelope.isEnvelope(r.valueSchema())).toList();
            assertThat(rows).hasSize(1200).allSatisfy(r -> assertThat(r.topic()).isEqualTo("rooted.public.events"));
            assertThat(rows.stream().map(r -> ((Struct) r.value()).getStruct("source").getString("table")).distinct())
                    .containsExactly("events");
            Map<Integer, Struct> byId = new HashMap<>();
            for (SourceRecord r : rows) {
                Struct after = ((Struct) r.value()).getStruct("after");
                assertThat(after.schema().fields()).extracting(f -> f.name()).containsExactly("id", "at", "amount", "note");
                assertThat(byId.put(after.getInt32("id"), after)).as("each row once").isNull();
                assertThat(((Struct) r.key()).getInt32("id")).isEqualTo(after.getInt32("id"));
            }
            assertThat(byId.get(7).getString("note")).isEqualTo("n7");
            List<SourceRecord> loaded = snapshot.stream().filter(r -> "last_in_data_collection".equals(snapshotMarker(r))).toList();
            assertThat(loaded).as("one end of copy, for the root").hasSize(1);
            assertThat(((Struct) loaded.get(0).value()).getStruct("source").getString("table")).isEqualTo("events");
            assertThat(snapshot.indexOf(loaded.get(0))).as("after every row").isGreaterThan(snapshot.indexOf(rows.get(rows.size() - 1)));
            commitAll(task, stored, snapshot);

            db.execute("INSERT INTO events (id, at, amount, note) VALUES (5000, '2024-03-05', 1, 'new')",
                    "UPDATE events SET at = '2024-11-20' WHERE id = 7", // from January to November: another partition
                    "UPDATE events SET amount = amount + 1 WHERE id = 8",
                    "DELETE FROM events WHERE id = 9");
            List<SourceRecord> changes = pollUntil(task, r -> r.size() >= 5).stream().filter(r -> Envelope.isEnvelope(r.valueSchema())).toList();
            assertThat(changes).extracting(SourceRecord::topic).containsOnly("rooted.public.events");
            // The key holds the partition key, so a moved row has a new key: the old one deleted, the new one inserted, in one table.
            assertThat(changes).extracting(r -> ((Struct) r.value()).getString("op")).containsExactly("c", "d", "c", "u", "d");
            assertThat(((Struct) changes.get(1).key()).getInt32("id")).isEqualTo(7);
            assertThat(((Struct) changes.get(1).key()).get("at")).isNotEqualTo(((Struct) changes.get(2).key()).get("at"));
            Struct moved = ((Struct) changes.get(2).value()).getStruct("after");
            assertThat(moved.getInt32("id")).isEqualTo(7);
            assertThat(moved.getString("note")).isEqualTo("n7");
        } finally {
            task.stop();
        }
    }

    /**
     * Partitions attached with rows, detached and created while streaming, through the root: the
     * rows a partition brings in come as inserts of the root and those it takes out as deletes,
     * at the place of its ATTACH or DETACH among the changes. Replayed in order, the records are
     * the root's rows exactly, whatever the values (NULL, empty, quotes and backslashes, text that
     * looks like JSON, NaN), the columns' order in the partition, how deep the attached tree is
     * (a partitioned partition, a partition detached from a partition), or how it was detached
     * (CONCURRENTLY). No schema-change event names a partition: to the sinks it is no table.
     */
    @Test
    void partitionsAttachedAndDetachedWhileStreamingMoveTheirRowsInAndOut(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE moves (id int NOT NULL, at date NOT NULL, note text, n numeric, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
                "CREATE TABLE moves_a PARTITION OF moves FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                "INSERT INTO moves SELECT g, DATE '2024-01-01' + g, 'a' || g, g FROM generate_series(1, 50) g");
        Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        PostgresSourceTask task = SourceTasks.start(db, stored, "topic.prefix", "moving", "snapshot.mode", "initial",
                "snapshot.schema", "none", "publish.via.partition.root", "true", "table.include.list", "public.moves");
        try {
            List<SourceRecord> records = new ArrayList<>(pollUntil(task, r -> r.stream().anyMatch(PartitionRootIT::endOfSnapshot)));
            commitAll(task, stored, records);
            db.execute("CREATE TABLE moves_c (n numeric, note text, at date NOT NULL, id int NOT NULL)",
                    "INSERT INTO moves_c VALUES (NULL, NULL, '2025-01-02', 101), ('NaN', '', '2025-01-03', 102), "
                            + "(-0.5, 'it''s \"quoted\" \\ back', '2025-01-04', 103), (1e30, '{\"rows\": [1, null]}', '2025-01-05', 104), "
                            + "(7, 'üñí ✓', '2025-01-06', 105)",
                    "INSERT INTO moves_c SELECT g, 'c' || g, DATE '2025-02-01' + g % 100, 200 + g FROM generate_series(1, 2500) g",
                    "ALTER TABLE moves ATTACH PARTITION moves_c FOR VALUES FROM ('2025-01-01') TO ('2025-07-01')",
                    "CREATE TABLE moves_d (note text, id int NOT NULL, at date NOT NULL, n numeric) PARTITION BY RANGE (at)",
                    "CREATE TABLE moves_d1 PARTITION OF moves_d FOR VALUES FROM ('2025-07-01') TO ('2025-10-01')",
                    "CREATE TABLE moves_d2 (at date NOT NULL, id int NOT NULL, n numeric, note text)",
                    "ALTER TABLE moves_d ATTACH PARTITION moves_d2 FOR VALUES FROM ('2025-10-01') TO ('2026-01-01')",
                    "INSERT INTO moves_d SELECT 'd' || g, 3000 + g, DATE '2025-07-01' + g, g FROM generate_series(1, 150) g",
                    "ALTER TABLE moves ATTACH PARTITION moves_d FOR VALUES FROM ('2025-07-01') TO ('2026-01-01')",
                    "UPDATE moves SET note = 'changed' WHERE id % 7 = 0",
                    "ALTER TABLE moves DETACH PARTITION moves_a",
                    "UPDATE moves_a SET note = 'gone' WHERE id < 10",
                    "ALTER TABLE moves_d DETACH PARTITION moves_d2",
                    "ALTER TABLE moves DETACH PARTITION moves_c CONCURRENTLY",
                    "CREATE TABLE moves_e PARTITION OF moves FOR VALUES FROM ('2026-01-01') TO ('2026-07-01')",
                    "INSERT INTO moves VALUES (9000, '2026-02-02', 'last', NULL)");
            records.addAll(pollUntil(task, r -> r.stream().anyMatch(x -> x.key() instanceof Struct k && k.schema().field("id") != null && Integer.valueOf(9000).equals(k.get("id")))));
            Map<Integer, String> replayed = new java.util.TreeMap<>();
            java.util.Set<Integer> inserted = new java.util.HashSet<>();
            for (SourceRecord r : records) {
                if (!Envelope.isEnvelope(r.valueSchema())) {
                    for (var change : io.sluice.schemas.envelope.SchemaChangeEvents.tableChanges((Struct) r.value(), false)) {
                        assertThat(change.id()).as("a schema change for sinks without the tree names no partition").doesNotContain("moves_");
                    }
                    for (var change : io.sluice.schemas.envelope.SchemaChangeEvents.tableChanges((Struct) r.value())) {
                        if (change.id().contains("moves_") && change.view() != SchemaChangeEvents.PartitionView.ROOTS) {
                            // A partition's own change, for the PostgreSQL sink's tree: its barrier holds the root's topic.
                            assertThat(change.view()).as("%s", change).isEqualTo(SchemaChangeEvents.PartitionView.TREE);
                            assertThat(change.publishedAs()).as("%s", change).isIn("\"public\".\"moves\"", null);
                        }
                    }
                    continue;
                }
                assertThat(r.topic()).isEqualTo("moving.public.moves");
                Struct value = (Struct) r.value();
                Struct after = value.getStruct("after");
                if (value.getString("op").equals("d")) {
                    assertThat(replayed).as("a deleted row was there").containsKey(value.getStruct("before").getInt32("id"));
                    replayed.remove(value.getStruct("before").getInt32("id"));
                } else if (after != null) {
                    replayed.put(after.getInt32("id"), String.valueOf(after.getString("note")));
                    inserted.add(after.getInt32("id"));
                }
            }
            Map<Integer, String> rows = new java.util.TreeMap<>();
            for (String line : db.queryText("SELECT string_agg(id || chr(9) || coalesce(note, 'null'), chr(10) ORDER BY id) FROM moves").split("\n")) {
                String[] cells = line.split("\t", -1);
                rows.put(Integer.parseInt(cells[0]), cells[1]);
            }
            assertThat(replayed).as("the records replayed are the root's rows").isEqualTo(rows);
            assertThat(rows).containsKeys(3001, 3091, 9000).doesNotContainKeys(1, 101, 3092);
            assertThat(inserted).as("rows that came in with a partition that left again").contains(101, 105, 2700, 3092, 3150);
        } finally {
            task.stop();
        }
    }

    @Test
    void withTheSettingOffEachPartitionIsATable(TestDatabase db) throws Exception {
        PartitionedTables.halves(db, "parts");
        Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        PostgresSourceTask task = SourceTasks.start(db, stored, "topic.prefix", "leaves", "snapshot.mode", "initial", "snapshot.schema", "none",
                "table.include.list", "public.parts", "publish.via.partition.root", "false");
        try {
            List<SourceRecord> snapshot = pollUntil(task, r -> r.stream().anyMatch(PartitionRootIT::endOfSnapshot));
            assertThat(snapshot.stream().filter(r -> Envelope.isEnvelope(r.valueSchema())).map(SourceRecord::topic).distinct())
                    .containsExactlyInAnyOrder("leaves.public.parts_a", "leaves.public.parts_b");
            commitAll(task, stored, snapshot);
            db.execute("UPDATE parts SET at = '2024-12-01' WHERE id = 1");
            List<SourceRecord> changes = pollUntil(task, r -> r.size() >= 2).stream().filter(r -> Envelope.isEnvelope(r.valueSchema())).toList();
            assertThat(changes).extracting(r -> r.topic() + " " + ((Struct) r.value()).getString("op"))
                    .containsExactly("leaves.public.parts_a d", "leaves.public.parts_b c");
        } finally {
            task.stop();
        }
    }

    /**
     * A pipeline whose snapshot named partitions as themselves keeps doing so when the setting is
     * turned on later: its rows on the sinks are named so, and switching mid-stream would split a
     * table between two names. The publication is left as it is until a new snapshot.
     */
    @Test
    void aSnapshotTakenPerPartitionKeepsItsNamesWhenTheSettingIsTurnedOn(TestDatabase db) throws Exception {
        PartitionedTables.halves(db, "kept");
        Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        String[] settings = {"topic.prefix", "kept", "snapshot.mode", "initial", "snapshot.schema", "none", "table.include.list", "public.kept"};
        String[] turnedOff = java.util.Arrays.copyOf(settings, settings.length + 2);
        turnedOff[settings.length] = "publish.via.partition.root";
        turnedOff[settings.length + 1] = "false";
        PostgresSourceTask first = SourceTasks.start(db, stored, turnedOff);
        try {
            commitAll(first, stored, pollUntil(first, r -> r.stream().anyMatch(PartitionRootIT::endOfSnapshot)));
        } finally {
            first.stop();
        }
        String[] turnedOn = java.util.Arrays.copyOf(settings, settings.length + 2);
        turnedOn[settings.length] = "publish.via.partition.root";
        turnedOn[settings.length + 1] = "true";
        PostgresSourceTask second = SourceTasks.start(db, stored, turnedOn);
        try {
            db.execute("INSERT INTO kept VALUES (500, '2024-02-02')");
            List<SourceRecord> changes = pollUntil(second, r -> !r.isEmpty()).stream().filter(r -> Envelope.isEnvelope(r.valueSchema())).toList();
            assertThat(changes).extracting(SourceRecord::topic).containsExactly("kept.public.kept_a");
            assertThat(db.queryText("SELECT pubviaroot::text FROM pg_publication WHERE pubname = 'sluice_kept'")).isEqualTo("false");
        } finally {
            second.stop();
        }
    }

    private static boolean endOfSnapshot(SourceRecord r) {
        return Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED));
    }

    private static String snapshotMarker(SourceRecord r) {
        if (!(r.value() instanceof Struct v) || v.schema().field("source") == null) {
            return null;
        }
        Struct source = v.getStruct("source");
        return source.schema().field("snapshot") == null ? null : source.getString("snapshot");
    }

    /** Stores every record's offset, as Connect does once they are written, and commits. */
    private static void commitAll(PostgresSourceTask task, Map<Map<String, String>, Map<String, Object>> stored, List<SourceRecord> records)
            throws InterruptedException {
        for (SourceRecord r : records) {
            @SuppressWarnings("unchecked")
            Map<String, String> partition = (Map<String, String>) r.sourcePartition();
            @SuppressWarnings("unchecked")
            Map<String, Object> offset = (Map<String, Object>) r.sourceOffset();
            stored.put(partition, offset);
            task.commitRecord(r, null);
        }
        task.commit();
    }

    private static List<SourceRecord> pollUntil(PostgresSourceTask task, Predicate<List<SourceRecord>> enough) throws InterruptedException {
        List<SourceRecord> records = new ArrayList<>();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!enough.test(records) && System.nanoTime() < deadline) {
            records.addAll(SourceTasks.poll(task));
        }
        return records;
    }
}
