package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.testing.kafka.SourceTaskContexts;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The offsets the sink confirms ({@code preCommit}, what Kafka Connect and the embedded runtime
 * commit) never run ahead of the rows committed on the target, also while tables are loaded
 * frozen in one transaction each; and frozen tables end up with every row frozen.
 */
@ExtendWith(PostgresExtension.class)
class ConfirmedOffsetsIT {

    private static final List<String> TABLES = List.of("public.big", "public.small", "public.keyless");

    @BeforeAll
    static void data(TestDatabase source) throws Exception {
        source.execute(
                "CREATE TABLE big (id int PRIMARY KEY, v text)",
                "INSERT INTO big SELECT g, repeat('b', 150) || g FROM generate_series(1, 40000) g",
                "CREATE TABLE small (id int PRIMARY KEY, v text)",
                "INSERT INTO small SELECT g, repeat('s', 100) || g FROM generate_series(1, 3000) g",
                "CREATE TABLE keyless (a int, b text)",
                "INSERT INTO keyless SELECT g % 10, repeat('k', 120) FROM generate_series(1, 8000) g");
    }

    @ParameterizedTest(name = "raw tuples: {0}")
    @ValueSource(booleans = {false, true})
    void confirmedRecordsAreAlwaysOnTheTarget(boolean raw, TestDatabase source) throws Exception {
        TestDatabase target = TestDatabases.create(ConfirmedOffsetsIT.class);
        try {
            PostgresSourceTask sourceTask = new PostgresSourceTask();
            sourceTask.initialize(SourceTaskContexts.withOffsets(Map.of()));
            PostgresSinkTask sink = new PostgresSinkTask();
            sink.start(Map.of("position.mode", "source", "connection.url", "postgres://" + target.host() + ":" + target.port() + "/" + target.name() + "?sslmode=disable",
                    "connection.username", target.user(), "connection.password", target.password(), "batch.max.bytes", "65536", "batch.tuning.enabled", "false"));
            Map<TopicPartition, List<long[]>> rowsByOffset = new HashMap<>();
            Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
            boolean sawHeldRows = false;
            long offset = 0;
            try {
                sourceTask.start(sourceConfig(source, raw));
                boolean done = false;
                while (!done) {
                    List<SourceRecord> batch = sourceTask.poll();
                    if (batch == null) {
                        continue;
                    }
                    List<SinkRecord> records = new ArrayList<>();
                    for (SourceRecord r : batch) {
                        TopicPartition tp = new TopicPartition(r.topic(), 0);
                        records.add(new SinkRecord(r.topic(), 0, r.keySchema(), r.key(), r.valueSchema(), r.value(), offset, null, null,
                                r.headers()));
                        rowsByOffset.computeIfAbsent(tp, t -> new ArrayList<>()).add(new long[] {offset, rows(r)});
                        next.put(tp, new OffsetAndMetadata(++offset));
                        done |= Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED));
                    }
                    sink.put(records);
                    Map<TopicPartition, OffsetAndMetadata> confirmed = sink.preCommit(Map.copyOf(next));
                    for (var entry : rowsByOffset.entrySet()) {
                        String table = tableOf(entry.getKey().topic());
                        if (table == null) {
                            continue;
                        }
                        OffsetAndMetadata confirmedOffset = confirmed.get(entry.getKey());
                        long upTo = confirmedOffset == null ? 0 : confirmedOffset.offset(); // absent: nothing confirmed yet
                        long confirmedRows = entry.getValue().stream().filter(o -> o[0] < upTo).mapToLong(o -> o[1]).sum();
                        long putRows = entry.getValue().stream().mapToLong(o -> o[1]).sum();
                        sawHeldRows |= confirmedRows < putRows;
                        Long committed = countUnlessLocked(target, table);
                        if (committed == null) {
                            // Locked: the table is loading in one open transaction, so none of its rows may be confirmed.
                            assertThat(confirmedRows).as("confirmed rows of %s while its frozen load is open", table).isZero();
                        } else {
                            assertThat(committed).as("rows of %s on the target once %d are confirmed", table, confirmedRows)
                                    .isGreaterThanOrEqualTo(confirmedRows);
                        }
                    }
                }
                assertThat(sink.preCommit(Map.copyOf(next))).as("all confirmed at the end").isEqualTo(next);
            } finally {
                sourceTask.stop();
                sink.stop();
            }
            assertThat(sawHeldRows).as("rows of a table loading frozen were held back").isTrue();
            target.execute("CREATE EXTENSION IF NOT EXISTS pg_visibility");
            for (String table : TABLES) {
                assertThat(SnapshotIntoPostgresIT.checksum(target, table)).as(table).isEqualTo(SnapshotIntoPostgresIT.checksum(source, table));
                assertThat(count(target, "pg_visibility_map('" + table + "') WHERE NOT all_frozen")).as("pages of %s not frozen", table)
                        .isZero();
            }
        } finally {
            TestDatabases.drop(target);
        }
    }

    private static long rows(SourceRecord r) {
        if (RawTuples.is(r.valueSchema())) {
            return ((Struct) r.value()).getInt32("rows");
        }
        return Envelope.isEnvelope(r.valueSchema()) ? 1 : 0;
    }

    private static String tableOf(String topic) {
        String table = topic.substring(topic.indexOf('.') + 1);
        return TABLES.contains(table) ? table : null;
    }

    /** Committed rows of the table; null while a load holds the table's exclusive lock. */
    private static Long countUnlessLocked(TestDatabase db, String table) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("SET lock_timeout = '200ms'");
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                rs.next();
                return rs.getLong(1);
            } catch (java.sql.SQLException e) {
                if ("55P03".equals(e.getSQLState())) {
                    return null;
                }
                throw e;
            }
        }
    }

    private static long count(TestDatabase db, String from) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + from)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Map<String, String> sourceConfig(TestDatabase db, boolean raw) {
        Map<String, String> props = db.sourceConnection();
        props.put("topic.prefix", "confirm");
        props.put("snapshot.mode", "initial_only");
        props.put("snapshot.batch.bytes", "65536");
        props.put("snapshot.max.threads", "2");
        props.put("snapshot.raw.tuples", Boolean.toString(raw));
        return props;
    }
}
