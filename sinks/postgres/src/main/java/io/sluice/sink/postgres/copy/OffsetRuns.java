package io.sluice.sink.postgres.copy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

/**
 * The Kafka offsets whose rows one COPY writes, as runs per partition: a run
 * {@code [first, last]} says every record of the partition between the two is either in this
 * COPY or nothing to load (skipped, sent to the dead-letter queue). Written in the COPY's own
 * transaction, the runs let a task that gets the partition after a crash or a rebalance skip
 * exactly the rows the target has, although COPYs of one partition commit out of order.
 */
public final class OffsetRuns {

    private final Map<TopicPartition, List<long[]>> runs = new HashMap<>();

    /**
     * Adds a record's offset.
     *
     * @param continues whether the partition's previous record went into the same batch, so the run goes on
     */
    public void cover(TopicPartition partition, long offset, boolean continues) {
        List<long[]> list = runs.computeIfAbsent(partition, p -> new ArrayList<>());
        if (continues && !list.isEmpty()) {
            list.get(list.size() - 1)[1] = offset;
        } else {
            list.add(new long[] {offset, offset});
        }
    }

    public boolean isEmpty() {
        return runs.isEmpty();
    }

    /** The runs, {first, last} each, per partition. */
    public Map<TopicPartition, List<long[]>> byPartition() {
        return runs;
    }
}
