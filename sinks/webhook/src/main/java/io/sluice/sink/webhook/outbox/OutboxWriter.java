package io.sluice.sink.webhook.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.retry.RetryPolicy;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.batch.InFlightBatches;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.core.routing.SinkWriter;
import io.sluice.sink.webhook.payload.ChangePayload;
import io.sluice.sink.webhook.state.HeartbeatTable;
import io.sluice.sink.webhook.state.OutboxTable;
import io.sluice.sink.webhook.state.PositionTable;
import io.sluice.sink.webhook.state.SnapshotTable;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.OutboxEntry;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook sink's writer: each change goes once into the outbox, in batches bounded in bytes
 * (sized by the batch tuner): a change is written at once when no batch is being written, else
 * it joins the next batch, which goes when the one before commits, when full, or after a short delay. Batches commit one after
 * another on a thread of their own, each marking in the ledger what was taken when it was handed
 * over, so the source is confirmed past a change only once the outbox holds it. Deliveries are
 * the delivery loops' business, not the writer's: a receiver that is down holds nothing here.
 */
public final class OutboxWriter implements SinkWriter, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OutboxWriter.class);

    /**
     * A batch handed to the appending thread: its changes, the newest position of each partition
     * among them, and (when kept) the offsets after every record taken by then.
     */
    private record Handed(List<OutboxEntry> entries, Map<TopicPartition, SourcePosition> positions, Map<TopicPartition, Long> offsets,
                          Map<String, Long> heartbeats, long bytes) {
    }

    /** Batches handed over and not yet committed, at most: one being appended, two waiting. */
    private static final int OUTSTANDING = 3;

    private final StateDatabase state;
    private final OutboxTable outbox;
    private final HeartbeatTable heartbeats;
    private final SnapshotTable snapshots;
    private final BarrierGate gate;
    private final ReplaySkips skips;
    private final PositionTable positions;
    private final OffsetLedger ledger;
    private final TunedBatchSize batchSize;
    private final long maxDelayMillis;
    private final long retryTimeoutMillis;
    private final LongConsumer appended;
    private final boolean keepOffsets;
    private final InFlightBatches<Handed, Long> handed;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private boolean warnedOwnTables;
    private Connection connection;

    private List<OutboxEntry> batch = new ArrayList<>();
    private Map<TopicPartition, SourcePosition> batchPositions = new java.util.HashMap<>();
    /** Per partition, the offset after the last record whose change is in the batch (the ledger counts it taken only after). */
    private Map<TopicPartition, Long> batchOffsets = new java.util.HashMap<>();
    /** Per source, the commit time of the newest heartbeat gathered: written after the batch's rows, in the state database. */
    private Map<String, Long> batchHeartbeats = new java.util.HashMap<>();
    private long batchBytes;
    private long batchStartedMillis;

    /**
     * @param skips    the changes the outbox has already (their positions are loaded from the state database)
     * @param positions where the newest position of each partition is written with the changes
     * @param appended told the number of the last outbox row after each commit (wakes this task's delivery loops)
     * @param keepOffsets whether each batch writes, with its rows, the Kafka offset after the last record taken of each partition
     */
    public OutboxWriter(StateDatabase state, OffsetLedger ledger, ReplaySkips skips, PositionTable positions, BarrierGate gate,
                        TunedBatchSize batchSize, long maxDelayMillis, long retryTimeoutMillis, LongConsumer appended, boolean keepOffsets) {
        this.state = state;
        this.skips = skips;
        this.positions = positions;
        this.gate = gate;
        this.snapshots = new SnapshotTable(state);
        this.outbox = new OutboxTable(state);
        this.heartbeats = new HeartbeatTable(state);
        this.ledger = ledger;
        this.batchSize = batchSize;
        this.maxDelayMillis = maxDelayMillis;
        this.retryTimeoutMillis = retryTimeoutMillis;
        this.appended = appended;
        this.keepOffsets = keepOffsets;
        this.handed = new InFlightBatches<>("the webhook outbox", "sluice-webhook-outbox", 1, OUTSTANDING, batchSize, ledger, this::append,
                null);
    }

    @Override
    public void write(SinkEvent event) throws InterruptedException {
        rethrow();
        if (event.source() != null && state.schema().equals(event.source().getString("schema"))) {
            if (!warnedOwnTables) {
                warnedOwnTables = true;
                LOG.warn("Changes of the webhook sink's own tables ({}.*) reach it: the state database is the source, and its "
                        + "tables are not left out of the source's tables. They are not delivered (each delivery would make more); "
                        + "add {}.* to the source's table.exclude.list", state.schema(), state.schema());
            }
            return;
        }
        if (event.kind() == SinkEvent.Kind.HEARTBEAT) {
            heartbeat(event);
            return;
        }
        SourcePosition position = event.kind() == SinkEvent.Kind.CHANGE ? event.position() : null;
        if (skips.replayed(event.partition(), position)) {
            return; // sent again by a source that restarted: the outbox has it
        }
        OutboxEntry entry = ChangePayload.of(event);
        skips.took(event.partition(), position);
        if (entry == null) {
            return;
        }
        if (position != null) {
            batchPositions.merge(event.partition(), position, SourcePosition::newer);
        }
        if (keepOffsets) {
            batchOffsets.merge(event.partition(), event.offset() + 1, Math::max);
        }
        if (nothingGathered()) {
            batchStartedMillis = System.currentTimeMillis();
        }
        batch.add(entry);
        batchBytes += bytesOf(entry);
        if (batchBytes >= batchSize.bytes()) {
            hand(true);
        } else if (!handed.busy()) {
            // Nothing is being written: this change goes at once, and the next ones gather while it commits. A change
            // waits for no timer and no next record, and under load batches grow by themselves.
            hand(false);
        }
    }

    /**
     * A heartbeat joins the batch: it is durable once the state database took the batch, so one
     * that is down shows as growing end-to-end lag even while the source writes nothing.
     */
    private void heartbeat(SinkEvent event) {
        if (nothingGathered()) {
            batchStartedMillis = System.currentTimeMillis();
        }
        batchHeartbeats.merge(event.value().getString("name"), Heartbeats.commitMillis(event.value()), Math::max);
        if (!handed.busy()) {
            hand(false);
        }
    }

    /** Whether nothing waits to be handed over: no change and no heartbeat. */
    private boolean nothingGathered() {
        return batch.isEmpty() && batchHeartbeats.isEmpty();
    }

    /**
     * Subscribers get row changes, not schema events; but a snapshot's first and last events are
     * recorded (once everything before them is in the outbox), so the {@code sluice} command knows
     * where a pipeline is, and a barrier's event releases its barrier.
     */
    @Override
    public void applySchemaEvent(SinkEvent event) throws InterruptedException {
        SourceInfo.Snapshot marker = event.snapshotMarker();
        if (marker == SourceInfo.Snapshot.FIRST || marker == SourceInfo.Snapshot.LAST) {
            writeAll();
            try (Connection c = state.open("snapshot records")) {
                if (marker == SourceInfo.Snapshot.FIRST) {
                    snapshots.started(c, event.sourceName(), event.source().getString("db"));
                } else {
                    snapshots.finished(c, event.sourceName());
                }
            } catch (SQLException e) {
                throw new ConnectException("Cannot record the snapshot of " + event.sourceName() + " in the state database "
                        + state.endpoint().display() + ": " + e.getMessage(), e);
            }
        }
        if (event.barrier() != null) {
            gate.release(event.barrier().id());
        }
    }

    @Override
    public void afterPut(SinkTaskContext context) {
        rethrow();
        if (!nothingGathered()) {
            long waited = System.currentTimeMillis() - batchStartedMillis;
            if (waited >= maxDelayMillis || !handed.busy()) {
                handSoon();
            } else if (context != null) {
                context.timeout(maxDelayMillis - waited);
            }
        }
    }

    @Override
    public void durableNow() {
        handed.settleFinished(); // what the batches written since made durable goes to the ledger now
        if (!nothingGathered() && System.currentTimeMillis() - batchStartedMillis >= maxDelayMillis) {
            handSoon();
        }
        if (nothingGathered()) {
            // Nothing waits to be handed over: what was taken had no row (tombstones) or is in a batch handed over.
            handed.durableOnceWritten(ledger.takenSoFar());
        }
    }

    @Override
    public void writeAll() throws InterruptedException {
        if (!nothingGathered()) {
            hand(false);
        }
        handed.awaitAll();
    }

    /** Hands the batch over when the appending thread can take it without waiting; else it grows until the next call. */
    private void handSoon() {
        handed.settleFinished();
        if (handed.outstanding() < OUTSTANDING) {
            hand(false);
        }
    }

    /** Hands the batch over, waiting first for the oldest when as many as allowed are; it marks what was taken by now. */
    private void hand(boolean full) {
        Map<TopicPartition, Long> taken = ledger.takenSoFar();
        handed.send(new Handed(batch, batchPositions, keepOffsets ? heldOnceWritten(taken) : Map.of(), batchHeartbeats, batchBytes),
                batchSize.bytes(), batchBytes, full ? TunedBatchSize.Closing.FULL : TunedBatchSize.Closing.TIMEOUT, taken);
        batch = new ArrayList<>();
        batchPositions = new java.util.HashMap<>();
        batchOffsets = new java.util.HashMap<>();
        batchHeartbeats = new java.util.HashMap<>();
        batchBytes = 0;
    }

    /**
     * The offsets the outbox holds once the batch is written: every record taken before is in it,
     * in an earlier batch, or needed no row; and so are the batch's own records, which the ledger
     * counts taken only after they are written here.
     */
    private Map<TopicPartition, Long> heldOnceWritten(Map<TopicPartition, Long> taken) {
        Map<TopicPartition, Long> held = new java.util.HashMap<>(taken);
        batchOffsets.forEach((tp, next) -> held.merge(tp, next, Math::max));
        return held;
    }

    /** Runs on the appending thread: the batch in one transaction with the positions, then this task's delivery loops are woken. */
    private long append(Handed h) throws InterruptedException {
        long last;
        try {
            last = append(h.entries(), h.positions(), h.offsets(), h.heartbeats());
        } catch (RuntimeException e) {
            LOG.error("Cannot write the webhook outbox: {}", e.getMessage());
            throw e;
        }
        written.addAndGet(h.entries().size());
        bytesWritten.addAndGet(h.bytes());
        if (!h.entries().isEmpty()) {
            appended.accept(last);
        }
        return last;
    }

    private long append(List<OutboxEntry> entries, Map<TopicPartition, SourcePosition> newest, Map<TopicPartition, Long> offsets,
                        Map<String, Long> heartbeatsTaken) throws InterruptedException {
        return RetryPolicy.reconnecting(retryTimeoutMillis).run(() -> {
            if (connection == null) {
                connection = state.open("outbox");
            }
            // After the rows, in a statement of its own: a heartbeat lost to a crash in between is only one heartbeat late.
            long last = 0;
            if (!entries.isEmpty()) {
                last = outbox.append(connection, entries, positions, newest, offsets);
            } else {
                positions.advanceOffsets(connection, offsets); // records that needed no row (heartbeats, tombstones)
            }
            heartbeats.advance(connection, heartbeatsTaken);
            return last;
        }, new RetryPolicy.Failures() {
            @Override
            public boolean isTransient(Exception e) {
                closeConnection();
                return PgConnect.worthRetrying(e);
            }

            @Override
            public void retrying(Exception e, long pauseMillis) {
                LOG.warn("Cannot write the webhook outbox in {} for now ({}); trying again in {} ms", state.endpoint().display(),
                        e.getMessage(), pauseMillis);
            }

            @Override
            public RuntimeException giveUp(Exception e, boolean timedOut) {
                return new ConnectException("Cannot write the webhook outbox (schema " + state.schema() + " of "
                        + state.endpoint().display() + "): " + e.getMessage() + (timedOut ? " (tried for " + retryTimeoutMillis + " ms)" : "")
                        + ". Nothing is lost: the source is not confirmed past these changes, and they come again when the task restarts",
                        e);
            }
        });
    }

    /** About what an entry holds in memory and sends. */
    private static long bytesOf(OutboxEntry entry) {
        return entry.body().length + entry.deliveryId().length() + entry.relation().length() + 48;
    }

    private void closeConnection() {
        PgConnect.closeQuietly(connection);
        connection = null;
    }

    private void rethrow() {
        handed.throwIfFailed();
    }

    /** Bytes of changes appended to the outbox so far. */
    public long bytesWritten() {
        return bytesWritten.get();
    }

    /** Changes appended to the outbox so far. */
    public long written() {
        return written.get();
    }

    @Override
    public void close() {
        handed.close();
        closeConnection();
    }
}
