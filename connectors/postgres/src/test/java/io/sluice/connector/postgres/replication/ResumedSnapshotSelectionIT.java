package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A snapshot interrupted, then resumed with a wider selection: the table that joined was never
 * defined on the targets by the snapshot's schema, so the rest of the snapshot must not send its
 * rows, and none of its streamed changes may come before its definition. It is copied as a table
 * that joins a streaming pipeline is: announced (a DDL event), then re-synced.
 */
@ExtendWith(PostgresExtension.class)
class ResumedSnapshotSelectionIT {

    @Test
    void aTableThatJoinedWhileTheSnapshotWasInterruptedComesAfterItsDefinition() throws Exception {
        TestDatabase db = TestDatabases.create(ResumedSnapshotSelectionIT.class);
        try {
            db.execute("CREATE TABLE first (id bigint PRIMARY KEY, v text)",
                    "INSERT INTO first SELECT g, repeat('f', 200) FROM generate_series(1, 20000) g",
                    "CREATE TABLE later (id bigint PRIMARY KEY, v text)",
                    "INSERT INTO later SELECT g, 'l' || g FROM generate_series(1, 300) g");
            Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            PostgresSourceTask task = start(db, stored, "public.first");
            List<SourceRecord> received = new ArrayList<>();
            Map<Long, String> first = new HashMap<>();
            while (rows(received, "first") < 6000) {
                received.addAll(SourceTasks.poll(task));
            }
            // What the target made durable: the start of the snapshot and part of its rows.
            for (SourceRecord r : received.subList(0, received.size() / 2)) {
                stored.put(cast(r.sourcePartition()), new HashMap<>(cast(r.sourceOffset())));
                apply(r, "first", first);
            }
            task.stop();
            assertThat(stored.values().stream().anyMatch(o -> Boolean.TRUE.equals(o.get("snapshot_started"))))
                    .as("the start of the snapshot was stored").isTrue();
            assertThat(stored.values().stream().anyMatch(o -> Boolean.TRUE.equals(o.get("snapshot_completed")))).isFalse();
            db.execute("UPDATE later SET v = 'between' WHERE id <= 10", "INSERT INTO later VALUES (1000, 'between')");

            task = start(db, stored, "public.first,public.later");
            try {
                Map<Long, String> later = new HashMap<>();
                boolean defined = false;
                boolean written = false;
                long deadline = System.nanoTime() + 120_000_000_000L;
                while (!done(db) || !later.equals(table(db, "later")) || !first.equals(table(db, "first"))) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("later copied and streamed, and first resumed, within 120 s: re-sync done " + done(db)
                                + ", later " + later.size() + " rows (" + table(db, "later").size() + " on the source, equal "
                                + later.equals(table(db, "later")) + "), first " + first.size() + " rows (" + table(db, "first").size()
                                + ", equal " + first.equals(table(db, "first")) + ")");
                    }
                    List<SourceRecord> batch = SourceTasks.poll(task);
                    for (SourceRecord r : batch) {
                        Struct value = r.value() instanceof Struct s ? s : null;
                        if (value != null && value.schema().field("tableChanges") != null && value.getArray("tableChanges").stream()
                                .anyMatch(c -> ((Struct) c).getString("type").equals("CREATE") && ((Struct) c).getString("id").equals("\"public\".\"later\""))) {
                            assertThat(value.getStruct(Envelope.SOURCE).getString("snapshot")).as("defined by the stream").isEqualTo("false");
                            defined = true;
                        }
                        if (value == null || !Envelope.isEnvelope(r.valueSchema())) {
                            continue;
                        }
                        Struct source = value.getStruct(Envelope.SOURCE);
                        if (source.getString("table").equals("later")) {
                            assertThat(source.getString("snapshot")).as("a row of later from the resumed snapshot")
                                    .isIn("false", "incremental");
                            assertThat(defined).as("a change of later before its definition").isTrue();
                        }
                        apply(r, "first", first);
                        apply(r, "later", later);
                        // Stored once written, as Connect does: the re-sync ends its request when its last chunk is durable.
                        stored.put(cast(r.sourcePartition()), new HashMap<>(cast(r.sourceOffset())));
                    }
                    task.commit();
                    if (!written && defined) {
                        db.execute("UPDATE later SET v = 'streamed' WHERE id % 7 = 0", "DELETE FROM later WHERE id = 5",
                                "UPDATE first SET v = 'streamed' WHERE id % 1000 = 0");
                        written = true;
                    }
                }
                assertThat(written).isTrue();
                assertThat(later).containsEntry(1000L, "between").containsEntry(14L, "streamed").doesNotContainKey(5L);
            } finally {
                task.stop();
            }
        } finally {
            TestDatabases.drop(db);
        }
    }

    private static PostgresSourceTask start(TestDatabase db, Map<Map<String, String>, Map<String, Object>> stored, String tables) {
        return SourceTasks.start(db, stored, "topic.prefix", "widening", "table.include.list", tables, "snapshot.mode", "initial",
                "snapshot.schema", "none", "snapshot.batch.bytes", "65536", "snapshot.max.threads", "2",
                "snapshot.queue.bytes", "1048576", "resync.chunk.rows", "100");
    }

    private static long rows(List<SourceRecord> records, String table) {
        return records.stream().filter(r -> r.value() instanceof Struct v && Envelope.isEnvelope(r.valueSchema())
                && v.getStruct(Envelope.SOURCE).getString("table").equals(table)).count();
    }

    /** Applies a change of the table to its model, by key. */
    private static void apply(SourceRecord r, String table, Map<Long, String> rows) {
        if (!(r.value() instanceof Struct value) || !Envelope.isEnvelope(r.valueSchema())
                || !value.getStruct(Envelope.SOURCE).getString("table").equals(table)) {
            return;
        }
        switch (value.getString(Envelope.OP)) {
            case "r", "c", "u" -> rows.put(value.getStruct(Envelope.AFTER).getInt64("id"), value.getStruct(Envelope.AFTER).getString("v"));
            case "d" -> rows.remove(value.getStruct(Envelope.BEFORE).getInt64("id"));
            case "t" -> rows.clear();
            default -> throw new AssertionError("unexpected op " + value.getString(Envelope.OP));
        }
    }

    private static boolean done(TestDatabase db) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT count(*) FROM sluice_signals.requests WHERE pipeline = 'widening' AND target = 'public.later' AND state = 'done'")) {
            return rs.next() && rs.getLong(1) == 1;
        }
    }

    private static Map<Long, String> table(TestDatabase db, String table) throws Exception {
        Map<Long, String> rows = new HashMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v FROM " + table)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getString(2));
            }
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Map<K, V> cast(Map<String, ?> map) {
        return (Map<K, V>) map;
    }
}
