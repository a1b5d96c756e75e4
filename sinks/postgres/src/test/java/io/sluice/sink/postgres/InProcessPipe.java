package io.sluice.sink.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.testing.kafka.SourceTaskContexts;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
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
    /** Records put whose source offsets are not stored yet, in order. */
    private final ArrayDeque<Put> notStored = new ArrayDeque<>();
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
                "position.mode", "source", "connection.url", "postgres://" + target.host() + ":" + target.port() + "/" + target.name() + "?sslmode=disable",
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
            notStored.add(new Put(offset, tp, r.sourcePartition(), cast(r.sourceOffset()),
                    Envelope.isEnvelope(r.valueSchema()) ? SourcePosition.of((Struct) r.value()) : null));
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
        sink.flush(Map.copyOf(next));
        Map<TopicPartition, OffsetAndMetadata> durable = sink.preCommit(Map.copyOf(next));
        if (!durable.equals(next)) {
            throw new AssertionError("the sink held back offsets while streaming: " + durable + " of " + next);
        }
        stored.putAll(putNotStored);
        putNotStored.clear();
        notStored.clear();
        source.commit();
    }

    /**
     * What Kafka Connect does between flushes: asks the sink what is durable ({@code preCommit},
     * which does not wait for the target), stores the source offsets of the records it confirms
     * and lets the source confirm them. Before that, checks that the target holds every change
     * confirmed: its applied position is at or past the newest one's.
     *
     * @return how many records were confirmed
     */
    int confirmWithoutWaiting(TestDatabase target, String sourceName) throws SQLException {
        Map<TopicPartition, OffsetAndMetadata> confirmed = sink.preCommit(Map.copyOf(next));
        int count = 0;
        SourcePosition newest = null;
        while (!notStored.isEmpty()) {
            Put put = notStored.peekFirst();
            OffsetAndMetadata upTo = confirmed.get(put.topicPartition());
            if (upTo == null || put.offset() >= upTo.offset()) {
                break; // records after this one must wait for it: source offsets are stored in order
            }
            notStored.pollFirst();
            stored.put(put.sourcePartition(), put.sourceOffset());
            putNotStored.remove(put.sourcePartition(), put.sourceOffset());
            newest = put.position() != null ? put.position() : newest;
            count++;
        }
        if (newest != null) {
            try (Connection c = target.connect()) {
                SourcePosition applied = new AppliedPositions("sluice.applied_position").read(c, sourceName);
                if (applied == null || newest.compareTo(applied) > 0) {
                    throw new AssertionError("the sink confirmed the change at " + newest + " while the target holds changes up to " + applied);
                }
            }
        }
        if (count > 0) {
            source.commit();
        }
        return count;
    }

    private record Put(long offset, TopicPartition topicPartition, Map<String, ?> sourcePartition, Map<String, Object> sourceOffset,
                       SourcePosition position) {
    }

    /** Makes everything put durable on the target without storing the offsets: a crash right after the target's commit. */
    void applyWithoutStoringOffsets() {
        sink.flush(Map.copyOf(next));
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
