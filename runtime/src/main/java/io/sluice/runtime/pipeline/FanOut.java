package io.sluice.runtime.pipeline;

import java.util.ArrayList;
import java.util.List;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Hands every batch of the one source to each target's {@link SinkHandoff}, and lets the source
 * confirm a record only once every target has made it durable: each target marks records as it
 * would alone, through a committer of its own here, and a record is marked for the engine when
 * the last target to hold it does, so the slot is confirmed at the oldest position all targets
 * hold. A target that is slow holds the others back through its bounded queue.
 */
final class FanOut implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private final List<SinkHandoff> targets;
    private final List<Votes> votes = new ArrayList<>();
    private final Agreement<RecordChangeEvent<SourceRecord>> agreement;
    private DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> engine;
    private boolean markedSinceFinished;

    FanOut(List<SinkHandoff> targets) {
        this.targets = List.copyOf(targets);
        this.agreement = new Agreement<>(targets.size(), e -> e.record().sourcePartition());
        for (int i = 0; i < targets.size(); i++) {
            votes.add(new Votes(i));
        }
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> events, DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        synchronized (this) {
            engine = committer;
        }
        agreement.handedOut(events);
        for (int i = 0; i < targets.size(); i++) {
            targets.get(i).handleBatch(events, votes.get(i));
        }
    }

    /** A target has made durable every record of the event's partition up to it. */
    private synchronized void durable(int target, RecordChangeEvent<SourceRecord> event) throws InterruptedException {
        RecordChangeEvent<SourceRecord> agreed = agreement.durable(target, event);
        if (agreed != null) {
            engine.markProcessed(agreed);
            markedSinceFinished = true;
        }
    }

    /** A target ends a batch: the engine's offsets are committed when any record was marked for it since the last time. */
    private synchronized void finished() throws InterruptedException {
        if (markedSinceFinished) {
            markedSinceFinished = false;
            engine.markBatchFinished();
        }
    }

    /** Before the engine stops, which commits what is marked itself: no target may be committing then. */
    void beforeEngineStops() {
        targets.forEach(SinkHandoff::beforeEngineStops);
    }

    /** One target's committer: what it marks counts as its vote. */
    private final class Votes implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
        private final int target;

        Votes(int target) {
            this.target = target;
        }

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record) throws InterruptedException {
            durable(target, record);
        }

        @Override
        public void markBatchFinished() throws InterruptedException {
            finished();
        }

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets sourceOffsets) {
            throw new UnsupportedOperationException("a target marks records without offsets of its own");
        }

        @Override
        public DebeziumEngine.Offsets buildOffsets() {
            throw new UnsupportedOperationException("a target marks records without offsets of its own");
        }
    }
}
