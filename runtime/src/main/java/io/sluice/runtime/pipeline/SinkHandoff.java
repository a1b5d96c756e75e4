package io.sluice.runtime.pipeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.sluice.connector.postgres.replication.ChangeRecords;
import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.runtime.progress.Progress;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.sink.postgres.PostgresSinkTask;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Hands the engine's records to the sink task in the same process. Offsets are marked only for
 * records the sink has made durable: every few seconds (so its COPY batches stay large) the sink
 * is asked, as Kafka Connect asks it ({@code preCommit}), up to which record each topic is
 * durable, and the newest such record of each source partition is marked, which lets the source
 * confirm progress — never before the rows are safe.
 */
final class SinkHandoff implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private final PostgresSinkTask sink;
    private final Progress progress;
    private final long flushIntervalNanos;
    private final CountDownLatch snapshotDone = new CountDownLatch(1);
    private final Map<Map<String, ?>, Pending> notYetDurable = new LinkedHashMap<>();
    /** Next offset of each topic, as if the records had come through Kafka. */
    private final Map<TopicPartition, long[]> nextOffsets = new java.util.HashMap<>();
    private final Map<String, TopicPartition> partitions = new java.util.HashMap<>();
    private long lastFlush = System.nanoTime();
    private long kafkaOffset;
    private final Map<String, String> tableByTopic = new java.util.HashMap<>();
    private final java.util.concurrent.atomic.AtomicLong changesApplied = new java.util.concurrent.atomic.AtomicLong();
    private volatile long lastAppliedCommitMillis;

    SinkHandoff(PostgresSinkTask sink, Progress progress, long flushIntervalMillis) {
        this.sink = sink;
        this.progress = progress;
        this.flushIntervalNanos = flushIntervalMillis * 1_000_000L;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> events, DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        List<SinkRecord> records = new ArrayList<>(events.size());
        boolean end = false;
        boolean schemaChange = false;
        int streamed = 0;
        long newestCommitMillis = 0;
        for (RecordChangeEvent<SourceRecord> event : events) {
            SourceRecord r = event.record();
            records.add(new SinkRecord(r.topic(), 0, r.keySchema(), r.key(), r.valueSchema(), r.value(), kafkaOffset++, r.timestamp(),
                    TimestampType.NO_TIMESTAMP_TYPE, r.headers()));
            TopicPartition tp = partitions.computeIfAbsent(r.topic(), topic -> new TopicPartition(topic, 0));
            notYetDurable.put(r.sourcePartition(), new Pending(event, tp, kafkaOffset - 1));
            nextOffsets.computeIfAbsent(tp, t -> new long[1])[0] = kafkaOffset;
            if (Envelope.isEnvelope(r.valueSchema())) {
                progress.rowMoved(tableOf(r), 1);
            } else if (RawTuples.is(r.valueSchema())) {
                progress.rowMoved(tableOf(r), ((Struct) r.value()).getInt32("rows"));
            }
            end |= r.sourceOffset() != null && Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED));
            schemaChange |= appliesSchema(r);
            if (r.sourceOffset() != null && r.sourceOffset().containsKey(ChangeRecords.COMMIT_LSN)) {
                streamed++;
                newestCommitMillis = ((Struct) r.value()).getStruct(Envelope.SOURCE).getInt64("ts_ms");
            }
        }
        if (end) {
            progress.phase("building indexes, constraints and triggers");
        }
        sink.put(records);
        // A schema change is committed at once: once the target's schema is applied, a rerun must
        // resume from it rather than apply it again.
        // Streamed changes are made durable batch by batch: the engine's batches grow with the load, so
        // latency stays low when it is light and target transactions grow large when it is heavy.
        if (end || schemaChange || streamed > 0 || System.nanoTime() - lastFlush >= flushIntervalNanos) {
            // The sink says up to where each topic is durable: a table loading in one transaction is not, until it commits.
            Map<TopicPartition, OffsetAndMetadata> current = new java.util.HashMap<>();
            nextOffsets.forEach((tp, next) -> current.put(tp, new OffsetAndMetadata(next[0])));
            Map<TopicPartition, OffsetAndMetadata> durable = sink.preCommit(current);
            var pending = notYetDurable.values().iterator();
            while (pending.hasNext()) {
                Pending p = pending.next();
                OffsetAndMetadata upTo = durable.get(p.topicPartition());
                if (upTo != null && p.kafkaOffset() < upTo.offset()) {
                    committer.markProcessed(p.event());
                    pending.remove();
                }
            }
            committer.markBatchFinished();
            lastFlush = System.nanoTime();
            if (streamed > 0) {
                changesApplied.addAndGet(streamed);
                lastAppliedCommitMillis = newestCommitMillis;
            }
        }
        progress.bytesLoaded(sink.bytesLoaded());
        if (end) {
            snapshotDone.countDown();
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

    CountDownLatch snapshotDone() {
        return snapshotDone;
    }
}
