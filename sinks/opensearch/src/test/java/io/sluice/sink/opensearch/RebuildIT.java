package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Column changes an index cannot take in place, streamed: a type change (integer to text), then a
 * renamed column. Each copies the table into the stream (ddl.copy.on=column_change), which
 * builds a new index version behind the alias; searches see the old version, whole, until the
 * new one is whole, then the new one, with the new field types and names and every row.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class RebuildIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aColumnChangeRebuildsTheIndexBehindItsAliasWhileSearchesGoOn(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(RebuildIT.class);
        String alias = source.name().toLowerCase() + "-public.items";
        try {
            source.execute("CREATE TABLE items (id int PRIMARY KEY, qty int NOT NULL, name text)",
                    "INSERT INTO items SELECT g, g, 'item ' || g FROM generate_series(1, 3000) g");
            Map<String, String> sourceProps = Pipes.sourceProps(source, "rb");
            sourceProps.put("ddl.copy.on", "column_change");
            Map<String, String> sinkProps = Pipes.sinkProps(node, "index.name.format", source.name().toLowerCase() + "-${schema}.${table}",
                    "bulk.max.bytes", "32768");
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(new ConcurrentHashMap<>(), sourceProps, sinkProps)) {
                List<SinkRecord> delivered = new ArrayList<>();
                pipe.watching(delivered::add);
                Pipes.pumpUntil(pipe, "items", -1, () -> source.execute("INSERT INTO items VALUES (-1, 0, 'snapshot done')"));
                pipe.commit();
                assertThat(fieldType(node, alias, "qty")).isEqualTo("integer");
                assertThat(physical(node, alias)).isEqualTo(alias + "_v1");

                source.execute("ALTER TABLE items ALTER COLUMN qty TYPE text", "UPDATE items SET qty = 'q' || qty WHERE id % 100 = 0",
                        "INSERT INTO items VALUES (-2, 'two', 'after the type change')");
                pumpWatching(pipe, node, alias, -2);
                pipe.commit();
                assertThat(physical(node, alias)).as("the alias moved to the rebuilt version").isEqualTo(alias + "_v2");
                assertThat(fieldType(node, alias, "qty")).isEqualTo("keyword");
                assertSame(source, node, alias, "qty");
                assertThat(IndexDocuments.count(node, alias + "_v1")).as("the old version is dropped").isEqualTo(-1);
                replayFromInsideTheSnapshot(delivered, sinkProps);
                assertThat(physical(node, alias)).isEqualTo(alias + "_v2");
                assertSame(source, node, alias, "qty");

                source.execute("ALTER TABLE items RENAME COLUMN name TO title", "UPDATE items SET title = title || '!' WHERE id % 7 = 0",
                        "INSERT INTO items VALUES (-3, 'three', 'after the rename')");
                pumpWatching(pipe, node, alias, -3);
                pipe.commit();
                assertThat(physical(node, alias)).isEqualTo(alias + "_v3");
                assertSame(source, node, alias, "title");
                assertThat(IndexDocuments.get(node, alias, "5").has("name")).as("the old column's field is gone").isFalse();
                assertThat(IndexDocuments.count(node, alias, "{\"query\":{\"match\":{\"title.text\":\"item\"}}}")).isEqualTo(3000);
            }
        } finally {
            TestDatabases.drop(source);
        }
    }

    /**
     * A snapshot row a task that took a partition over sends again reaches the version a column's
     * addition rebuilds while its copy is written (the replay starts inside the snapshot, the
     * copy is under way): the copied rows that come after it must still win, or those documents
     * keep the row without the new column.
     */
    @Test
    void aSnapshotRowReplayedIntoARebuildKeepsNoCopiedRowOut(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(RebuildIT.class);
        String alias = source.name().toLowerCase() + "-public.notes";
        try {
            source.execute("CREATE TABLE notes (id int PRIMARY KEY, body text)",
                    "INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 2000) g");
            Map<String, String> sourceProps = Pipes.sourceProps(source, "rs");
            sourceProps.put("ddl.copy.on", "column_change");
            Map<String, String> sinkProps = Pipes.sinkProps(node, "index.name.format", source.name().toLowerCase() + "-${schema}.${table}");
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(new ConcurrentHashMap<>(), sourceProps, sinkProps)) {
                List<SinkRecord> delivered = new ArrayList<>();
                pipe.watching(delivered::add);
                Pipes.pumpUntil(pipe, "notes", -1, () -> source.execute("INSERT INTO notes VALUES (-1, 'snapshot done')"));
                pipe.commit();
                List<SinkRecord> snapshotRows = delivered.stream().filter(r -> isRead(r, "notes") && !isCopied(r)).toList();
                assertThat(snapshotRows).hasSize(2000);

                source.execute("ALTER TABLE notes ADD COLUMN tag text NOT NULL DEFAULT 'tagged'", "INSERT INTO notes VALUES (-2, 'after', 'new')");
                boolean[] replayed = {false};
                long deadline = System.nanoTime() + 240_000_000_000L;
                boolean done = false;
                boolean copied = false;
                while (!(done && copied) && System.nanoTime() < deadline) {
                    for (SourceRecord r : pipe.pump(batch -> replayed[0] ? batch : withReplay(batch, snapshotRows, replayed))) {
                        done |= hasRow(r, "notes", -2);
                        copied |= endsACopy(r);
                    }
                }
                pipe.commit();
                assertThat(done).as("row -2 arrived").isTrue();
                assertThat(copied).as("the copy into the stream ended").isTrue();
                assertThat(replayed[0]).as("the snapshot rows were put among the copy's").isTrue();
                assertThat(physical(node, alias)).isEqualTo(alias + "_v2");
                Map<String, String> tags = new HashMap<>();
                IndexDocuments.all(node, alias).forEach((id, doc) -> tags.put(id, doc.path("tag").asText("(none)")));
                assertThat(tags).hasSize(2002);
                assertThat(tags.entrySet()).filteredOn(e -> !e.getKey().equals("-2")).allSatisfy(e ->
                        assertThat(e.getValue()).as("document " + e.getKey()).isEqualTo("tagged"));
            }
        } finally {
            TestDatabases.drop(source);
        }
    }

    /**
     * The source stops after its copy of a table into the stream is written (and the alias moved
     * to it) but before its offsets are stored: it starts again from before the schema change and
     * copies the table over, now with rows changed and deleted meanwhile, whose own changes it
     * drops (the new copy holds them). That copy's rows carry the version of the first copy's, so
     * they must go to a version of their own, or the index keeps the first copy's rows.
     */
    @Test
    void aCopyTheSourceStartsOverAfterARestartIsTheOneTheIndexKeeps(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(RebuildIT.class);
        String alias = source.name().toLowerCase() + "-public.notes";
        try {
            source.execute("CREATE TABLE notes (id int PRIMARY KEY, body text)",
                    "INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 2000) g");
            Map<String, String> sourceProps = Pipes.sourceProps(source, "ro");
            sourceProps.put("ddl.copy.on", "column_change");
            Map<String, String> sinkProps = Pipes.sinkProps(node, "index.name.format", source.name().toLowerCase() + "-${schema}.${table}");
            Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(stored, sourceProps, sinkProps)) {
                Pipes.pumpUntil(pipe, "notes", -1, () -> source.execute("INSERT INTO notes VALUES (-1, 'snapshot done')"));
                pipe.commit();
                source.execute("ALTER TABLE notes ADD COLUMN tag text NOT NULL DEFAULT 'tagged'");
                pumpUntilACopyEnds(pipe);
                pipe.flushWithoutStoring();
                assertThat(physical(node, alias)).as("the first copy is behind the alias").isEqualTo(alias + "_v2");
            }
            source.execute("UPDATE notes SET body = body || '!' WHERE id % 100 = 0", "DELETE FROM notes WHERE id % 50 = 25",
                    "UPDATE notes SET tag = 'retagged' WHERE id % 70 = 0");
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(stored, sourceProps, sinkProps)) {
                pumpUntilACopyEnds(pipe);
                source.execute("INSERT INTO notes VALUES (-2, 'after', 'new')");
                Pipes.pumpUntil(pipe, "notes", -2, () -> { });
                pipe.commit();
            }
            Map<String, String> rows = new HashMap<>();
            try (Connection c = source.connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id, body || '|' || tag FROM notes")) {
                while (rs.next()) {
                    rows.put(rs.getString(1), rs.getString(2));
                }
            }
            Map<String, String> docs = new HashMap<>();
            IndexDocuments.all(node, alias).forEach((id, doc) -> docs.put(id, doc.path("body").asText() + "|" + doc.path("tag").asText()));
            assertThat(docs).hasSameSizeAs(rows).isEqualTo(rows);
            assertThat(physical(node, alias)).as("the copy made again has a version of its own").isEqualTo(alias + "_v3");
            assertThat(IndexDocuments.count(node, alias + "_v2")).as("the first copy's version is dropped").isEqualTo(-1);
        } finally {
            TestDatabases.drop(source);
        }
    }

    /** Pumps until the end of a table's copy into the stream has been put into the sink. */
    private static void pumpUntilACopyEnds(SourceToSink<OpenSearchSinkTask> pipe) throws Exception {
        long deadline = System.nanoTime() + 240_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (SourceRecord r : pipe.pump()) {
                if (endsACopy(r)) {
                    return;
                }
            }
        }
        throw new AssertionError("Timed out waiting for the end of a copy into the stream");
    }

    /** The batch with the snapshot's rows put before its first copied row of notes; as it is when it has none. */
    private static List<SinkRecord> withReplay(List<SinkRecord> batch,
            List<SinkRecord> snapshotRows, boolean[] replayed) {
        for (int i = 0; i < batch.size(); i++) {
            if (isRead(batch.get(i), "notes") && isCopied(batch.get(i))) {
                List<SinkRecord> out = new ArrayList<>(batch.subList(0, i));
                out.addAll(snapshotRows);
                out.addAll(batch.subList(i, batch.size()));
                replayed[0] = true;
                return out;
            }
        }
        return batch;
    }

    /** Whether the record is a row read from the table (by the snapshot or a copy), not a change. */
    private static boolean isRead(SinkRecord r, String table) {
        return r.topic().endsWith("." + table) && r.value() instanceof Struct v && v.schema().field("op") != null
                && "r".equals(v.getString("op"));
    }

    /** Whether a row read from a table comes from its copy into the stream, not from the snapshot. */
    private static boolean isCopied(SinkRecord r) {
        return "incremental".equals(((Struct) r.value()).getStruct("source").getString("snapshot"));
    }

    /**
     * What a task that takes the partition over does: it replays from Connect's committed offset,
     * which may lie inside the snapshot, so snapshot rows of the old columns reach the rebuilt
     * version again. The version cannot take them and its copy holds them: they must neither stop
     * the task nor rebuild the index once more.
     */
    private static void replayFromInsideTheSnapshot(List<SinkRecord> delivered, Map<String, String> sinkProps) {
        int from = 0;
        while (!isRead(delivered.get(from), "items")) {
            from++;
        }
        OpenSearchSinkTask takeover = new OpenSearchSinkTask();
        takeover.start(sinkProps);
        try {
            List<SinkRecord> replay = delivered.subList(from + 1000, delivered.size());
            for (int at = 0; at < replay.size(); at += 500) {
                takeover.put(replay.subList(at, Math.min(replay.size(), at + 500)));
            }
            takeover.flush(Map.of());
        } finally {
            takeover.stop();
        }
    }

    /**
     * Pumps until row {@code id} arrives and the table's copy into the stream has ended; between
     * pumps, searches find every row of the table the alias had. The row alone is not enough: it
     * was written before the copy started, so the copy itself may hand it out in a chunk that comes
     * before the copy's end, and the alias moves only at the end.
     */
    private static void pumpWatching(SourceToSink<OpenSearchSinkTask> pipe, OpenSearchNode node, String alias, int id) throws Exception {
        long deadline = System.nanoTime() + 240_000_000_000L;
        boolean arrived = false;
        boolean copied = false;
        while (System.nanoTime() < deadline) {
            List<SourceRecord> batch = pipe.pump();
            assertThat(IndexDocuments.count(node, alias)).as("documents a search finds behind %s while it is rebuilt", alias)
                    .isGreaterThanOrEqualTo(3001);
            for (SourceRecord r : batch) {
                arrived |= hasRow(r, "items", id);
                copied |= endsACopy(r);
            }
            if (arrived && copied) {
                return;
            }
        }
        throw new AssertionError("Timed out waiting for items row " + id + (arrived ? " (it came) and the end of the table's copy" : ""));
    }

    /** Whether the record is a change or copied row of the table whose new row has the id. */
    private static boolean hasRow(SourceRecord r, String table, int id) {
        return r.topic().endsWith("." + table) && r.value() instanceof Struct v
                && v.schema().field("after") != null && v.getStruct("after") != null && Integer.valueOf(id).equals(v.getStruct("after").get("id"));
    }

    /** Whether the record is the marker that ends a table's copy into the stream. */
    private static boolean endsACopy(SourceRecord r) {
        return r.value() instanceof Struct v && !io.sluice.schemas.envelope.Envelope.isEnvelope(r.valueSchema())
                && v.schema().field("source") != null && "incremental".equals(v.getStruct("source").getString("snapshot"));
    }

    private static void assertSame(TestDatabase source, OpenSearchNode node, String alias, String column) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, " + column + " FROM items")) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getString(2));
            }
        }
        Map<String, String> docs = new HashMap<>();
        IndexDocuments.all(node, alias).forEach((id, doc) -> docs.put(id, doc.path(column).asText()));
        assertThat(docs).hasSameSizeAs(rows).isEqualTo(rows);
    }

    /** The physical index behind the alias. */
    private static String physical(OpenSearchNode node, String alias) throws Exception {
        JsonNode answer = JSON.readTree(new java.net.URL(node.httpUrl() + "/_alias/" + alias).openStream());
        return answer.fieldNames().next();
    }

    private static String fieldType(OpenSearchNode node, String alias, String field) throws Exception {
        JsonNode mapping = JSON.readTree(new java.net.URL(node.httpUrl() + "/" + alias + "/_mapping").openStream());
        return mapping.elements().next().path("mappings").path("properties").path(field).path("type").asText();
    }
}
