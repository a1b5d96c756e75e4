package io.sluice.sink.opensearch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.testing.kafka.SourceTaskContexts;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Sluice's source task feeding the OpenSearch sink task in the test's thread, as the embedded
 * runtime does: source offsets are stored (in a map standing in for the offset file) only at
 * {@link #commit()}, after the sink said everything is durable. Closing without a commit is a
 * crash: the next pipe on the same store gets those changes again.
 */
final class SourceToIndex implements AutoCloseable {

    private final PostgresSourceTask source = new PostgresSourceTask();
    private final OpenSearchSinkTask sink = new OpenSearchSinkTask();
    private final Map<Map<String, ?>, Map<String, Object>> stored;
    private final Map<Map<String, ?>, Map<String, Object>> putNotStored = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    private final List<SinkRecord> delivered = new ArrayList<>();
    private long offset;

    SourceToIndex(Map<Map<String, ?>, Map<String, Object>> stored, Map<String, String> sourceProps, Map<String, String> sinkProps) {
        this.stored = stored;
        source.initialize(SourceTaskContexts.withOffsets(stored));
        sink.start(sinkProps);
        try {
            source.start(sourceProps);
        } catch (RuntimeException e) {
            sink.stop();
            throw e;
        }
    }

    static Map<String, String> sourceProps(TestDatabase db, String prefix) {
        Map<String, String> props = db.sourceConnection();
        props.put("topic.prefix", prefix);
        props.put("snapshot.mode", "initial");
        props.put("snapshot.max.threads", "2");
        props.put("status.update.interval.ms", "200");
        return props;
    }

    static Map<String, String> sinkProps(OpenSearchNode node, String... settings) {
        Map<String, String> props = new HashMap<>(Map.of("connection.url", node.httpUrl(), "bulk.max.bytes", "65536",
                "batch.tuning.enabled", "false", "retry.timeout.ms", "60000"));
        for (int i = 0; i < settings.length; i += 2) {
            props.put(settings[i], settings[i + 1]);
        }
        return props;
    }

    /** Moves one poll's records from the source into the sink; returns them. */
    List<SourceRecord> pump() throws InterruptedException {
        return pump(java.util.function.UnaryOperator.identity());
    }

    /** As {@link #pump()}, with the records put as {@code edit} makes them (a test puts others among them). */
    List<SourceRecord> pump(java.util.function.UnaryOperator<List<SinkRecord>> edit) throws InterruptedException {
        List<SourceRecord> batch = source.poll();
        if (batch == null || batch.isEmpty()) {
            sink.put(List.of());
            return List.of();
        }
        List<SinkRecord> records = new ArrayList<>(batch.size());
        for (SourceRecord r : batch) {
            TopicPartition tp = new TopicPartition(r.topic(), 0);
            records.add(new SinkRecord(r.topic(), 0, r.keySchema(), r.key(), r.valueSchema(), r.value(), offset, r.timestamp(), null,
                    r.headers()));
            next.put(tp, new OffsetAndMetadata(++offset));
            @SuppressWarnings("unchecked")
            Map<String, Object> sourceOffset = new HashMap<>((Map<String, Object>) r.sourceOffset());
            putNotStored.put(r.sourcePartition(), sourceOffset);
        }
        sink.put(edit.apply(records));
        delivered.addAll(records);
        return batch;
    }

    /** Something a test does between pumps. */
    interface Step {
        void run() throws Exception;
    }

    /**
     * Pumps until the row with id {@code marker} of {@code table} arrives, running {@code then}
     * once the snapshot's last event has come through; fails after four minutes.
     */
    void pumpUntil(String table, int marker, Step then) throws Exception {
        long deadline = System.nanoTime() + 240_000_000_000L;
        boolean stepped = false;
        while (System.nanoTime() < deadline) {
            for (SourceRecord r : pump()) {
                if (!stepped && r.value() instanceof Struct v && !Envelope.isEnvelope(r.valueSchema()) && v.schema().field(Envelope.SOURCE) != null
                        && "last".equals(v.getStruct(Envelope.SOURCE).getString("snapshot"))) {
                    then.run();
                    stepped = true;
                }
                if (r.topic().endsWith("." + table) && Envelope.isEnvelope(r.valueSchema())) {
                    Struct after = ((Struct) r.value()).getStruct(Envelope.AFTER);
                    if (after != null && Integer.valueOf(marker).equals(after.get("id"))) {
                        return;
                    }
                }
            }
        }
        throw new AssertionError("Timed out waiting for " + table + " row " + marker);
    }

    /** Makes everything put durable, checks the sink reports all of it, stores the source offsets and lets the source confirm them. */
    void commit() {
        sink.flush(Map.copyOf(next));
        Map<TopicPartition, OffsetAndMetadata> durable = sink.preCommit(Map.copyOf(next));
        if (!durable.equals(next)) {
            throw new AssertionError("the sink held back offsets after a flush: " + durable + " of " + next);
        }
        stored.putAll(putNotStored);
        putNotStored.clear();
        source.commit();
    }

    /** Makes everything put durable without storing the offsets: a crash right after the writes. */
    void flushWithoutStoring() {
        sink.flush(Map.copyOf(next));
    }

    /** Every record put into the sink so far, in order. */
    List<SinkRecord> delivered() {
        return delivered;
    }

    OpenSearchSinkTask sink() {
        return sink;
    }

    @Override
    public void close() {
        try {
            source.stop();
        } finally {
            sink.stop();
        }
    }
}
