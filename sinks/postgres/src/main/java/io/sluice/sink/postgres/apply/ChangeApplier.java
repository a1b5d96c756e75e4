package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.postgres.state.KafkaOffsets;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies streamed changes to the target, many source transactions in one target transaction:
 * truncates first, then each table's coalesced changes ({@link ChangeTable}), then the newest
 * source position of each source into the position table, and commit. So the position on the
 * target always says exactly which changes are in, and a change at or below it is skipped
 * ({@link #isApplied}) when it comes again after a restart.
 *
 * <p>Target transactions run on a thread of their own, one at a time and in order, while the
 * next batch gathers: encoding changes and the target writing them overlap. At most one sealed
 * batch is being written while one gathers, which bounds memory. Methods other than the
 * constructor are called from one thread.
 */
public final class ChangeApplier implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeApplier.class);

    private final AppliedPositions positions;
    private final Map<String, ChangeTable> tables = new LinkedHashMap<>();
    private final Set<String> truncated = new LinkedHashSet<>();
    private final Map<String, SourcePosition> pendingPositions = new HashMap<>();
    private final Map<String, Long> pendingChanges = new HashMap<>();
    /** Per source, the newest position committed on the target; written by the apply thread. */
    private final Map<String, SourcePosition> appliedPositions = new ConcurrentHashMap<>();
    /** Where Kafka offsets are kept on the target (on Kafka Connect); null when changes are tracked by source position. */
    private final KafkaOffsets offsets;
    private final Map<TopicPartition, Long> pendingOffsets = new HashMap<>();
    private final Map<TopicPartition, SourcePosition> pendingPartitionPositions = new HashMap<>();
    private final TunedBatchSize batchSize;
    private final ApplyThread thread;
    /** The apply thread's connection. */
    private final ApplySession session;
    private long pendingSince;
    private volatile long rowsApplied;

    /**
     * @param setUp              session settings for the connection (replica role); must not throw for a setting merely refused
     * @param retryTimeoutMillis how long to keep trying while the target cannot be reached
     * @param retryTimeoutKey    the setting that says so, named when the time is up
     * @param batchSize          the size batches are sealed at, told how long each took
     * @param offsets            where the Kafka offsets of applied changes are written, in their transactions (on Kafka
     *                           Connect, see {@link #takenAt}); null to track changes by source position only
     */
    public ChangeApplier(PgEndpoint endpoint, AppliedPositions positions, KafkaOffsets offsets, Consumer<Connection> setUp,
                         long retryTimeoutMillis, String retryTimeoutKey, TunedBatchSize batchSize) {
        this.batchSize = batchSize;
        this.positions = positions;
        this.offsets = offsets;
        this.thread = new ApplyThread(endpoint.display());
        this.session = new ApplySession(endpoint, setUp, positions, offsets, retryTimeoutMillis, retryTimeoutKey);
    }

    /** The pending changes of a target table; null when none are pending. */
    public ChangeTable table(String target) {
        return tables.get(target);
    }

    /** Starts gathering the changes of a target table, after whatever is pending for it was applied. */
    public void open(ChangeTable table) {
        ChangeTable old = tables.get(table.target());
        if (old != null && !old.isEmpty()) {
            throw new IllegalStateException("Changes of " + table.target() + " are pending; apply them first");
        }
        tables.put(table.target(), table);
    }

    /**
     * Marks a target table to be emptied before the changes that follow; pending ones are dropped.
     *
     * @param partitioned whether the target is partitioned: emptied with its partitions (the source's TRUNCATE of a root
     *                    published through it did so), where any other table is emptied without its inheritance children
     */
    public void truncate(String target, String[] qualified, boolean partitioned) {
        ChangeTable table = tables.get(target);
        if (table != null) {
            table.truncate();
        }
        truncated.add((partitioned ? "" : "ONLY ") + Identifiers.quote(qualified[0], qualified[1]));
        touched();
    }

    /** Whether the change at {@code position} of {@code source} is already on the target. */
    public boolean isApplied(String source, SourcePosition position) {
        SourcePosition applied = appliedPositions.get(source);
        if (applied == null) {
            SourcePosition read = thread.call(() -> readPosition(source));
            applied = appliedPositions.merge(source, read, ChangeApplier::newer);
        }
        return applied != NONE && position.compareTo(applied) <= 0;
    }

    /** Records that a change was taken, so the position written with it moves on. */
    public void taken(String source, SourcePosition position) {
        if (position != null) {
            pendingPositions.merge(source, position, ChangeApplier::newer);
            pendingChanges.merge(source, 1L, Long::sum);
        }
        touched();
    }

    /**
     * Records that the change at a Kafka offset was taken: the offset after it is written with the
     * batch, so that the partition resumes after it (see {@link KafkaOffsets}).
     */
    public void takenAt(TopicPartition partition, long nextOffset, SourcePosition position) {
        pendingOffsets.merge(partition, nextOffset, Math::max);
        if (position != null) {
            pendingPartitionPositions.merge(partition, position, ChangeApplier::newer);
        }
        touched();
    }

    /** The Kafka offsets after the last changes the target has, of these partitions (those with any). */
    public Map<TopicPartition, Long> appliedOffsets(Collection<TopicPartition> partitions) {
        return fromOffsetTables("Reading the applied Kafka offsets", c -> offsets.read(c, partitions));
    }

    /**
     * The source position of the newest change the target has from each of these partitions:
     * a change the source sent again (after its restart, at least once) comes later in the same
     * partition with a position at or below it.
     */
    public Map<TopicPartition, SourcePosition> appliedPartitionPositions(Collection<TopicPartition> partitions) {
        return fromOffsetTables("Reading the applied positions", c -> offsets.readPositions(c, partitions));
    }

    /** The runs of offsets whose snapshot rows the target has, of these partitions (see {@link KafkaOffsets#writeRuns}). */
    public Map<TopicPartition, java.util.NavigableMap<Long, Long>> loadedRuns(Collection<TopicPartition> partitions) {
        return fromOffsetTables("Reading the loaded Kafka offsets", c -> offsets.readRuns(c, partitions));
    }

    @FunctionalInterface
    private interface OffsetsRead<T> {
        Map<TopicPartition, T> read(Connection c) throws SQLException;
    }

    /** Reads Sluice's offset tables on the apply thread's connection, retried like a batch; empty when none are kept. */
    private <T> Map<TopicPartition, T> fromOffsetTables(String what, OffsetsRead<T> read) {
        if (offsets == null) {
            return Map.of();
        }
        return thread.call(() -> {
            Map<TopicPartition, T> result = new HashMap<>();
            session.run(what + " from " + offsets.name(), c -> result.putAll(read.read(c)));
            return result;
        });
    }

    private static SourcePosition newer(SourcePosition a, SourcePosition b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private void touched() {
        if (pendingSince == 0) {
            pendingSince = System.nanoTime();
        }
    }

    /** Whether anything is waiting to be applied (not counting a batch being written). */
    public boolean hasPending() {
        return pendingSince != 0;
    }

    /** How long the oldest pending change has waited, in milliseconds; 0 when none. */
    public long pendingMillis() {
        return pendingSince == 0 ? 0 : (System.nanoTime() - pendingSince) / 1_000_000;
    }

    /** Approximate memory the pending changes hold (not counting a batch being written). */
    public long pendingBytes() {
        long bytes = 0;
        for (ChangeTable t : tables.values()) {
            bytes += t.bytes();
        }
        return bytes;
    }

    /** Whether a batch is being written now. */
    public boolean applying() {
        return thread.busy();
    }

    /** Changes committed on the target so far, each counted once per change taken. */
    public long rowsApplied() {
        return rowsApplied;
    }

    /**
     * Applies everything pending, and waits until it and any batch before it are committed. On
     * failure nothing of the failed batch is applied, and nothing after it will be.
     */
    public void apply() {
        applyInBackground(() -> { });
        thread.await();
    }

    /**
     * Seals what is pending into one target transaction, written on the apply thread while new
     * changes gather; waits first for the batch before it, if that is still being written. While
     * the target cannot be reached, the apply thread tries again, with backoff, for up to the
     * retry timeout; a failure comes out of the next call of this, {@link #apply} or
     * {@link #isApplied}.
     *
     * @param then run on the apply thread once everything taken so far is committed (also when
     *             nothing is pending); not run if a batch failed
     */
    public void applyInBackground(Runnable then) {
        applyInBackground(then, TunedBatchSize.Closing.EARLY);
    }

    /**
     * As {@link #applyInBackground(Runnable)}, saying why: a batch sent because it reached the
     * batch size, or because its time was up, tells the batch size tuner how long it took.
     */
    public void applyInBackground(Runnable then, TunedBatchSize.Closing closing) {
        thread.throwIfFailed();
        if (!hasPending()) {
            if (thread.busy()) {
                thread.then(then);
            } else {
                thread.await();
                then.run();
            }
            return;
        }
        long bytes = pendingBytes();
        long plannedBytes = batchSize.bytes();
        List<ChangeTable.Sealed> sealed = new ArrayList<>();
        long changes = 0;
        for (ChangeTable t : tables.values()) {
            changes += t.changes();
            ChangeTable.Sealed s = t.seal();
            if (s != null) {
                sealed.add(s);
            }
        }
        ChangeBatch batch = new ChangeBatch(List.copyOf(truncated), sealed, Map.copyOf(pendingPositions), Map.copyOf(pendingChanges),
                Map.copyOf(pendingOffsets), Map.copyOf(pendingPartitionPositions), changes);
        truncated.clear();
        pendingPositions.clear();
        pendingOffsets.clear();
        pendingPartitionPositions.clear();
        pendingChanges.clear();
        pendingSince = 0;
        // One batch written while the next gathers: memory stays bounded when the target is the slower.
        thread.await();
        thread.then(() -> {
            write(batch, bytes, plannedBytes, closing);
            then.run();
        });
    }

    /** Runs on the apply thread; tells the batch size how long the batch took. */
    private void write(ChangeBatch batch, long bytes, long plannedBytes, TunedBatchSize.Closing closing) {
        long started = System.nanoTime();
        session.run("Applying " + batch.changes() + " changes", c -> {
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
                LOG.debug("Applying {} changes collided on a unique value ({}); writing them again one statement at a time",
                        batch.changes(), e.getMessage());
                c.rollback();
                session.createdStages().clear();
                batch.write(c, positions, offsets, session.createdStages(), QueuedStatements.immediate());
            }
            c.commit();
            c.setAutoCommit(true);
        }, c -> batch.isOn(c, positions, offsets));
        batch.positions().forEach((source, position) -> appliedPositions.merge(source, position, ChangeApplier::newer));
        rowsApplied += batch.changes();
        long nanos = System.nanoTime() - started;
        batchSize.record(plannedBytes, bytes, nanos, closing);
        LOG.debug("Applied {} changes in {} ms", batch.changes(), nanos / 1_000_000);
    }

    /** Work on the target inside the transaction that also writes a source position. */
    @FunctionalInterface
    public interface TargetWork {
        void run(Connection c) throws SQLException;
    }

    /**
     * Applies what is pending, then runs {@code work} (a schema change) in a transaction of its
     * own that also writes {@code position} (or the Kafka offset after it), so after a restart it
     * is skipped like a change. Staging tables and the tables' pending state are dropped: the
     * tables' shapes may have changed.
     *
     * @param position    the schema change's position; null when it has none or offsets say it
     * @param nextOffsets the Kafka offset after the event, written when offsets are kept on the target
     */
    public void applyAlone(String source, SourcePosition position, Map<TopicPartition, Long> nextOffsets, String what, TargetWork work) {
        apply();
        thread.call(() -> {
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
        tables.clear();
        if (position != null) {
            appliedPositions.merge(source, position, ChangeApplier::newer);
        }
    }

    private static final SourcePosition NONE = new SourcePosition(0, Long.MIN_VALUE);

    private SourcePosition readPosition(String source) {
        SourcePosition[] read = new SourcePosition[1];
        session.run("Reading the applied position from " + positions.name(), c -> read[0] = positions.read(c, source));
        if (read[0] != null) {
            LOG.info("Changes of {} up to {} are on the target already; older ones are skipped", source, read[0]);
        }
        return read[0] == null ? NONE : read[0];
    }

    /**
     * Stops the apply thread after the batch it is writing (interrupting its retries if that
     * takes long), and closes the connection. What was not committed the source sends again.
     */
    @Override
    public void close() {
        thread.close();
        session.close();
    }
}
