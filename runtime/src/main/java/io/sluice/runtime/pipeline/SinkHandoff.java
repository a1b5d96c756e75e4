package io.sluice.runtime.pipeline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.sluice.connector.postgres.SourceOffsets;
import io.sluice.runtime.progress.Progress;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.sink.core.connector.SendsInBackground;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the engine's records to the sink task in the same process, on a thread of the sink's
 * own, so the source decodes the next batch while the sink takes this one (and the sink itself
 * writes to the target while it takes more). Offsets are marked only for records the sink has
 * made durable: the sink is asked, as Kafka Connect asks it ({@code preCommit}), up to which
 * record each topic is durable, and the newest such record of each source partition is marked,
 * which lets the source confirm progress — never before the rows are safe. When the source has
 * handed out all it had (a batch short of full), what the sink holds is sent at once: a sink
 * that {@linkplain SendsInBackground sends in the background} writes it while the engine reads
 * the next changes, and it is marked once durable; any other sink flushes, and the engine waits,
 * so the last changes of a burst are confirmed at once. A burst that ends on a full batch, or
 * was sent in the background, is committed once the idle sink has made it durable. Offsets of
 * streamed changes sent in the background are committed off the engine's thread
 * ({@link OffsetCommits}).
 *
 * <p>Past 400 lines: the engine's side ({@code handleBatch}) and the sink thread's
 * ({@code applyQueued}) are two ends of one hand-over and share its state (what is durable, the
 * batches not yet marked, the last committer); split, each part would reach into the other's.
 */
final class SinkHandoff implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>>, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SinkHandoff.class);
    /** Batches waiting for the sink thread; bounds memory when the target is slower than the source. */
    private static final int QUEUE_BATCHES = 2;
    /** How soon a sink busy with what it sent before is asked again to send what it gathered since. */
    private static final long SEND_RETRY_MICROS = 500;

    private final SinkTask sink;
    /** This target's own transforms (a pipeline with several targets); none when the engine applies the pipeline's. */
    private final TargetTransforms transforms;
    /** Per source partition, the last record handed to the sink, for records this target's transforms drop. */
    private final Map<Map<String, ?>, Pending> lastHandedOver = new HashMap<>();
    /** The sink, when it can write the end of a burst while the engine reads on; null when it must flush. */
    private final SendsInBackground sendsInBackground;
    private final LongSupplier bytesLoaded;
    private final Progress progress;
    private final long flushIntervalNanos;
    private final CountDownLatch snapshotDone = new CountDownLatch(1);
    /**
     * Per source partition, the last record of each batch handed over and not yet durable, oldest
     * first: under a steady backlog the newest record is seldom durable, an older batch's often is.
     */
    private final Map<Map<String, ?>, ArrayDeque<Pending>> notYetDurable = new HashMap<>();
    /** The committer of the last batch, for records that become durable while the engine has nothing new to hand over. */
    private DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> lastCommitter;
    /** Next offset of each topic, as if the records had come through Kafka. */
    private final Map<TopicPartition, long[]> nextOffsets = new HashMap<>();
    private final Map<String, TopicPartition> partitions = new HashMap<>();
    private long lastFlush = System.nanoTime();
    private long kafkaOffset;
    private final Map<String, String> tableByTopic = new HashMap<>();
    private final AtomicLong changesApplied = new AtomicLong();
    private volatile long lastAppliedCommitMillis;

    private final BlockingQueue<Work> queue = new ArrayBlockingQueue<>(QUEUE_BATCHES);
    /** Up to which offset (exclusive) each topic is durable on the target, as the sink last said. */
    private final Map<TopicPartition, Long> durable = new ConcurrentHashMap<>();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final Thread sinkThread;
    private final OffsetCommits commits = new OffsetCommits();
    private volatile boolean closed;
    /** Whether the sink has made durable every change it was given and holds no batch: what a target left behind waits for. */
    private volatile boolean drained;

    /** @param bytesLoaded bytes the sink has sent to the target so far, for the progress display */
    SinkHandoff(SinkTask sink, LongSupplier bytesLoaded, Progress progress, long flushIntervalMillis) {
        this(sink, TargetTransforms.none(), bytesLoaded, progress, flushIntervalMillis, "sluice-sink");
    }

    /**
     * @param transforms this target's own transforms, applied to each record before the sink takes it
     * @param thread     the name of the sink's thread
     */
    SinkHandoff(SinkTask sink, TargetTransforms transforms, LongSupplier bytesLoaded, Progress progress, long flushIntervalMillis,
                String thread) {
        this.sink = sink;
        this.transforms = transforms;
        this.sendsInBackground = sink instanceof SendsInBackground s ? s : null;
        this.bytesLoaded = bytesLoaded;
        this.progress = progress;
        this.flushIntervalNanos = flushIntervalMillis * 1_000_000L;
        this.sinkThread = new Thread(this::applyQueued, thread);
        sinkThread.setDaemon(true);
        sinkThread.start();
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> events, DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        handleBatch(events, committer, Long.MAX_VALUE);
    }

    /**
     * Hands the batch over as {@link #handleBatch(List, DebeziumEngine.RecordCommitter)} does,
     * unless the sink takes no batch for {@code withinNanos} (its queue stays full, or a batch it
     * must make durable first is not): then returns false, and this hand-off may take no further
     * batch, as the records of this one may be neither queued nor marked. What the sink took is
     * still made durable and marked as it goes.
     */
    boolean handleBatch(List<RecordChangeEvent<SourceRecord>> events, DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer,
                        long withinNanos) throws InterruptedException {
        Deadline deadline = Deadline.within(withinNanos);
        throwIfFailed();
        List<SinkRecord> records = new ArrayList<>(events.size());
        Map<Map<String, ?>, Pending> lastOfBatch = new LinkedHashMap<>();
        boolean end = false;
        boolean schemaChange = false;
        int streamed = 0;
        int changes = 0;
        SourceRecord newestStreamed = null;
        // Runs of records share their source partition object (a stream has one): the map is written when the run
        // ends, not hashed into for every record.
        Map<String, ?> runPartition = null;
        Pending runLast = null;
        for (RecordChangeEvent<SourceRecord> event : events) {
            SourceRecord r = transforms.apply(event.record());
            if (r == null) {
                // Dropped for this target: confirmed with the last record of its partition handed over, if any.
                Map<String, ?> partition = event.record().sourcePartition();
                if (runPartition != null && runPartition != partition) {
                    lastOfBatch.put(runPartition, runLast);
                    lastHandedOver.put(runPartition, runLast);
                }
                Pending before = runPartition == partition ? runLast : lastHandedOver.get(partition);
                runPartition = partition;
                runLast = before == null ? new Pending(event, null, -1) : new Pending(event, before.topicPartition(), before.kafkaOffset());
                continue;
            }
            records.add(new SinkRecord(r.topic(), 0, r.keySchema(), r.key(), r.valueSchema(), r.value(), kafkaOffset++, r.timestamp(),
                    TimestampType.NO_TIMESTAMP_TYPE, r.headers()));
            TopicPartition tp = partitions.computeIfAbsent(r.topic(), topic -> new TopicPartition(topic, 0));
            if (runPartition != null && runPartition != r.sourcePartition()) {
                lastOfBatch.put(runPartition, runLast);
                lastHandedOver.put(runPartition, runLast);
            }
            runPartition = r.sourcePartition();
            runLast = new Pending(event, tp, kafkaOffset - 1);
            nextOffsets.computeIfAbsent(tp, t -> new long[1])[0] = kafkaOffset;
            boolean streamedRecord = SourceOffsets.streamed(r.sourceOffset());
            if (Envelope.isEnvelope(r.valueSchema()) && !streamedRecord) { // the copy's rows: changes are counted apart
                progress.rowMoved(tableOf(r), 1);
            } else if (RawTuples.is(r.valueSchema())) {
                progress.rowMoved(tableOf(r), ((Struct) r.value()).getInt32("rows"));
            }
            end |= SourceOffsets.endsSnapshot(r.sourceOffset());
            schemaChange |= appliesSchema(r);
            if (streamedRecord) {
                streamed++;
                if (!Heartbeats.is(r.valueSchema())) {
                    changes++;
                    newestStreamed = r; // a heartbeat is no change: it is neither counted nor has a source block
                }
            }
        }
        if (runPartition != null) {
            lastOfBatch.put(runPartition, runLast);
            lastHandedOver.put(runPartition, runLast);
        }
        long newestCommitMillis = newestStreamed == null ? 0
                : ((Struct) newestStreamed.value()).getStruct(Envelope.SOURCE).getInt64("ts_ms");
        synchronized (this) {
            lastOfBatch.forEach((partition, last) -> notYetDurable.computeIfAbsent(partition, p -> new ArrayDeque<>()).add(last));
            lastCommitter = committer;
        }
        if (end) {
            progress.phase("building indexes, constraints and triggers");
        }
        // A schema change is committed at once: once the target's schema is applied, a rerun must
        // resume from it rather than apply it again. Streamed changes are sent as soon as the source
        // has handed out all it had (a batch short of full), so latency stays low when the load is
        // light: in the background where the sink can (the engine reads on while the target writes,
        // and a change waits for no offsets file write), else made durable and waited for.
        boolean caughtUp = streamed > 0 && SourceOffsets.drained(events.size());
        boolean settle = end || schemaChange || (caughtUp && sendsInBackground == null);
        boolean send = caughtUp && !settle;
        boolean flush = settle || System.nanoTime() - lastFlush >= flushIntervalNanos;
        Map<TopicPartition, OffsetAndMetadata> current = new HashMap<>();
        nextOffsets.forEach((tp, next) -> current.put(tp, new OffsetAndMetadata(next[0])));
        Map<TopicPartition, Long> last = new HashMap<>();
        lastOfBatch.values().forEach(p -> last.merge(p.topicPartition(), p.kafkaOffset(), Math::max));
        Work work = new Work(records, current, settle, send, flush, streamed, changes, newestCommitMillis, last);
        while (!queue.offer(work, 100, TimeUnit.MILLISECONDS)) {
            throwIfFailed();
            if (deadline.passed()) {
                return false;
            }
        }
        if (flush) {
            lastFlush = System.nanoTime();
        }
        // Snapshot rows are handed over one batch at a time, as the sink's COPY loads keep their own pace.
        if ((settle || streamed < events.size()) && !work.await(this, deadline)) {
            return false;
        }
        if (markDurable(committer)) {
            // Streamed changes whose target keeps their positions are committed off the engine's thread, which reads the
            // source meanwhile; everything else before the engine goes on, as a schema change or the snapshot's progress must be.
            if (sendsInBackground != null && streamed == events.size() && !settle) {
                commits.soon(committer);
            } else {
                commits.now(committer);
            }
        }
        if (end) {
            snapshotDone.countDown();
        }
        return true;
    }

    /**
     * Marks the newest record of each source partition the sink has said is durable; returns
     * whether it marked any. The engine commits offsets only when a batch is ended then (and when
     * it stops), which lets the source confirm them.
     */
    private synchronized boolean markDurable(DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        boolean marked = false;
        for (ArrayDeque<Pending> batches : notYetDurable.values()) {
            Pending newest = null;
            while (!batches.isEmpty() && isDurable(batches.peekFirst())) {
                newest = batches.pollFirst();
            }
            if (newest != null) {
                committer.markProcessed(newest.event());
                marked = true;
            }
        }
        return marked;
    }

    private boolean isDurable(Pending p) {
        if (p.topicPartition() == null) {
            return true; // nothing of its partition went to this target
        }
        Long upTo = durable.get(p.topicPartition());
        return upTo != null && p.kafkaOffset() < upTo;
    }

    /**
     * The sink thread: puts each batch, and asks the sink up to where each topic is durable:
     * while changes stream, after every batch (the sink answers without waiting, from the target
     * transactions it has finished), otherwise every flush interval. When the batch must settle,
     * it waits until everything put is durable.
     */
    private void applyQueued() {
        // Only a summary of each batch is kept until it is durable: the records themselves may go.
        ArrayDeque<Streamed> notYetCounted = new ArrayDeque<>();
        Map<TopicPartition, OffsetAndMetadata> lastOffsets = Map.of();
        // Changes the sink was asked to send while it was busy: it is asked again until it takes them.
        boolean sendWaiting = false;
        try {
            while (!closed) {
                Work work = sendWaiting ? queue.poll(SEND_RETRY_MICROS, TimeUnit.MICROSECONDS) : queue.poll(100, TimeUnit.MILLISECONDS);
                if (work == null && sendWaiting) {
                    sendWaiting = !sendsInBackground.sendNow();
                    continue;
                }
                if (work == null) {
                    if (!notYetCounted.isEmpty()) {
                        // Idle with changes not yet durable (a burst ended on a full batch, or was sent in the background).
                        sink.preCommit(lastOffsets)
                                .forEach((tp, offset) -> durable.merge(tp, offset.offset(), Math::max));
                        countApplied(notYetCounted);
                    }
                    commitDurableWhileIdle();
                    drained = notYetCounted.isEmpty() && queue.isEmpty();
                    continue;
                }
                drained = false;
                sink.put(work.records());
                progress.bytesLoaded(bytesLoaded.getAsLong());
                lastOffsets = work.offsets();
                if (work.changes() > 0) {
                    notYetCounted.add(new Streamed(work.changes(), work.newestCommitMillis(), work.last()));
                }
                if (work.settle()) {
                    sink.flush(work.offsets());
                    sendWaiting = false;
                    work.offsets().forEach((tp, offset) -> durable.merge(tp, offset.offset(), Math::max));
                } else if (work.send() || sendWaiting) {
                    sendWaiting = !sendsInBackground.sendNow();
                    sink.preCommit(work.offsets()).forEach((tp, offset) -> durable.merge(tp, offset.offset(), Math::max));
                } else if (work.flush() || work.streamed() > 0) {
                    // The sink says up to where each topic is durable: a table loading in one transaction is not, until it commits.
                    sink.preCommit(work.offsets()).forEach((tp, offset) -> durable.merge(tp, offset.offset(), Math::max));
                }
                countApplied(notYetCounted);
                work.done().countDown();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
            LOG.debug("The sink failed", e);
        } catch (Error e) {
            failure.compareAndSet(null, new IllegalStateException(e));
            throw e;
        }
    }

    /**
     * Commits what became durable after the engine's last batch: with nothing new to hand over it
     * calls no handler (and commits no offsets on an empty poll), so the end of a burst (a full
     * batch, or one sent in the background) would otherwise wait for the next change to be
     * confirmed. While batches keep coming they are committed as each batch ends.
     */
    private void commitDurableWhileIdle() throws InterruptedException {
        DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer;
        synchronized (this) {
            committer = lastCommitter;
            if (committer == null || !markDurable(committer)) {
                return;
            }
        }
        commits.soon(committer);
    }

    private void countApplied(ArrayDeque<Streamed> notYetCounted) {
        while (!notYetCounted.isEmpty() && notYetCounted.peekFirst().isDurable(durable)) {
            Streamed applied = notYetCounted.pollFirst();
            changesApplied.addAndGet(applied.changes());
            lastAppliedCommitMillis = applied.newestCommitMillis();
        }
    }

    /** A batch's streamed changes: how many, the newest source commit time, and its last record's offset in each topic. */
    private record Streamed(long changes, long newestCommitMillis, Map<TopicPartition, Long> last) {
        boolean isDurable(Map<TopicPartition, Long> durable) {
            for (Map.Entry<TopicPartition, Long> e : last.entrySet()) {
                Long upTo = durable.get(e.getKey());
                if (upTo == null || e.getValue() >= upTo) {
                    return false;
                }
            }
            return true;
        }
    }

    private void throwIfFailed() {
        RuntimeException e = failure.get();
        if (e != null) {
            throw e;
        }
    }

    /** The error the sink stopped on; null while it works. */
    RuntimeException failure() {
        return failure.get();
    }

    /** Stops the sink thread after the batch it is putting (what it did not make durable the source sends again), and closes this target's transforms. */
    @Override
    public void close() {
        closed = true;
        try {
            sinkThread.join(TimeUnit.MINUTES.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        commits.close();
        transforms.close();
    }

    /**
     * Stops committing offsets off the engine's thread (after the commit under way and the one
     * asked for last): the engine commits what is marked as it stops, which must not meet one.
     */
    void beforeEngineStops() {
        commits.close();
    }

    /**
     * One batch for the sink thread, with each topic's next offset after it, whether it must be
     * durable before the engine goes on ({@code settle}), sent in the background ({@code send})
     * or durable offsets are wanted ({@code flush}), and the offset of its last record in each topic. Of its
     * {@code streamed} records, {@code changes} are changes (the others heartbeats).
     */
    private record Work(List<SinkRecord> records, Map<TopicPartition, OffsetAndMetadata> offsets, boolean settle, boolean send,
                        boolean flush, long streamed, long changes, long newestCommitMillis, Map<TopicPartition, Long> last,
                        CountDownLatch done) {
        Work(List<SinkRecord> records, Map<TopicPartition, OffsetAndMetadata> offsets, boolean settle, boolean send, boolean flush,
             long streamed, long changes, long newestCommitMillis, Map<TopicPartition, Long> last) {
            this(records, offsets, settle, send, flush, streamed, changes, newestCommitMillis, last, new CountDownLatch(1));
        }

        /**
         * Waits until the sink thread has put (and, if asked to settle, made durable) this batch, or
         * the deadline passes: returns whether it did. Rethrows the sink's failure.
         */
        boolean await(SinkHandoff handoff, Deadline deadline) throws InterruptedException {
            while (!done.await(100, TimeUnit.MILLISECONDS)) {
                handoff.throwIfFailed();
                if (deadline.passed()) {
                    return false;
                }
                if (!handoff.sinkThread.isAlive()) {
                    throw new IllegalStateException("The sink thread stopped");
                }
            }
            return true;
        }
    }

    /**
     * Whether the record applies a snapshot's pre- or post-data. A table's own post-data
     * (indexes after its rows) needs no flush: it is built in the background, and the end of the
     * snapshot builds whatever an interruption left out.
     */
    private static boolean appliesSchema(SourceRecord r) {
        if (r.valueSchema() == null || !SchemaChangeEvents.VALUE_SCHEMA.name().equals(r.valueSchema().name())) {
            return false;
        }
        String marker = ((Struct) r.value()).getStruct(Envelope.SOURCE).getString("snapshot");
        return !SourceInfo.Snapshot.LAST_IN_DATA_COLLECTION.code().equals(marker);
    }

    /** The newest event of a source partition not yet confirmed, and where it sits in its topic. */
    private record Pending(RecordChangeEvent<SourceRecord> event, TopicPartition topicPartition, long kafkaOffset) {
    }

    /** The source table of a topic's events, named once per topic. */
    private String tableOf(SourceRecord r) {
        String table = tableByTopic.get(r.topic());
        if (table == null) {
            Struct source = ((Struct) r.value()).getStruct("source");
            table = source.getString("schema") + "." + source.getString("table");
            tableByTopic.put(r.topic(), table);
        }
        return table;
    }

    /** Streamed changes durable on the target so far. */
    long changesApplied() {
        return changesApplied.get();
    }

    /** Source commit time of the newest change durable on the target, in epoch milliseconds; 0 before the first. */
    long lastAppliedCommitMillis() {
        return lastAppliedCommitMillis;
    }

    /** Whether the sink holds no batch and has made durable every change it was given (checked while it is idle). */
    boolean drained() {
        return drained;
    }

    CountDownLatch snapshotDone() {
        return snapshotDone;
    }
}
