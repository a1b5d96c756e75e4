package io.sluice.testing.kafka;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * A {@link SourceTaskContext} for driving a source task directly in a test, with stored offsets
 * from a map the test controls (partition to offset), as Connect's offset store would hand them back.
 */
public final class SourceTaskContexts {

    private SourceTaskContexts() {
    }

    public static SourceTaskContext withOffsets(Map<?, ? extends Map<String, Object>> stored) {
        OffsetStorageReader reader = new OffsetStorageReader() {
            @Override
            public <T> Map<String, Object> offset(Map<String, T> partition) {
                return stored.get(partition);
            }

            @Override
            public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
                Map<Map<String, T>, Map<String, Object>> result = new HashMap<>();
                partitions.forEach(p -> result.put(p, offset(p)));
                return result;
            }
        };
        return new SourceTaskContext() {
            @Override
            public Map<String, String> configs() {
                return Map.of();
            }

            @Override
            public OffsetStorageReader offsetStorageReader() {
                return reader;
            }

            @Override
            public PluginMetrics pluginMetrics() {
                return null;
            }
        };
    }
}
