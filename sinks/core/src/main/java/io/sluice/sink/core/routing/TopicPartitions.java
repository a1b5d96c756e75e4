package io.sluice.sink.core.routing;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;

/**
 * One {@link TopicPartition} object per topic and partition, handed out again for every record
 * of it: a new one per record was a fiftieth of what the embedded sink allocated, and each
 * computed its hash anew as a key of the ledger's and the skips' maps. Thread-safe; holds one
 * entry per topic seen, as many as the pipeline's topics.
 */
final class TopicPartitions {

    private final ConcurrentHashMap<String, TopicPartition[]> byTopic = new ConcurrentHashMap<>();

    TopicPartition of(String topic, int partition) {
        TopicPartition[] known = byTopic.get(topic);
        if (known != null && partition >= 0 && partition < known.length && known[partition] != null) {
            return known[partition];
        }
        TopicPartition made = new TopicPartition(topic, partition);
        if (partition >= 0 && partition < 4096) {
            byTopic.compute(topic, (t, old) -> {
                TopicPartition[] next = old == null ? new TopicPartition[partition + 1] : Arrays.copyOf(old, Math.max(old.length, partition + 1));
                if (next[partition] == null) {
                    next[partition] = made;
                }
                return next;
            });
        }
        return made;
    }
}
