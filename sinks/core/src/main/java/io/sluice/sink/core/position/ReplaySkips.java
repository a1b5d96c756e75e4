package io.sluice.sink.core.position;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;

import org.apache.kafka.common.TopicPartition;

/**
 * Which records a sink task skips because the target has them already: records delivered again
 * after a crash or a rebalance (below the Kafka offset the target stored, or inside a run of
 * offsets a committed snapshot write covered), and changes a restarted source sent again (at or
 * below the newest source position the partition has on the target or taken). What the target
 * stored is given per partition when the partition is given to the task.
 */
public final class ReplaySkips {

    /** Per partition, the offset after the last change the target has. */
    private final Map<TopicPartition, Long> appliedUpTo = new HashMap<>();
    /** Per partition, the runs [first, last] of offsets whose snapshot rows the target has (they commit out of order). */
    private final Map<TopicPartition, NavigableMap<Long, Long>> loadedRuns = new HashMap<>();
    /** Per partition, the newest source position taken or on the target. */
    private final Map<TopicPartition, SourcePosition> newest = new HashMap<>();
    private long skipped;

    /**
     * What the target has of a partition given to the task.
     *
     * @param applied the offset after the last change it has; null when it has none
     * @param runs    runs of offsets whose snapshot rows it has, first to last (kept: only those from {@code applied} on)
     * @param position the newest source position it has of the partition; null when none
     */
    public void resume(TopicPartition partition, Long applied, NavigableMap<Long, Long> runs, SourcePosition position) {
        if (applied != null) {
            appliedUpTo.put(partition, applied);
        }
        if (runs != null) {
            if (applied != null) {
                runs.headMap(applied).entrySet().removeIf(run -> run.getValue() < applied); // below the offset anyway
            }
            if (!runs.isEmpty()) {
                loadedRuns.put(partition, runs);
            }
        }
        if (position != null) {
            newest.put(partition, position);
        }
    }

    /** Whether the target has the record by its Kafka offset (the change, or a snapshot write's run); counted when so. */
    public boolean onTargetByOffset(TopicPartition partition, long offset) {
        if (belowApplied(partition, offset) || inLoadedRun(partition, offset)) {
            skipped++;
            return true;
        }
        return false;
    }

    /** Whether the record is below the offset after the last change the target has (so it is durable, and so is all before it). */
    public boolean belowApplied(TopicPartition partition, long offset) {
        Long applied = appliedUpTo.get(partition);
        return applied != null && offset < applied;
    }

    private boolean inLoadedRun(TopicPartition partition, long offset) {
        NavigableMap<Long, Long> runs = loadedRuns.isEmpty() ? null : loadedRuns.get(partition);
        if (runs == null) {
            return false;
        }
        Map.Entry<Long, Long> run = runs.floorEntry(offset);
        return run != null && offset <= run.getValue();
    }

    /**
     * Whether a change is at or below the newest position its partition has (sent again by a
     * source that restarted: at least once); counted when so. A change without a position is never.
     */
    public boolean replayed(TopicPartition partition, SourcePosition position) {
        SourcePosition top = position == null ? null : newest.get(partition);
        if (top != null && position.compareTo(top) <= 0) {
            skipped++;
            return true;
        }
        return false;
    }

    /** A change of the partition was taken at this position. */
    public void took(TopicPartition partition, SourcePosition position) {
        if (position != null) {
            newest.merge(partition, position, SourcePosition::newer);
        }
    }

    /** Counts a record skipped for a reason the caller knows (its source's applied position, a released barrier). */
    public void skipped() {
        skipped++;
    }

    /** Records skipped since the task started. */
    public long count() {
        return skipped;
    }

    /** Partitions with runs of loaded snapshot rows to skip. */
    public int partitionsWithLoadedRuns() {
        return loadedRuns.size();
    }

    /** Forgets partitions taken away from the task. */
    public void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            appliedUpTo.remove(tp);
            loadedRuns.remove(tp);
            newest.remove(tp);
        }
    }
}
