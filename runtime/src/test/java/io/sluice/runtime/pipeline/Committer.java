package io.sluice.runtime.pipeline;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import org.apache.kafka.connect.source.SourceRecord;

/** What the engine was told: records whose offsets may be committed, and batch ends. */
final class Committer implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
    final List<SourceRecord> marked = new CopyOnWriteArrayList<>();
    final List<String> finishedOn = new CopyOnWriteArrayList<>();
    volatile int batchesFinished;

    @Override
    public void markProcessed(RecordChangeEvent<SourceRecord> record) {
        marked.add(record.record());
    }

    @Override
    public void markBatchFinished() {
        finishedOn.add(Thread.currentThread().getName());
        batchesFinished++;
    }

    @Override
    public void markProcessed(RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets sourceOffsets) {
        markProcessed(record);
    }

    @Override
    public DebeziumEngine.Offsets buildOffsets() {
        throw new UnsupportedOperationException();
    }
}
