package io.sluice.testing.kafka;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * A {@link SinkTaskContext} for driving a sink task directly in a test, as a worker would: it
 * records what the task asks of the consumer (where to go on from, which partitions to pause and
 * resume), for the test to act on and check.
 */
public final class RecordingSinkContext implements SinkTaskContext {

    /** Per partition, the offset the task asked the consumer to go on from, the newest ask. */
    public final Map<TopicPartition, Long> rewound = new HashMap<>();
    public final Set<TopicPartition> paused = new HashSet<>();
    public final Set<TopicPartition> resumed = new HashSet<>();
    private final Set<TopicPartition> assignment;

    public RecordingSinkContext(Set<TopicPartition> assignment) {
        this.assignment = Set.copyOf(assignment);
    }

    @Override
    public Map<String, String> configs() {
        return Map.of();
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
        rewound.putAll(offsets);
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
        rewound.put(tp, offset);
    }

    @Override
    public void timeout(long timeoutMs) {
    }

    @Override
    public Set<TopicPartition> assignment() {
        return assignment;
    }

    @Override
    public void pause(TopicPartition... partitions) {
        paused.addAll(List.of(partitions));
    }

    @Override
    public void resume(TopicPartition... partitions) {
        resumed.addAll(List.of(partitions));
    }

    @Override
    public void requestCommit() {
    }

    @Override
    public PluginMetrics pluginMetrics() {
        return null;
    }
}
