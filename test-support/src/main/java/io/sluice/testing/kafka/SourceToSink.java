package io.sluice.testing.kafka;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A source task feeding a sink task in the test's thread, the way the embedded runtime drives
 * them: each record is put with the next offset of partition 0 of its topic, and the source's
 * offsets are stored (in a map standing in for the offsets file) only once the sink says the
 * records are durable; then the source is told to commit. Closing without {@link #commit()} is a
 * crash: what was not stored is handed out again by the next pipe on the same store.
 *
 * @param <S> the sink task, for the test's questions to it
 */
public final class SourceToSink<S extends SinkTask> implements AutoCloseable {

    /** Something a test does between pumps. */
    @FunctionalInterface
    public interface Step {
        void run() throws Exception;
    }

    private final SourceTask source;
    private final S sink;
    private final Map<Map<String, ?>, Map<String, Object>> stored;
    /** Per source partition, the newest offset put and not yet stored. */
    private final Map<Map<String, ?>, Map<String, Object>> putNotStored = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    /** Records put whose source offsets are not stored yet, in order. */
    private final ArrayDeque<Put> notStored = new ArrayDeque<>();
    private final List<Consumer<SinkRecord>> watchers = new ArrayList<>();
    private long offset;
    private volatile boolean pumping;
    private Thread pumper;

    /**
     * Starts the sink, then the source (the sink stopped again if the source does not start).
     *
     * @param stored the offsets store, shared by the pipes of one pipeline across restarts
     */
    public SourceToSink(SourceTask source, S sink, Map<Map<String, ?>, Map<String, Object>> stored, Map<String, String> sourceProps,
                        Map<String, String> sinkProps) {
        this.source = source;
        this.sink = sink;
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

    /** The source task's keys for a pipe from {@code db}: a snapshot, then streaming, with quick status updates. */
    public static Map<String, String> sourceProps(TestDatabase db, String topicPrefix) {
        Map<String, String> props = db.sourceConnection();
        props.put("topic.prefix", topicPrefix);
        props.put("snapshot.mode", "initial");
        props.put("status.update.interval.ms", "200");
        return props;
    }

    /** {@code props} with the keys and values given in turn put in; returns {@code props}. */
    public static Map<String, String> with(Map<String, String> props, String... keysAndValues) {
        for (int i = 0; i < keysAndValues.length; i += 2) {
            props.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return props;
    }

    /** Has {@code watcher} see every record as it is put into the sink (before a test's edit); returns this pipe. */
    public SourceToSink<S> watching(Consumer<SinkRecord> watcher) {
        watchers.add(watcher);
        return this;
    }

    /** Moves one poll's records from the source into the sink; returns them. */
    public List<SourceRecord> pump() throws InterruptedException {
        return pump(UnaryOperator.identity());
    }

    /** As {@link #pump()}, with the records put as {@code edit} makes them (a test puts others among them). */
    public List<SourceRecord> pump(UnaryOperator<List<SinkRecord>> edit) throws InterruptedException {
        List<SourceRecord> batch = source.poll();
        if (batch == null || batch.isEmpty()) {
            sink.put(List.of());
            return List.of();
        }
        List<SinkRecord> records = new ArrayList<>(batch.size());
        for (SourceRecord r : batch) {
            TopicPartition tp = new TopicPartition(r.topic(), 0);
            SinkRecord put = new SinkRecord(r.topic(), 0, r.keySchema(), r.key(), r.valueSchema(), r.value(), offset, r.timestamp(), null,
                    r.headers());
            records.add(put);
            watchers.forEach(w -> w.accept(put));
            Map<String, Object> sourceOffset = copy(r.sourceOffset());
            notStored.add(new Put(offset, tp, r.sourcePartition(), sourceOffset, r));
            next.put(tp, new OffsetAndMetadata(++offset));
            putNotStored.put(r.sourcePartition(), sourceOffset);
        }
        sink.put(edit.apply(records));
        return batch;
    }

    /** Pumps until the condition holds; fails after the time given. */
    public void pumpUntil(BooleanSupplier done, long millis, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            if (pump().isEmpty()) {
                Thread.sleep(20);
            }
        }
    }

    /**
     * Pumps until a record {@code arrived} accepts has been put, running {@code then} once, after
     * the first record {@code stepAt} accepts; fails after {@code within}.
     */
    public void pumpUntil(Predicate<SourceRecord> arrived, Predicate<SourceRecord> stepAt, Step then, Duration within, String what)
            throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        boolean stepped = false;
        while (System.nanoTime() < deadline) {
            for (SourceRecord r : pump()) {
                if (!stepped && stepAt.test(r)) {
                    then.run();
                    stepped = true;
                }
                if (arrived.test(r)) {
                    return;
                }
            }
        }
        throw new AssertionError("Timed out waiting for " + what);
    }

    /** Pumps on a thread of its own, as the embedded engine polls, until {@link #stopPumping}. */
    public void startPumping() {
        pumping = true;
        pumper = new Thread(() -> {
            try {
                while (pumping) {
                    if (pump().isEmpty()) {
                        Thread.sleep(1);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "test-pump");
        pumper.start();
    }

    public void stopPumping() throws InterruptedException {
        pumping = false;
        pumper.join();
    }

    /** Makes everything put durable, checks the sink reports all of it, stores the source offsets and lets the source commit. */
    public void commit() throws InterruptedException {
        sink.flush(Map.copyOf(next));
        Map<TopicPartition, OffsetAndMetadata> durable = sink.preCommit(Map.copyOf(next));
        if (!durable.equals(next)) {
            throw new AssertionError("the sink held back offsets after a flush: " + durable + " of " + next);
        }
        stored.putAll(putNotStored);
        putNotStored.clear();
        notStored.clear();
        source.commit();
    }

    /** Makes everything put durable without storing the offsets: a crash right after the sink's writes. */
    public void flushWithoutStoring() {
        sink.flush(Map.copyOf(next));
    }

    /**
     * What Kafka Connect does between flushes: asks the sink what is durable ({@code preCommit},
     * which does not wait for the target), stores the source offsets of the records it confirms,
     * in order, and lets the source commit them.
     *
     * @return the records whose offsets were stored now, in order
     */
    public List<SourceRecord> confirmWithoutWaiting() throws InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> confirmed = sink.preCommit(Map.copyOf(next));
        List<SourceRecord> storedNow = new ArrayList<>();
        while (!notStored.isEmpty()) {
            Put put = notStored.peekFirst();
            OffsetAndMetadata upTo = confirmed.get(put.topicPartition());
            if (upTo == null || put.offset() >= upTo.offset()) {
                break; // records after this one must wait for it: source offsets are stored in order
            }
            notStored.pollFirst();
            stored.put(put.sourcePartition(), put.sourceOffset());
            putNotStored.remove(put.sourcePartition(), put.sourceOffset());
            storedNow.add(put.record());
        }
        if (!storedNow.isEmpty()) {
            source.commit();
        }
        return storedNow;
    }

    public S sink() {
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

    private record Put(long offset, TopicPartition topicPartition, Map<String, ?> sourcePartition, Map<String, Object> sourceOffset,
                       SourceRecord record) {
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> copy(Map<String, ?> offset) {
        return new HashMap<>((Map<String, Object>) offset);
    }
}
