package io.sluice.sink.opensearch;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.opensearch.OpenSearchNode;
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
    static SourceToSink<OpenSearchSinkTask> open(Map<Map<String, ?>, Map<String, Object>> stored, Map<String, String> sourceProps,
                                                 Map<String, String> sinkProps) {
        return new SourceToSink<>(new PostgresSourceTask(), new OpenSearchSinkTask(), stored, sourceProps, sinkProps);
    }

    static Map<String, String> sourceProps(TestDatabase db, String prefix) {
        return SourceToSink.with(SourceToSink.sourceProps(db, prefix), "snapshot.max.threads", "2");
    }

    static Map<String, String> sinkProps(OpenSearchNode node, String... settings) {
        return SourceToSink.with(new HashMap<>(Map.of("connection.url", node.httpUrl(), "bulk.max.bytes", "65536",
                "batch.tuning.enabled", "false", "retry.timeout.ms", "60000")), settings);
    }

    /**
     * Pumps until the row with id {@code marker} of {@code table} arrives, running {@code then}
     * once the snapshot's last event has come through; fails after four minutes.
     */
    static void pumpUntil(SourceToSink<OpenSearchSinkTask> pipe, String table, int marker, SourceToSink.Step then) throws Exception {
        pipe.pumpUntil(r -> isRow(r, table, marker), Pipes::endsTheSnapshot, then, Duration.ofMinutes(4), table + " row " + marker);
    }

    private static boolean endsTheSnapshot(SourceRecord r) {
        return r.value() instanceof Struct v && !Envelope.isEnvelope(r.valueSchema()) && v.schema().field(Envelope.SOURCE) != null
                && "last".equals(v.getStruct(Envelope.SOURCE).getString("snapshot"));
    }

    private static boolean isRow(SourceRecord r, String table, int id) {
        if (!r.topic().endsWith("." + table) || !Envelope.isEnvelope(r.valueSchema())) {
            return false;
        }
        Struct after = ((Struct) r.value()).getStruct(Envelope.AFTER);
        return after != null && Integer.valueOf(id).equals(after.get("id"));
    }
}
