package io.sluice.sink.postgres.apply;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.postgres.state.AppliedHeartbeats;
import org.apache.kafka.common.TopicPartition;

/**
 * The streamed changes gathered for the next target transaction: each table's coalesced
 * changes ({@link ChangeTable}), the tables to empty first, and per source (or per topic
 * partition, where the target keeps Kafka offsets) the newest position taken, which is written
 * with them. {@link #seal} hands all of it over as one {@link ChangeBatch} and starts again.
 * Used from the task's thread only.
 */
public final class PendingChanges {

    private final Map<String, ChangeTable> tables = new LinkedHashMap<>();
    private final Set<String> truncated = new LinkedHashSet<>();
    private final Map<String, SourcePosition> positions = new HashMap<>();
    private final Map<String, Long> counts = new HashMap<>();
    /** Per source, whether its newest change taken ends its transaction. */
    private final Map<String, Boolean> whole = new HashMap<>();
    private final Map<TopicPartition, Long> offsets = new HashMap<>();
    private final Map<TopicPartition, SourcePosition> partitionPositions = new HashMap<>();
    private final Map<String, AppliedHeartbeats.Beat> heartbeats = new HashMap<>();
    /** When the oldest pending change was taken ({@link System#nanoTime}); 0 when none is. */
    private long since;

    /** The pending changes of a target table; null when none are gathered. */
    public ChangeTable table(String target) {
        return tables.get(target);
    }

    /** Starts gathering the changes of a target table; whatever was pending for it must have been sealed first. */
    public void open(ChangeTable table) {
        ChangeTable old = tables.get(table.target());
        if (old != null && !old.isEmpty()) {
            throw new IllegalStateException("Changes of " + table.target() + " are pending; apply them first");
        }
        tables.put(table.target(), table);
    }

    /**
     * Marks a target table to be emptied before the changes that follow; its pending ones are dropped.
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

    /** A change of a source was taken: the position written with the batch moves on. */
    public void taken(String source, SourcePosition position) {
        taken(source, position, false);
    }

    /**
     * A change of a source was taken: the position written with the batch moves on.
     *
     * @param ends whether the change is the last of its source transaction
     */
    public void taken(String source, SourcePosition position, boolean ends) {
        if (position != null) {
            positions.merge(source, position, SourcePosition::newer);
            counts.merge(source, 1L, Long::sum);
            if (positions.get(source).equals(position)) {
                whole.put(source, ends);
            }
        }
        touched();
    }

    /** The change at a Kafka offset was taken: the offset after it is written with the batch, so its partition resumes after it. */
    public void takenAt(TopicPartition partition, long nextOffset, SourcePosition position) {
        offsets.merge(partition, nextOffset, Math::max);
        if (position != null) {
            partitionPositions.merge(partition, position, SourcePosition::newer);
        }
        touched();
    }

    /** A heartbeat of a source was taken: its commit time and position are written with the batch, so it is applied once the batch is. */
    public void heartbeat(String source, AppliedHeartbeats.Beat beat) {
        heartbeats.merge(source, beat, AppliedHeartbeats.Beat::newer);
        touched();
    }

    private void touched() {
        if (since == 0) {
            since = System.nanoTime();
        }
    }

    /** Whether anything was taken since the last seal. */
    public boolean any() {
        return since != 0;
    }

    /** How long the oldest pending change has waited, in milliseconds; 0 when none. */
    public long waitedMillis() {
        return since == 0 ? 0 : (System.nanoTime() - since) / 1_000_000;
    }

    /** Approximate memory the pending changes hold. */
    public long bytes() {
        long bytes = 0;
        for (ChangeTable t : tables.values()) {
            bytes += t.bytes();
        }
        return bytes;
    }

    /** Everything gathered, as one batch; gathering starts again (each table keeps its shape, emptied). */
    public ChangeBatch seal() {
        List<ChangeTable.Sealed> sealed = new ArrayList<>();
        long changes = 0;
        for (ChangeTable t : tables.values()) {
            changes += t.changes();
            ChangeTable.Sealed s = t.seal();
            if (s != null) {
                sealed.add(s);
            }
        }
        ChangeBatch batch = new ChangeBatch(List.copyOf(truncated), sealed, Map.copyOf(positions), Map.copyOf(whole), Map.copyOf(counts),
                Map.copyOf(offsets), Map.copyOf(partitionPositions), Map.copyOf(heartbeats), changes);
        truncated.clear();
        positions.clear();
        whole.clear();
        counts.clear();
        offsets.clear();
        partitionPositions.clear();
        heartbeats.clear();
        since = 0;
        return batch;
    }

    /** Forgets the tables' shapes (after a schema change): the next change of each opens its table anew. */
    public void forgetTables() {
        tables.clear();
    }
}
