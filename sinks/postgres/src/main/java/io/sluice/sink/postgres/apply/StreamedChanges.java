package io.sluice.sink.postgres.apply;

import java.util.Map;
import java.util.function.BooleanSupplier;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.batch.TunedBatchSize.Closing;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.postgres.copy.RowEncoder;
import io.sluice.sink.postgres.schema.MissingColumns;
import io.sluice.sink.postgres.schema.TargetTables;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Streamed changes on their way into the target: coalesced per table and row, applied as one
 * target transaction by the {@link ChangeApplier} — at a source transaction's boundary once the
 * tuned batch size is reached (inside a huge transaction only at twice the size), or once the
 * oldest has waited the apply delay and the batch before is done (group commit). Each transaction
 * moves the stored position with it, and marks in the ledger what was taken when it started.
 * A change at or below what the target stored, or sent again by a restarted source, is skipped.
 */
public final class StreamedChanges {

    private final ChangeApplier changes;
    private final TargetTables tables;
    private final TunedBatchSize applyBatches;
    private final OffsetLedger ledger;
    private final ReplaySkips skips;
    private final MissingColumns missingColumns;
    private final boolean byKafkaOffset;
    private final long maxDelayMillis;
    /** Whether no snapshot rows are loading: only then does a committed transaction make everything taken durable. */
    private final BooleanSupplier loadsSettled;
    /** The transaction of the last change taken, to apply batches at transaction boundaries. */
    private Object lastTransaction;

    /**
     * @param byKafkaOffset  whether the target keeps Kafka offsets (else source positions)
     * @param maxDelayMillis how long a change may wait for more to share its transaction
     * @param loadsSettled   whether no snapshot rows are gathered, loading or held
     */
    public StreamedChanges(ChangeApplier changes, TargetTables tables, TunedBatchSize applyBatches, OffsetLedger ledger, ReplaySkips skips,
                           MissingColumns missingColumns, boolean byKafkaOffset, long maxDelayMillis, BooleanSupplier loadsSettled) {
        this.changes = changes;
        this.tables = tables;
        this.applyBatches = applyBatches;
        this.ledger = ledger;
        this.skips = skips;
        this.missingColumns = missingColumns;
        this.byKafkaOffset = byKafkaOffset;
        this.maxDelayMillis = maxDelayMillis;
        this.loadsSettled = loadsSettled;
    }

    /**
     * Whether a streamed event is on the target already (at or below its source's applied
     * position), counted as skipped. By Kafka offset, the router skipped what the target has:
     * positions from many partitions have no common order.
     */
    public boolean appliedAlready(String sourceName, SourcePosition position) {
        if (!byKafkaOffset && position != null && changes.isApplied(sourceName, position)) {
            skips.skipped();
            return true;
        }
        return false;
    }

    /**
     * A streamed change the target does not have: coalesced with the pending changes of its table.
     *
     * @param topic the topic of the table's rows (not the record's, when it travelled with a barrier)
     */
    public void change(SinkRecord record, String topic, Struct value, String op, Struct source, SourcePosition position) {
        if (byKafkaOffset && skips.replayed(SinkEvent.partitionOf(record), position)) {
            return; // sent again by the source after its restart: this partition has it already
        }
        Struct transaction = value.schema().field(Envelope.TRANSACTION) == null ? null : value.getStruct(Envelope.TRANSACTION);
        Object txId = transaction == null ? null : transaction.getString("id");
        long pending = changes.pendingBytes();
        long size = applyBatches.bytes();
        // Apply at a source transaction's boundary when a batch is full; inside a huge transaction only at twice the size.
        if (pending >= 2 * size || (pending >= size && (txId == null || !txId.equals(lastTransaction)))) {
            changes.applyInBackground(durableOnCommit(), Closing.FULL);
        }
        lastTransaction = txId;
        String[] target = tables.resolve(topic, SourceInfo.schemaOf(source), SourceInfo.tableOf(source));
        String name = tables.name(target);
        Struct before = value.getStruct(Envelope.BEFORE);
        Struct after = value.getStruct(Envelope.AFTER);
        switch (op) {
            case "t" -> changes.truncate(name, target, tables.partitioned(target[0], target[1]));
            case "c", "r" -> table(target, name, after.schema()).insert(after);
            case "u" -> table(target, name, after.schema()).update(before, after, EventHeaders.unchangedToast(record.headers()));
            case "d" -> {
                if (before == null) {
                    throw new DataException("A delete on " + record.topic() + " carries no old row, so the row cannot be found on "
                            + "the target. Give the source table a primary key or REPLICA IDENTITY FULL");
                }
                table(target, name, before.schema()).delete(before);
            }
            default -> throw new DataException("Change event with unknown op=" + op + " on " + record.topic());
        }
        taken(record, source.getString("name"), position);
    }

    /** Records that a change was taken: by its Kafka offset or its source position, whichever the target keeps. */
    private void taken(SinkRecord record, String sourceName, SourcePosition position) {
        if (byKafkaOffset) {
            TopicPartition partition = SinkEvent.partitionOf(record);
            changes.takenAt(partition, record.kafkaOffset() + 1, position);
            skips.took(partition, position);
        } else {
            changes.taken(sourceName, position);
        }
    }

    /** The pending changes of a target, opened anew when the rows' shape changed (what was pending in the old shape is applied first). */
    private ChangeTable table(String[] target, String name, Schema rowSchema) {
        ChangeTable table = changes.table(name);
        if (table != null && (table.rowSchema() == rowSchema || table.rowSchema().equals(rowSchema))) {
            return table;
        }
        if (table != null && !table.isEmpty()) {
            changes.apply();
        }
        missingColumns.add(target, rowSchema);
        table = new ChangeTable(target[0], target[1], rowSchema, new RowEncoder(name, rowSchema, tables.columns(target[0], target[1])),
                tables.keyColumns(target[0], target[1]));
        changes.open(table);
        return table;
    }

    /**
     * Starts applying the pending changes once the oldest has waited the apply delay, unless the
     * target is still writing the batch before: then they keep gathering (group commit), and go
     * in one larger transaction when it is done, or when they reach the batch size.
     */
    public void applyIfDue() {
        if (changes.pendingMillis() >= maxDelayMillis && !changes.applying()) {
            changes.applyInBackground(durableOnCommit(), Closing.TIMEOUT);
        }
    }

    /**
     * Asks the worker to call {@code put} again by the time the oldest pending change is due:
     * without it, a task whose topics went quiet is called only when the worker commits offsets
     * ({@code offset.flush.interval.ms}, a minute by default), and its last changes would wait
     * that long on an idle stream.
     */
    public void wake(SinkTaskContext context) {
        if (context == null || !changes.hasPending()) {
            return;
        }
        long due = maxDelayMillis - changes.pendingMillis();
        // Due but the target is still writing the batch before: look again soon, as the batch may be done by then.
        context.timeout(due > 0 ? due : Math.max(1, Math.min(maxDelayMillis, 10)));
    }

    /**
     * Starts applying everything pending now, and marks it durable when it commits: the embedded
     * runtime's source has handed out all it had, so waiting the apply delay for more would only
     * add latency. While the transaction before is still being written it returns false, and the
     * changes keep gathering (group commit) until asked again.
     */
    public boolean sendNow() {
        if (changes.hasPending() && changes.applying()) {
            return false;
        }
        changes.applyInBackground(durableOnCommit(), Closing.EARLY);
        return true;
    }

    /**
     * At an offset commit while only changes are coming: starts what is due, or, with nothing
     * pending, has everything taken so far marked durable once the transaction in flight commits.
     */
    public void durableNow() {
        if (!changes.hasPending()) {
            changes.applyInBackground(durableOnCommit());
        } else {
            applyIfDue();
        }
    }

    /**
     * What to do once the changes taken so far are committed: mark every record taken so far as
     * durable. Nothing, while snapshot rows are loading: those become durable by their own COPYs.
     */
    private Runnable durableOnCommit() {
        if (!loadsSettled.getAsBoolean()) {
            return () -> { };
        }
        Map<TopicPartition, Long> upTo = ledger.takenSoFar();
        return () -> ledger.markDurable(upTo);
    }

    /** The applier, for work that goes in a transaction of its own in order with the changes (schema changes, reloads). */
    public ChangeApplier applier() {
        return changes;
    }

    /** Streamed changes applied so far. */
    public long applied() {
        return changes.rowsApplied();
    }
}
