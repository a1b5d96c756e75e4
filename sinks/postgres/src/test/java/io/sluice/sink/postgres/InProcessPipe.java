package io.sluice.sink.postgres;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.testing.kafka.SourceTaskContexts;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Sluice's source task feeding its sink task in the test's thread, as the embedded runtime
 * does: source offsets are stored (in a map standing in for the offset file) only after the
 * sink said the records are durable, and then the source is told to commit. Stopping a pipe
 * without {@link #commit()} is a crash: whatever was not committed is lost.
 */
final class InProcessPipe implements AutoCloseable {

    private final PostgresSourceTask source = new PostgresSourceTask();
    private final PostgresSinkTask sink = new PostgresSinkTask();
    private final Map<Map<String, ?>, Map<String, Object>> stored;
    private final Map<Map<String, ?>, Map<String, Object>> putNotStored = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    private long offset;
    private long changesPut;

    /**
     * @param stored the offsets store, shared by the pipes of one pipeline across restarts
     */
    InProcessPipe(Map<Map<String, ?>, Map<String, Object>> stored, Map<String, String> sourceProps, Map<String, String> sinkProps) {
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

    static Map<String, String> sinkProps(TestDatabase target, String... settings) {
        Map<String, String> props = new HashMap<>(Map.of(
                "connection.url", "postgres://" + target.host() + ":" + target.port() + "/" + target.name() + "?sslmode=disable",
                "connection.username", target.user(), "connection.password", target.password()));
        for (int i = 0; i < settings.length; i += 2) {
            props.put(settings[i], settings[i + 1]);
        }
        return props;
    }

    /** Moves one poll's records from the source into the sink; returns them. */
    List<SourceRecord> pump() throws InterruptedException {
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
            putNotStored.put(r.sourcePartition(), cast(r.sourceOffset()));
            if (r.sourceOffset().containsKey("lsn_commit")) {
                changesPut++;
            }
        }
        sink.put(records);
        return batch;
    }

    /** Makes everything put durable on the target, stores the newest source offsets, and lets the source confirm them. */
    void commit() {
        Map<TopicPartition, OffsetAndMetadata> durable = sink.preCommit(Map.copyOf(next));
        if (!durable.equals(next)) {
            throw new AssertionError("the sink held back offsets while streaming: " + durable + " of " + next);
        }
        stored.putAll(putNotStored);
        putNotStored.clear();
        source.commit();
    }

    /** Makes everything put durable on the target without storing the offsets: a crash right after the target's commit. */
    void applyWithoutStoringOffsets() {
        sink.preCommit(Map.copyOf(next));
    }

    long changesPut() {
        return changesPut;
    }

    PostgresSinkTask sink() {
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

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Map<String, ?> offset) {
        return new HashMap<>((Map<String, Object>) offset);
    }
}
