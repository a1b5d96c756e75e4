package io.sluice.sink.postgres;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SequenceEvents;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.batch.RememberedSizes;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.core.routing.SinkWriter;
import io.sluice.sink.postgres.apply.ChangeWriter;
import io.sluice.sink.postgres.apply.SealPolicy;
import io.sluice.sink.postgres.apply.TargetHolds;
import io.sluice.sink.postgres.apply.SequenceAdvance;
import io.sluice.sink.postgres.apply.StreamedChanges;
import io.sluice.sink.postgres.connections.ReplicaRole;
import io.sluice.sink.postgres.copy.CopyLoader;
import io.sluice.sink.postgres.copy.SnapshotLoads;
import io.sluice.sink.postgres.schema.MissingColumns;
import io.sluice.sink.postgres.schema.SchemaApplier;
import io.sluice.sink.postgres.schema.TargetTables;
import io.sluice.sink.postgres.state.BatchSizes;
import io.sluice.sink.postgres.state.KafkaOffsets;
import io.sluice.sink.core.pgstate.PostgresBarrierStore;
import io.sluice.sink.postgres.state.SinkTables;
import io.sluice.sink.postgres.subset.SubsetGate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL sink's {@link SinkWriter}: hands each event to the part that writes it —
 * snapshot rows to {@link SnapshotLoads} (binary COPY on several connections, durable by epoch),
 * streamed changes to {@link StreamedChanges} (set-based target transactions at the source's
 * transaction boundaries, durable when they commit), schema events to {@link SchemaEvents}.
 * The first streamed event ends the snapshot: every row is made durable before it.
 */
final class PostgresWriter implements SinkWriter, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresWriter.class);

    private final TargetTables tables;
    private final SchemaApplier schema;
    private final TunedBatchSize copyBatches;
    private final TunedBatchSize applyBatches;
    private final BatchSizes batchSizes;
    private final TargetHolds holds;
    private final SnapshotLoads loads;
    private final StreamedChanges changes;
    private final SchemaEvents schemaEvents;
    private final BarrierTruncates truncates;
    private final OffsetLedger ledger;
    private final ReplaySkips skips;
    /** Judges a staging subset's streamed rows. */
    private final SubsetGate subset;
    /** Whether streamed changes have begun: the snapshot's rows are all in. */
    private volatile boolean streaming;

    /**
     * @param offsets  the target's Kafka offsets, where it keeps them (else null)
     * @param barriers where the gate keeps barriers, to release one in the transaction of its event's work
     */
    PostgresWriter(PostgresSinkConfig config, SinkTables state, KafkaOffsets offsets, OffsetLedger ledger, ReplaySkips skips,
                   BarrierGate gate, PostgresBarrierStore barriers) {
        this.ledger = ledger;
        this.skips = skips;
        boolean byKafkaOffset = offsets != null;
        tables = new TargetTables(config.endpoint(), config.tableNameFormat(), PostgresSinkConfig.TABLE_NAME_FORMAT);
        // Where tuning starts: where the last run's ended (read as the sink starts), unless sizes are fixed.
        batchSizes = config.batchTuning().isPresent() ? state.batchSizes(config.endpoint()) : null;
        RememberedSizes remembered = batchSizes != null ? batchSizes : RememberedSizes.NONE;
        copyBatches = new TunedBatchSize("snapshot COPY", config.copyBatchTuning(), config.batchBytes(), remembered, "snapshot-copy",
                config.copyParallelism());
        applyBatches = new TunedBatchSize("stream apply", config.batchTuning(), config.batchBytes(), remembered, "stream-apply");
        schema = new SchemaApplier(config.endpoint(), config.copyParallelism(), config.maintenanceWorkMem(), config.vacuum());
        CopyLoader loader = new CopyLoader(config.endpoint(), config.copyParallelism(), config.replicaRole(), config.loadBufferBytes(),
                copyBatches, offsets);
        MissingColumns missingColumns = new MissingColumns(tables, config.schemaApply(), loader::execute, this::columnsAdded);
        loads = new SnapshotLoads(tables, loader, copyBatches, ledger, missingColumns, byKafkaOffset);
        ChangeWriter writer = new ChangeWriter(config.endpoint(), state.positions(), offsets,
                new ReplicaRole(config.endpoint(), config.replicaRole()), config.applyRetryTimeoutMillis(),
                PostgresSinkConfig.APPLY_RETRY_TIMEOUT, applyBatches, ledger);
        holds = new TargetHolds(writer, state.positions(), offsets);
        changes = new StreamedChanges(writer, holds, new SealPolicy(config.applyMaxDelayMillis()), tables, applyBatches, ledger, skips,
                missingColumns, byKafkaOffset, loads::settled);
        BarrierReleases releases = new BarrierReleases(gate, barriers);
        schemaEvents = new SchemaEvents(config, tables, loads, changes, schema, state, releases, ledger, this::beginStreaming);
        truncates = new BarrierTruncates(tables, loads, changes, releases, byKafkaOffset);
        subset = new SubsetGate(config.endpoint(), tables, !byKafkaOffset);
    }

    @Override
    public void beforePut(Collection<SinkRecord> records) throws InterruptedException {
        if (SubsetGate.marked(records)) {
            beginStreaming(); // judged against the target's rows: the snapshot's must all be in
            if (subset.remembersTooMuch()) {
                writeAll();
            }
        } else if (!subset.active()) {
            return; // no staging subset: one look at each record's headers is all it costs
        }
        subset.judge(records);
    }

    private void columnsAdded() {
        loads.forgetChecks();
    }

    @Override
    public void write(SinkEvent event) throws InterruptedException {
        SinkRecord record = event.record();
        switch (event.kind()) {
            case TOMBSTONE -> { } // deletes are carried by the delete event before it
            case SNAPSHOT_ROW -> loads.row(record, event.value(), event.source());
            case RAW_ROWS -> loads.raw(record, event.value());
            case RELOAD -> {
                if (event.barrier() != null) {
                    truncates.emptyForReload(event);
                } else {
                    loads.emptyForReload(tables.resolve(record.topic(), event.source().getString("schema"),
                            event.source().getString("table")));
                }
            }
            case CHANGE -> {
                beginStreaming();
                if (!subset.keeps(event)) {
                    return; // outside the staging subset
                }
                if (event.barrier() != null && event.op() == Operation.TRUNCATE) {
                    // On a cluster, after every partition's rows before it: emptied, and released, in one transaction.
                    truncates.truncate(event);
                } else {
                    changes.change(event);
                }
            }
            case KEY_RANGE -> {
                beginStreaming();
                changes.keyRange(event);
            }
            case SEQUENCES -> advanceSequences(record, event.value());
            case HEARTBEAT -> changes.heartbeat(event);
            case SCHEMA_CHANGE -> {
                subset.schemaChanged();
                schemaEvents.apply(event);
            }
        }
    }

    @Override
    public void applySchemaEvent(SinkEvent event) throws InterruptedException {
        write(event);
    }

    /** Makes every snapshot row durable before the first streamed change, and reads the target's keys again (post-data made them). */
    private void beginStreaming() throws InterruptedException {
        if (!streaming) {
            loads.finish();
            tables.invalidate();
            streaming = true;
        }
    }

    /**
     * Moves the target's sequences forward to the source's values, at once and outside the
     * changes' transactions: a sequence only moves forward, so it needs no order with the rows.
     */
    private void advanceSequences(SinkRecord record, Struct value) {
        List<SequenceEvents.Value> values = SequenceEvents.values(value);
        String sql = SequenceAdvance.sql(values);
        if (sql != null) {
            try {
                loads.execute(sql, "Moving " + values.size() + " sequences forward to the source's values");
            } catch (ConnectException e) {
                // The next values come within sequences.interval.ms and carry these; rows must not wait for them.
                LOG.warn("{}; the next values the source sends move them", e.getMessage());
            }
        }
        ledger.durableAt(SinkEvent.partitionOf(record), record.kafkaOffset());
    }

    /** Fails with what went wrong in the background (building indexes and constraints), if anything did. */
    void checkFailures() {
        schema.checkFailures();
    }

    @Override
    public void afterPut(SinkTaskContext context) {
        changes.applyIfDue();
        changes.wake(context);
    }

    /** Another task may have changed the target's tables: what this one knows of them is read again. */
    @Override
    public void tablesChangedElsewhere() {
        if (changes.anyPending()) {
            changes.writeAll();
        }
        tables.forgetTargets();
        loads.forgetChecks();
    }

    /** Sends every batch, commits open frozen loads, waits for every COPY and every change. */
    @Override
    public void writeAll() {
        changes.writeAll();
        subset.written();
        schema.checkFailures();
        try {
            loads.sendAndAwait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while flushing", e);
        }
    }

    /**
     * Whether what was taken can be sent without waiting for it: only streamed changes, while no
     * snapshot rows are loading (their loads become durable only by writing all and waiting).
     */
    boolean sendsInBackground() {
        return streaming && loads.settled();
    }

    /** Starts applying the streamed changes taken so far; false while the transaction before is still being written. */
    boolean sendNow() {
        schema.checkFailures();
        return changes.sendNow();
    }

    /**
     * What is durable now, never waiting for the target: while only streamed changes are coming,
     * it starts applying what has waited long enough, and earlier target transactions have marked
     * what they made durable. While snapshot rows are loading, it ends an epoch and confirms the
     * newest whose batches are all committed; the ledger's holds keep each frozen load still open
     * from being reported: its rows become durable all at once when the table's last rows are in.
     * Open loads stay open, so their tables keep loading frozen.
     */
    @Override
    public void durableNow() {
        if (streaming && loads.settled()) {
            schema.checkFailures();
            changes.durableNow();
            return;
        }
        changes.writeAll();
        schema.checkFailures();
        try {
            loads.confirmEpochs();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while confirming loaded rows", e);
        }
    }

    /**
     * What the target has of these partitions, for the task to resume them after it: runs and
     * positions go to the skips here; the Kafka offsets after the last changes it has are returned.
     */
    Map<TopicPartition, Long> resume(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> applied = holds.appliedOffsets(partitions);
        Map<TopicPartition, SourcePosition> positions = holds.appliedPartitionPositions(partitions);
        Map<TopicPartition, NavigableMap<Long, Long>> runs = holds.loadedRuns(partitions);
        for (TopicPartition tp : partitions) {
            skips.resume(tp, applied.get(tp), runs.get(tp), positions.get(tp));
        }
        if (skips.partitionsWithLoadedRuns() > 0) {
            LOG.info("Snapshot rows the target has already are skipped in {} partition(s)", skips.partitionsWithLoadedRuns());
        }
        if (!applied.isEmpty()) {
            LOG.info("Resuming {} partition(s) after the changes the target has: {}", applied.size(), applied);
        }
        return applied;
    }

    /** Partitions taken away: what was known of them goes. */
    void forget(Collection<TopicPartition> partitions) {
        loads.forget(partitions);
    }

    /** The batch size in use and its tuning, for a progress display: snapshot COPYs, then streamed changes. */
    String batchStatus() {
        return streaming ? applyBatches.status() : copyBatches.status();
    }

    TunedBatchSize copyBatchSize() {
        return copyBatches;
    }

    TunedBatchSize applyBatchSize() {
        return applyBatches;
    }

    long rowsLoaded() {
        return loads.rowsLoaded();
    }

    long bytesLoaded() {
        return loads.bytesLoaded();
    }

    long changesApplied() {
        return changes.applied();
    }

    @Override
    public void close() {
        subset.close();
        changes.close();
        loads.close();
        schema.close();
        tables.close();
        if (batchSizes != null) {
            batchSizes.close();
        }
    }
}
