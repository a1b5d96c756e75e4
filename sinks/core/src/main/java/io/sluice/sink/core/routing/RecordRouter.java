package io.sluice.sink.core.routing;

import java.util.Collection;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.metrics.AppliedChanges;
import io.sluice.sink.core.position.ReplaySkips;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * What a sink task does with each record Connect hands over ({@code put}), the same for every
 * sink: a partition held at a barrier is passed over (its records come again); a record the
 * target has already is skipped; a barrier record lets its partition go on or holds it; an event
 * waiting for its barrier's partitions is held; the rest go to the {@link SinkWriter} — schema
 * events to {@link SinkWriter#applySchemaEvent}, everything else to {@link SinkWriter#write} —
 * and what it refuses to the dead letters. A schema event's barrier is released by the writer; a
 * row event's (a truncation's) by the writer in its own work, or here once it is written. Every
 * record handled is taken in the ledger.
 */
public final class RecordRouter {

    private final SinkWriter writer;
    private final OffsetLedger ledger;
    private final ReplaySkips skips;
    private final BarrierGate gate;
    private final DeadLetters deadLetters;
    private final AppliedChanges applied;

    public RecordRouter(SinkWriter writer, OffsetLedger ledger, ReplaySkips skips, BarrierGate gate, DeadLetters deadLetters) {
        this(writer, ledger, skips, gate, deadLetters, null);
    }

    /** @param applied told of each change handed to the writer, to count it once durable; null counts nothing */
    public RecordRouter(SinkWriter writer, OffsetLedger ledger, ReplaySkips skips, BarrierGate gate, DeadLetters deadLetters,
                        AppliedChanges applied) {
        this.applied = applied;
        this.writer = writer;
        this.ledger = ledger;
        this.skips = skips;
        this.gate = gate;
        this.deadLetters = deadLetters;
    }

    public void put(Collection<SinkRecord> records, SinkTaskContext context) throws InterruptedException {
        writer.beforePut(records);
        for (SinkRecord record : records) {
            TopicPartition partition = SinkEvent.partitionOf(record);
            long offset = record.kafkaOffset();
            if (gate.holds(partition)) {
                continue; // held at a barrier: its records come again when it goes on
            }
            if (skips.onTargetByOffset(partition, offset)) {
                // Delivered again after a crash or a rebalance. Below the stored offset it is durable, so Connect may commit
                // past it; a snapshot row in a committed write's run becomes durable with the records around it.
                ledger.taken(partition, offset);
                if (skips.belowApplied(partition, offset)) {
                    ledger.durableAt(partition, offset);
                }
                continue;
            }
            if (Barriers.is(record.valueSchema()) && record.value() instanceof Struct barrier) {
                if (passes(context, barrier.getString("id"), partition, offset)) {
                    ledger.taken(partition, offset);
                }
                continue;
            }
            Barriers.Barrier waitsFor = record.value() == null ? null : Barriers.of(record.headers());
            if (waitsFor != null && gate.isReleased(waitsFor.id())) {
                skips.skipped(); // applied before a restart or a rebalance
                ledger.taken(partition, offset);
                continue;
            }
            if (waitsFor != null && !gate.ready(context, partition, offset, waitsFor)) {
                continue;
            }
            route(record);
            if (waitsFor != null && !SchemaChangeEvents.VALUE_SCHEMA.name().equals(record.valueSchema().name())
                    && !gate.isReleased(waitsFor.id())) {
                // A row event that waited at its barrier (a truncation) and that the writer did not release with its own work:
                // once it is written, the rows after it may go.
                writer.writeAll();
                gate.release(waitsFor.id());
            }
            ledger.taken(partition, offset);
        }
        writer.afterPut(context);
        gate.check(context);
        deadLetters.logIfDue();
    }

    private void route(SinkRecord record) throws InterruptedException {
        SinkEvent event = null;
        try {
            event = SinkEvent.of(record);
            if (event.kind() == SinkEvent.Kind.HEARTBEAT) {
                if (applied != null) {
                    applied.heartbeat(event.partition(), event.offset(), Heartbeats.commitMillis(event.value()));
                }
                writer.write(event); // where the target keeps its position: durable once the target took it
                return;
            }
            if (event.kind() == SinkEvent.Kind.SCHEMA_CHANGE) {
                writer.applySchemaEvent(event);
            } else {
                writer.write(event);
                if (applied != null && event.kind() == SinkEvent.Kind.CHANGE && event.op() != null) {
                    applied.taken(event.partition(), event.offset(), event.table(), opLabel(event.op()), commitMillis(event));
                }
            }
        } catch (DataException e) {
            deadLetters.reject(record, event == null ? null : event.table(), e);
        }
    }

    /** An operation as the metrics name it: insert, update, delete, truncate, read. */
    private static String opLabel(Operation op) {
        return op == Operation.CREATE ? "insert" : op.name().toLowerCase(java.util.Locale.ROOT);
    }

    private static long commitMillis(SinkEvent event) {
        Struct source = event.source();
        if (source == null || source.schema().field("ts_ms") == null) {
            return 0;
        }
        Long millis = source.getInt64("ts_ms");
        return millis == null ? 0 : millis;
    }

    /**
     * Whether a partition goes past a barrier record: at once when the barrier's event is applied;
     * else every record before it is made durable and the partition is held there.
     */
    private boolean passes(SinkTaskContext context, String barrier, TopicPartition partition, long offset) throws InterruptedException {
        if (gate.isReleased(barrier)) {
            writer.tablesChangedElsewhere();
            return true;
        }
        writer.writeAll();
        ledger.allTakenDurable();
        gate.holdAtBarrier(context, partition, offset, barrier);
        return false;
    }
}
