package io.sluice.sink.postgres.apply;

import java.util.Map;
import java.util.function.BooleanSupplier;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.envelope.KeyRanges;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.sink.core.batch.TunedBatchSize.Closing;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.postgres.copy.RowEncoder;
import io.sluice.sink.postgres.schema.MissingColumns;
import io.sluice.sink.postgres.schema.TargetTables;
import io.sluice.sink.postgres.state.AppliedHeartbeats;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Streamed changes on their way into the target: each one the target does not have is coalesced
 * into the {@link PendingChanges} of its table and row; when the {@link SealPolicy} says so, what
 * is pending is sealed and handed to the {@link ChangeWriter}, which commits it as one target
 * transaction with the positions it reaches, and then the ledger marks what was taken when it
 * was sealed. A change at or below what the target holds ({@link TargetHolds}), or sent again by
 * a restarted source, is skipped. Used from the task's thread.
 */
public final class StreamedChanges implements AutoCloseable {

    private final PendingChanges pending = new PendingChanges();
    private final TargetKeyOrders keyOrders = new TargetKeyOrders();
    private final ChangeWriter writer;
    private final TargetHolds holds;
    private final SealPolicy policy;
    private final TargetTables tables;
    private final TunedBatchSize applyBatches;
    private final OffsetLedger ledger;
    private final ReplaySkips skips;
    private final MissingColumns missingColumns;
    private final boolean byKafkaOffset;
    /** Whether no snapshot rows are loading: only then does a committed transaction make everything taken durable. */
    private final BooleanSupplier loadsSettled;
    /** The transaction of the last change taken, to seal batches at transaction boundaries. */
    private Object lastTransaction;

    /**
     * @param byKafkaOffset whether the target keeps Kafka offsets (else source positions)
     * @param loadsSettled  whether no snapshot rows are gathered, loading or held
     */
    public StreamedChanges(ChangeWriter writer, TargetHolds holds, SealPolicy policy, TargetTables tables, TunedBatchSize applyBatches,
                           OffsetLedger ledger, ReplaySkips skips, MissingColumns missingColumns, boolean byKafkaOffset,
                           BooleanSupplier loadsSettled) {
        this.writer = writer;
        this.holds = holds;
        this.policy = policy;
        this.tables = tables;
        this.applyBatches = applyBatches;
        this.ledger = ledger;
        this.skips = skips;
        this.missingColumns = missingColumns;
        this.byKafkaOffset = byKafkaOffset;
        this.loadsSettled = loadsSettled;
    }

    /**
     * Whether a streamed event is on the target already (at or below its source's applied
     * position), counted as skipped. By Kafka offset, the router skipped what the target has:
     * positions from many partitions have no common order.
     */
    public boolean appliedAlready(String sourceName, SourcePosition position) {
        if (!byKafkaOffset && position != null && holds.isApplied(sourceName, position)) {
            skips.skipped();
            return true;
        }
        return false;
    }

    /**
     * A streamed change: skipped when the target has it (at or below its source's applied
     * position, or sent again by a restarted source), else coalesced with the pending changes of
     * its table.
     */
    public void change(SinkEvent event) {
        SourcePosition position = event.position();
        if (appliedAlready(event.sourceName(), position)) {
            return;
        }
        change(event.record(), event.tableTopic(), event.value(), event.op(), event.source(), position);
    }

    /**
     * A streamed change the target does not have by its source position: coalesced with the pending changes of its table.
     * (Tests give changes here directly.)
     *
     * @param topic the topic of the table's rows (not the record's, when it travelled with a barrier)
     */
    void change(SinkRecord record, String topic, Struct value, Operation op, Struct source, SourcePosition position) {
        if (byKafkaOffset && skips.replayed(SinkEvent.partitionOf(record), position)) {
            return; // sent again by the source after its restart: this partition has it already
        }
        Struct transaction = value.schema().field(Envelope.TRANSACTION) == null ? null : value.getStruct(Envelope.TRANSACTION);
        Object txId = transaction == null ? null : transaction.getString("id");
        Closing full = policy.beforeChange(pending.bytes(), applyBatches.bytes(), txId != null && txId.equals(lastTransaction));
        if (full != null) {
            seal(full);
        }
        lastTransaction = txId;
        String[] target = tables.resolve(topic, SourceInfo.schemaOf(source), SourceInfo.tableOf(source));
        String name = tables.name(target);
        Struct before = value.getStruct(Envelope.BEFORE);
        Struct after = value.getStruct(Envelope.AFTER);
        switch (op) {
            case TRUNCATE -> pending.truncate(name, target, tables.partitioned(target[0], target[1]));
            case CREATE, READ -> table(target, name, after.schema()).insert(after);
            case UPDATE -> table(target, name, after.schema()).update(before, after, EventHeaders.unchangedToast(record.headers()));
            case DELETE -> {
                if (before == null) {
                    throw new DataException("A delete on " + record.topic() + " carries no old row, so the row cannot be found on "
                            + "the target. Give the source table a primary key or REPLICA IDENTITY FULL");
                }
                table(target, name, before.schema()).delete(before);
            }
        }
        taken(record, source.getString("name"), position);
    }

    /**
     * The end of a re-synced chunk: after the changes before it, the target's rows in its key range
     * that it does not keep are deleted ({@link ChangeTable#keyRange}). Skipped like a change when
     * the target has it by position.
     */
    public void keyRange(SinkEvent event) {
        SourcePosition position = event.position();
        if (appliedAlready(event.sourceName(), position)) {
            return;
        }
        SinkRecord record = event.record();
        if (byKafkaOffset && skips.replayed(SinkEvent.partitionOf(record), position)) {
            return;
        }
        Struct value = event.value();
        Struct source = event.source();
        String[] target = tables.resolve(event.tableTopic(), SourceInfo.schemaOf(source), SourceInfo.tableOf(source));
        Schema keySchema = value.schema().field(KeyRanges.KEYS).schema().valueSchema();
        table(target, tables.name(target), keySchema).keyRange(KeyRanges.from(value), KeyRanges.to(value), KeyRanges.keys(value),
                KeyRanges.keyOrder(value));
        taken(record, source.getString("name"), position);
    }

    /**
     * A heartbeat: written with the next batch (alone, on an idle stream), so it counts as
     * applied only once the target has committed everything before it. By Kafka offset, the
     * offset after it is written too: its partition resumes past it.
     */
    public void heartbeat(SinkEvent event) {
        pending.heartbeat(event.value().getString("name"), new AppliedHeartbeats.Beat(Heartbeats.commitMillis(event.value()),
                Heartbeats.commitLsn(event.value())));
        if (byKafkaOffset) {
            pending.takenAt(event.partition(), event.offset() + 1, null);
        }
    }

    /** Records that a change was taken: by its Kafka offset or its source position, whichever the target keeps. */
    private void taken(SinkRecord record, String sourceName, SourcePosition position) {
        if (byKafkaOffset) {
            TopicPartition partition = SinkEvent.partitionOf(record);
            pending.takenAt(partition, record.kafkaOffset() + 1, position);
            skips.took(partition, position);
        } else {
            pending.taken(sourceName, position, record.headers().lastWithName(EventHeaders.TRANSACTION_END) != null);
        }
    }

    /** The pending changes of a target, opened anew when the rows' shape changed (what was pending in the old shape is written first). */
    private ChangeTable table(String[] target, String name, Schema rowSchema) {
        ChangeTable table = pending.table(name);
        if (table != null && (table.rowSchema() == rowSchema || table.rowSchema().equals(rowSchema))) {
            return table;
        }
        if (table != null && !table.isEmpty()) {
            writeAll();
        }
        missingColumns.add(target, rowSchema);
        table = new ChangeTable(target[0], target[1], rowSchema, new RowEncoder(name, rowSchema, tables.columns(target[0], target[1])),
                tables.keyColumns(target[0], target[1]), keyOrders);
        pending.open(table);
        return table;
    }

    /** Seals what is pending and sends it; with nothing pending, marks what was taken durable once the batch in flight is. */
    private void seal(Closing closing) {
        writer.throwIfFailed();
        Map<TopicPartition, Long> durable = durableOnCommit();
        if (!pending.any()) {
            if (durable != null) {
                writer.durableOnceWritten(durable);
            }
            return;
        }
        long bytes = pending.bytes();
        writer.send(pending.seal(), applyBatches.bytes(), bytes, closing, durable);
    }

    /**
     * Seals the pending changes once the oldest has waited the apply delay, unless the target is
     * still writing the batch before: then they keep gathering (group commit), and go in one
     * larger transaction when it is done, or when they reach the batch size.
     */
    public void applyIfDue() {
        Closing due = policy.onTick(pending.any(), pending.waitedMillis(), writer.writing());
        if (due != null) {
            seal(due);
        }
    }

    /**
     * Asks the worker to call {@code put} again by the time the oldest pending change is due:
     * without it, a task whose topics went quiet is called only when the worker commits offsets
     * ({@code offset.flush.interval.ms}, a minute by default), and its last changes would wait
     * that long on an idle stream.
     */
    public void wake(SinkTaskContext context) {
        if (context != null && pending.any()) {
            context.timeout(policy.wakeInMillis(pending.waitedMillis()));
        }
    }

    /**
     * Seals everything pending now, marked durable when it commits: the embedded runtime's source
     * has handed out all it had, so waiting the apply delay for more would only add latency. While
     * the transaction before is still being written it returns false, and the changes keep
     * gathering (group commit) until asked again.
     */
    public boolean sendNow() {
        Closing now = policy.onSourceDrained(pending.any(), writer.writing());
        if (now == null) {
            return false;
        }
        seal(now);
        return true;
    }

    /**
     * At an offset commit while only changes are coming: seals what is due, or, with nothing
     * pending, has everything taken so far marked durable once the transaction in flight commits.
     */
    public void durableNow() {
        if (!pending.any()) {
            seal(Closing.EARLY);
        } else {
            applyIfDue();
        }
    }

    /** Writes everything pending and waits until it and every batch before it are committed. */
    public void writeAll() {
        if (pending.any()) {
            seal(Closing.EARLY);
        }
        writer.awaitAll();
    }

    /** Whether changes are gathered and not yet sent. */
    public boolean anyPending() {
        return pending.any();
    }

    /**
     * Writes what is pending, then runs {@code work} in a transaction of its own that also writes
     * the event's position (see {@link ChangeWriter#alone}); the tables' shapes are read anew after.
     */
    public void alone(String source, SourcePosition position, Map<TopicPartition, Long> nextOffsets, String what,
                      ChangeWriter.TargetWork work) {
        writeAll();
        writer.alone(source, position, nextOffsets, what, work);
        pending.forgetTables();
        keyOrders.forget();
    }

    /**
     * What the ledger may mark once the changes taken so far are committed: every record taken so
     * far. Nothing, while snapshot rows are loading: those become durable by their own COPYs.
     */
    private Map<TopicPartition, Long> durableOnCommit() {
        return loadsSettled.getAsBoolean() ? ledger.takenSoFar() : null;
    }

    /** Streamed changes applied so far. */
    public long applied() {
        return writer.changesWritten();
    }

    @Override
    public void close() {
        writer.close();
    }
}
