package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.InFlightBatches;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.postgres.state.KafkaOffsets;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes sealed batches of streamed changes to the target, each as one transaction: truncates
 * first, then each table's coalesced changes, then the newest source position of each source
 * (or the Kafka offsets) into Sluice's tables, and commit. So the target always says exactly
 * which changes it has. Batches are written one at a time, in order, on the apply connection's
 * thread, while the next gathers ({@link InFlightBatches}, one outstanding: memory stays bounded
 * when the target is the slower). Work of its own (a schema change) goes in order with them
 * ({@link #alone}), and reads of the target go on the same connection ({@link #read}).
 */
public final class ChangeWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeWriter.class);

    /** Work on the target inside a transaction the writer commits. */
    @FunctionalInterface
    public interface TargetWork {
        void run(Connection c) throws SQLException;
    }

    /** A read of the target on the apply connection. */
    @FunctionalInterface
    public interface TargetRead<T> {
        T read(Connection c) throws SQLException;
    }

    private final AppliedPositions positions;
    /** Where Kafka offsets are kept on the target (on Kafka Connect); null when changes are tracked by source position. */
    private final KafkaOffsets offsets;
    private final ApplySession session;
    private final InFlightBatches<ChangeBatch, ChangeBatch> inFlight;
    /** Per source, the newest position this writer committed; written on the apply thread. */
    private final Map<String, SourcePosition> written = new ConcurrentHashMap<>();
    private volatile long changesWritten;

    /**
     * @param setUp              session settings for the connection (replica role); must not throw for a setting merely refused
     * @param offsets            where the Kafka offsets of applied changes are written, in their transactions (on Kafka
     *                           Connect); null to track changes by source position only
     * @param retryTimeoutMillis how long to keep trying while the target cannot be reached
     * @param retryTimeoutKey    the setting that says so, named when the time is up
     * @param batchSize          told how long each batch took
     * @param ledger             told what each batch made durable
     */
    public ChangeWriter(PgEndpoint endpoint, AppliedPositions positions, KafkaOffsets offsets, Consumer<Connection> setUp,
                        long retryTimeoutMillis, String retryTimeoutKey, TunedBatchSize batchSize, OffsetLedger ledger) {
        this.positions = positions;
        this.offsets = offsets;
        this.session = new ApplySession(endpoint, setUp, positions, offsets, retryTimeoutMillis, retryTimeoutKey);
        this.inFlight = new InFlightBatches<>(endpoint.display(), "sluice-apply", 1, 1, batchSize, ledger, this::write, null);
    }

    /**
     * Sends a sealed batch: written on the apply thread once the one before is (this waits for
     * that). While the target cannot be reached it is tried again, with backoff, for up to the
     * retry timeout; a failure comes out of the next call.
     *
     * @param plannedBytes the batch size it was gathered to
     * @param closing      why it was sealed, for the tuner
     * @param durableUpTo  what the ledger may mark durable once it is committed; null for nothing
     */
    public void send(ChangeBatch batch, long plannedBytes, long bytes, TunedBatchSize.Closing closing, Map<TopicPartition, Long> durableUpTo) {
        inFlight.send(batch, plannedBytes, bytes, closing, durableUpTo);
    }

    /** Marks {@code upTo} durable once the batch being written, if any, is committed. */
    public void durableOnceWritten(Map<TopicPartition, Long> upTo) {
        inFlight.durableOnceWritten(upTo);
    }

    /** Whether a batch is being written now. */
    public boolean writing() {
        return inFlight.busy();
    }

    /** Waits until every batch sent is committed; rethrows why one could not be. */
    public void awaitAll() {
        inFlight.awaitAll();
    }

    /** Rethrows why a batch could not be written, if one could not. */
    public void throwIfFailed() {
        inFlight.throwIfFailed();
    }

    /** Runs on the apply thread. */
    private ChangeBatch write(ChangeBatch batch) {
        long started = System.nanoTime();
        session.run("Applying " + batch.describe(), c -> {
            c.setAutoCommit(false);
            try {
                batch.write(c, positions, offsets, session.createdStages(), QueuedStatements.queued());
            } catch (SQLException e) {
                if (!SegmentWriter.isUniqueViolation(e)) {
                    throw e;
                }
                // Statements sent together met a unique value midway (see SegmentWriter.updateRows): the whole
                // transaction again, one statement at a time, each with its own way around it. Staging tables made
                // in the transaction went with it.
                LOG.debug("Applying {} collided on a unique value ({}); writing them again one statement at a time",
                        batch.describe(), e.getMessage());
                c.rollback();
                session.createdStages().clear();
                batch.write(c, positions, offsets, session.createdStages(), QueuedStatements.immediate());
            }
            c.commit();
            c.setAutoCommit(true);
        }, c -> batch.isOn(c, positions, offsets));
        batch.positions().forEach((source, position) -> written.merge(source, position, SourcePosition::newer));
        changesWritten += batch.changes();
        LOG.debug("Applied {} changes in {} ms", batch.changes(), (System.nanoTime() - started) / 1_000_000);
        return batch;
    }

    /**
     * Once every batch sent is committed, runs {@code work} (a schema change, a table emptied at
     * a barrier) in a transaction of its own that also writes {@code position} (or the Kafka
     * offset after it), so after a restart it is skipped like a change. Staging tables are
     * dropped: the tables' shapes may have changed.
     *
     * @param position    the work's position; null when it has none or offsets say it
     * @param nextOffsets the Kafka offset after the event, written when offsets are kept on the target
     */
    public void alone(String source, SourcePosition position, Map<TopicPartition, Long> nextOffsets, String what, TargetWork work) {
        inFlight.call(() -> {
            session.run("Applying " + what, c -> {
                c.setAutoCommit(false);
                work.run(c);
                if (position != null) {
                    positions.write(c, Map.of(source, position), Map.of(source, 1L));
                }
                if (offsets != null) {
                    offsets.write(c, nextOffsets, Map.of());
                }
                c.commit();
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("DISCARD TEMP");
                }
            }, c -> ChangeBatch.isOn(c, positions, offsets, position == null ? Map.of() : Map.of(source, position), nextOffsets));
            session.createdStages().clear();
            return null;
        });
        if (position != null) {
            written.merge(source, position, SourcePosition::newer);
        }
    }

    /** Reads the target on the apply connection, once every batch sent is committed; retried like a batch. */
    public <T> T read(String what, TargetRead<T> read) {
        return inFlight.call(() -> {
            Object[] result = new Object[1];
            session.run(what, c -> result[0] = read.read(c));
            @SuppressWarnings("unchecked")
            T t = (T) result[0];
            return t;
        });
    }

    /** The newest position of a source this writer committed; null when none. */
    public SourcePosition written(String source) {
        return written.get(source);
    }

    /** Changes committed on the target so far, each counted once per change taken. */
    public long changesWritten() {
        return changesWritten;
    }

    /**
     * Stops after the batch being written (interrupting its retries if that takes long), and
     * closes the connection. What was not committed the source sends again.
     */
    @Override
    public void close() {
        inFlight.close();
        session.close();
    }
}
