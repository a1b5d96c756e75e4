package io.sluice.sink.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/** Sluice's source task feeding this module's sink task in the test's thread ({@link SourceToSink}), and the keys they take. */
final class Pipes {

    private Pipes() {
    }

    /**
     * @param stored the offsets store, shared by the pipes of one pipeline across restarts
     */
    static SourceToSink<PostgresSinkTask> open(Map<Map<String, ?>, Map<String, Object>> stored, Map<String, String> sourceProps,
                                               Map<String, String> sinkProps) {
        return new SourceToSink<>(new PostgresSourceTask(), new PostgresSinkTask(), stored, sourceProps, sinkProps);
    }

    static Map<String, String> sinkProps(TestDatabase target, String... settings) {
        return SourceToSink.with(new HashMap<>(Map.of(
                "position.mode", "source", "connection.url", "postgres://" + target.host() + ":" + target.port() + "/" + target.name() + "?sslmode=disable",
                "connection.username", target.user(), "connection.password", target.password())), settings);
    }

    /** How many of the records are streamed changes (their offsets carry a commit position). */
    static long changes(List<SourceRecord> records) {
        return records.stream().filter(r -> r.sourceOffset().containsKey("lsn_commit")).count();
    }

    /**
     * {@link SourceToSink#confirmWithoutWaiting()}, checking that the target holds every change
     * confirmed: its applied position for {@code sourceName} is at or past the newest one's.
     *
     * @return how many records were confirmed
     */
    static int confirmWithoutWaiting(SourceToSink<PostgresSinkTask> pipe, TestDatabase target, String sourceName)
            throws SQLException, InterruptedException {
        List<SourceRecord> confirmed = pipe.confirmWithoutWaiting();
        SourcePosition newest = null;
        for (SourceRecord r : confirmed) {
            if (Envelope.isEnvelope(r.valueSchema())) {
                newest = SourcePosition.of((Struct) r.value());
            }
        }
        if (newest != null) {
            try (Connection c = target.connect()) {
                SourcePosition applied = new AppliedPositions("sluice.applied_position").read(c, sourceName);
                if (applied == null || newest.compareTo(applied) > 0) {
                    throw new AssertionError("the sink confirmed the change at " + newest + " while the target holds changes up to " + applied);
                }
            }
        }
        return confirmed.size();
    }
}
