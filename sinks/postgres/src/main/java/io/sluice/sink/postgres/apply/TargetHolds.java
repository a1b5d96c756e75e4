package io.sluice.sink.postgres.apply;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;

import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.postgres.state.KafkaOffsets;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the target holds already, as Sluice's tables there say: per source, the position of the
 * newest change applied (a change at or below it is skipped when it comes again after a
 * restart); where Kafka offsets are kept, per partition the offset after the newest change, its
 * source position, and the runs of offsets whose snapshot rows are in. Read on the apply
 * connection, after the batches sent before.
 */
public final class TargetHolds {

    private static final Logger LOG = LoggerFactory.getLogger(TargetHolds.class);
    private static final SourcePosition NONE = new SourcePosition(0, Long.MIN_VALUE);

    private final ChangeWriter writer;
    private final AppliedPositions positions;
    private final KafkaOffsets offsets;
    /** Per source, the position read from the target when its first change came. */
    private final Map<String, SourcePosition> read = new HashMap<>();

    /** @param offsets Sluice's Kafka offset tables on the target; null when not kept */
    public TargetHolds(ChangeWriter writer, AppliedPositions positions, KafkaOffsets offsets) {
        this.writer = writer;
        this.positions = positions;
        this.offsets = offsets;
    }

    /** Whether the change at {@code position} of {@code source} is already on the target. */
    public boolean isApplied(String source, SourcePosition position) {
        SourcePosition stored = read.computeIfAbsent(source, this::readPosition);
        SourcePosition written = writer.written(source);
        SourcePosition applied = written == null ? stored : SourcePosition.newer(written, stored);
        return applied != NONE && position.compareTo(applied) <= 0;
    }

    private SourcePosition readPosition(String source) {
        SourcePosition stored = writer.read("Reading the applied position from " + positions.name(), c -> positions.read(c, source));
        if (stored != null) {
            LOG.info("Changes of {} up to {} are on the target already; older ones are skipped", source, stored);
        }
        return stored == null ? NONE : stored;
    }

    /** The Kafka offsets after the last changes the target has, of these partitions (those with any). */
    public Map<TopicPartition, Long> appliedOffsets(Collection<TopicPartition> partitions) {
        return offsets == null ? Map.of()
                : writer.read("Reading the applied Kafka offsets from " + offsets.name(), c -> offsets.read(c, partitions));
    }

    /**
     * The source position of the newest change the target has from each of these partitions:
     * a change the source sent again (after its restart, at least once) comes later in the same
     * partition with a position at or below it.
     */
    public Map<TopicPartition, SourcePosition> appliedPartitionPositions(Collection<TopicPartition> partitions) {
        return offsets == null ? Map.of()
                : writer.read("Reading the applied positions from " + offsets.name(), c -> offsets.readPositions(c, partitions));
    }

    /** The runs of offsets whose snapshot rows the target has, of these partitions (see {@link KafkaOffsets#writeRuns}). */
    public Map<TopicPartition, NavigableMap<Long, Long>> loadedRuns(Collection<TopicPartition> partitions) {
        return offsets == null ? Map.of()
                : writer.read("Reading the loaded Kafka offsets from " + offsets.name(), c -> offsets.readRuns(c, partitions));
    }
}
