package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.testing.kafka.SourceTaskContexts;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A snapshot interrupted at the worst moment — rows already in the target whose offsets were
 * never committed — and resumed ends with a target equal to the source: keyed tables are
 * upserted, keyless ones emptied and copied again.
 */
@ExtendWith(PostgresExtension.class)
class ResumeIT {

    private static TestDatabase target;

    @BeforeAll
    static void data(TestDatabase source) throws Exception {
        source.execute(
                "CREATE TABLE keyed (id int PRIMARY KEY, v text, n int GENERATED ALWAYS AS (id * 2) STORED)",
                "INSERT INTO keyed (id, v) SELECT g, repeat('x', 200) || g FROM generate_series(1, 30000) g",
                "CREATE TABLE identity_keyed (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)",
                "INSERT INTO identity_keyed (v) SELECT repeat('y', 100) || g FROM generate_series(1, 10000) g",
                "CREATE TABLE keyless (a int, b text)",
                "INSERT INTO keyless SELECT g % 100, repeat('z', 200) FROM generate_series(1, 20000) g");
        target = TestDatabases.create(ResumeIT.class);
    }

    @AfterAll
    static void drop() throws Exception {
        TestDatabases.drop(target);
    }

    @Test
    void interruptedAfterRowsLandedButBeforeOffsetsWereCommittedResumesToAnIdenticalTarget(TestDatabase source) throws Exception {
        Map<Map<String, Object>, Map<String, Object>> committed = new HashMap<>();

        // First run: everything read so far reaches the target, but offsets are committed only
        // for the first part, as if the process died between the sink's flush and the commit.
        // Tables with the most index work come first (keyed, identity_keyed, then keyless, which has
        // none): this stops inside the keyless table, after all of the keyed ones.
        long offset = run(source, target, committed, 48_000, 15_000, 0);
        // The keyed table is all in the target but only half confirmed; the keyless one is partly there.
        assertThat(SnapshotIntoPostgresIT.checksum(target, "keyed")).startsWith("30000 ");
        assertThat(SnapshotIntoPostgresIT.checksum(target, "keyless")).isNotEqualTo(SnapshotIntoPostgresIT.checksum(source, "keyless"))
                .doesNotStartWith("0 ");

        // Second run: resumes from the committed offsets.
        run(source, target, committed, Long.MAX_VALUE, 0, offset);
        for (String table : List.of("keyed", "identity_keyed", "keyless")) {
            assertThat(SnapshotIntoPostgresIT.checksum(target, table)).as(table).isEqualTo(SnapshotIntoPostgresIT.checksum(source, table));
        }
    }

    @Test
    void stoppedBeforeTheSourceStoredThatItsSnapshotBeganStartsOverAndLeavesForeignTablesAlone(TestDatabase source) throws Exception {
        TestDatabase fresh = TestDatabases.create(ResumeIT.class);
        try {
            // First run: the schema and some rows reach the target, but no offset is stored at all.
            Map<Map<String, Object>, Map<String, Object>> committed = new HashMap<>();
            long offset = run(source, fresh, committed, 20_000, 0, 0);
            assertThat(SnapshotIntoPostgresIT.checksum(fresh, "keyed")).doesNotStartWith("0 ");
            assertThat(committed).isEmpty();

            // The source starts over and sends the schema again: the tables in its way are its own, made again.
            run(source, fresh, committed, Long.MAX_VALUE, Long.MAX_VALUE, offset);
            for (String table : List.of("keyed", "identity_keyed", "keyless")) {
                assertThat(SnapshotIntoPostgresIT.checksum(fresh, table)).as(table).isEqualTo(SnapshotIntoPostgresIT.checksum(source, table));
            }
            assertThat(fresh.queryLong("SELECT count(*) FROM pg_indexes WHERE tablename = 'keyed'")).isEqualTo(1);

            // Finished, the tables are the user's: a new snapshot from scratch must not drop them.
            Map<Map<String, Object>, Map<String, Object>> none = new HashMap<>();
            assertThatThrownBy(() -> run(source, fresh, none, Long.MAX_VALUE, Long.MAX_VALUE, 0))
                    .hasMessageContaining("already has 3 of the tables").hasMessageContaining("table.exists=truncate");
            assertThat(SnapshotIntoPostgresIT.checksum(fresh, "keyed")).isEqualTo(SnapshotIntoPostgresIT.checksum(source, "keyed"));
        } finally {
            TestDatabases.drop(fresh);
        }
    }

    /**
     * Runs source and sink until {@code rows} records or the end of the snapshot, storing the
     * offsets of the first {@code stored} records only (as if the process died before it stored
     * more); returns the next Kafka offset to use.
     */
    private long run(TestDatabase source, TestDatabase into, Map<Map<String, Object>, Map<String, Object>> committed, long rows,
                     long stored, long firstOffset) throws Exception {
        PostgresSourceTask task = new PostgresSourceTask();
        task.initialize(SourceTaskContexts.withOffsets(committed));
        task.start(sourceConfig(source));
        PostgresSinkTask sink = new PostgresSinkTask();
        sink.start(sinkConfig(into));
        long offset = firstOffset;
        try {
            boolean done = false;
            long seen = 0;
            while (!done && seen < rows) {
                List<SourceRecord> batch = task.poll();
                if (batch == null) {
                    continue;
                }
                List<SinkRecord> records = new ArrayList<>();
                for (SourceRecord r : batch) {
                    records.add(new SinkRecord(r.topic(), 0, r.keySchema(), r.key(), r.valueSchema(), r.value(), offset++, null,
                            null, r.headers()));
                    done |= Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED));
                    if (seen++ < stored) {
                        committed.put(cast(r.sourcePartition()), cast(r.sourceOffset()));
                    }
                }
                sink.put(records);
            }
            sink.flush(Map.of());
        } finally {
            task.stop();
            sink.stop();
        }
        return offset;
    }

    private Map<String, String> sourceConfig(TestDatabase db) {
        Map<String, String> props = db.sourceConnection();
        props.put("topic.prefix", "resume");
        props.put("snapshot.mode", "initial_only");
        props.put("snapshot.batch.bytes", "65536");
        // One reader, so tables are read one after another and the first run stops at a known place.
        props.put("snapshot.max.threads", "1");
        return props;
    }

    private static Map<String, String> sinkConfig(TestDatabase into) {
        return Map.of("position.mode", "source", "connection.url", "postgres://" + into.host() + ":" + into.port() + "/" + into.name() + "?sslmode=disable",
                "connection.username", into.user(), "connection.password", into.password(), "batch.max.bytes", "100000", "batch.tuning.enabled", "false");
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Map<K, V> cast(Map<String, ?> map) {
        return (Map<K, V>) map;
    }
}
