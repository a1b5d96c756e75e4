package io.sluice.sink.core.routing;

import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * What a sink implements; the sink core ({@link RecordRouter}, the
 * {@link io.sluice.sink.core.ledger.OffsetLedger ledger}, {@link io.sluice.sink.core.position.ReplaySkips
 * skips}, {@link io.sluice.sink.core.barrier.BarrierGate barriers}, {@link io.sluice.sink.core.deadletter.DeadLetters
 * dead letters}, the {@link io.sluice.sink.core.batch.TunedBatchSize batch tuner}) does the rest.
 *
 * <h2>The contract</h2>
 * <ol>
 * <li><b>Write this.</b> {@link #write} gets every event the target does not have yet, in the
 *     order of its partition: snapshot rows, streamed changes, reloads, sequence values,
 *     tombstones. It may only put the event into a batch (a COPY buffer, a {@code _bulk} body,
 *     an outbox insert) and return; batches are bounded in bytes and sized by the tuner, and sent
 *     when full or due. A batch notes the ledger's {@linkplain io.sluice.sink.core.ledger.OffsetLedger#epoch()
 *     epoch} when it gets its first record. An event the target cannot take is refused with a
 *     {@code DataException} that says why; the core sends it to the dead-letter queue or stops
 *     the task, and loses nothing either way. A {@linkplain SinkEvent.Kind#HEARTBEAT heartbeat}
 *     is written where the target keeps its position, with the writes around it (alone on an idle
 *     stream): it must become durable only once the target took it, so that a target that is down
 *     shows as growing end-to-end lag even while the source writes nothing.</li>
 * <li><b>Apply this schema event.</b> {@link #applySchemaEvent} gets DDL and a snapshot's
 *     schema marks, in order with the writes around it: what the target needs before the rows
 *     after it (a table, a column, an index, a mapping) is there when it returns, or the writes
 *     after it wait for it.</li>
 * <li><b>What is durable now.</b> {@link #durableNow} is called at each offset commit. It must
 *     not wait for the target: it starts what is due, and tells the ledger what is durable —
 *     writes that finish in order (one target transaction after another) mark
 *     {@linkplain io.sluice.sink.core.ledger.OffsetLedger#takenSoFar() what was taken when they
 *     started}; writes that finish out of order (parallel COPYs, bulk requests in flight)
 *     {@linkplain io.sluice.sink.core.ledger.OffsetLedger#endEpoch() end the epoch} and confirm
 *     the oldest epoch that still has a write unfinished. A record is durable when a restart of
 *     the target or the task cannot lose it; nothing else may be reported.</li>
 * <li><b>Write everything.</b> {@link #writeAll} sends every batch and waits until all of it
 *     is durable (the core then marks every record taken as durable): before a partition waits
 *     at a barrier, at Connect's {@code flush}, before partitions are taken away.</li>
 * </ol>
 * A write may be repeated after a crash (at least once): writes are idempotent, or skipped by
 * what the target stores (a source position, a Kafka offset, an external version).
 */
public interface SinkWriter {

    /**
     * Called with each batch of records Connect hands over, before any of them is written: a sink
     * that judges records by the ones around them (a staging subset's rows) looks at them here.
     */
    default void beforePut(java.util.Collection<org.apache.kafka.connect.sink.SinkRecord> records) throws InterruptedException {
    }

    /** Writes (or gathers into a batch) one event the target does not have yet. */
    void write(SinkEvent event) throws InterruptedException;

    /** Applies a schema event ({@link SinkEvent.Kind#SCHEMA_CHANGE}) in order with the writes around it. */
    void applySchemaEvent(SinkEvent event) throws InterruptedException;

    /** Brings the ledger up to what is durable now, without waiting; starts what is due. */
    void durableNow();

    /** Sends every batch and waits until everything written so far is durable. */
    void writeAll() throws InterruptedException;

    /**
     * Called after each batch of records Connect handed over: starts what is due and, when
     * something waits for time to pass (a batch's delay), asks the context to call again.
     */
    default void afterPut(SinkTaskContext context) {
    }

    /** Another task changed the target's tables (a barrier released elsewhere): what is known of them is read again. */
    default void tablesChangedElsewhere() throws InterruptedException {
    }
}
