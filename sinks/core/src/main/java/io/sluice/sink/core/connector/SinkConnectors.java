package io.sluice.sink.core.connector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.config.UnresolvedPlaceholders;
import io.sluice.sink.core.batch.BatchTuningConfig;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;

/** What every Sluice sink connector does alike: its tasks' configurations and the key checks of {@code validate()}. */
public final class SinkConnectors {

    private SinkConnectors() {
    }

    /** One configuration per task, all the connector's own: the tasks share the topics' partitions. */
    public static List<Map<String, String>> sameForEveryTask(Map<String, String> props, int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>();
        for (int i = 0; i < maxTasks; i++) {
            configs.add(props);
        }
        return configs;
    }

    /**
     * Adds the checks that span keys (the batch tuner's bounds, placeholders left unresolved) to
     * the single-key results Connect computed.
     *
     * @return the results by key name, and whether any key has an error
     */
    public static Checked checkKeys(Config result, Map<String, String> connectorConfigs) {
        Map<String, ConfigValue> byName = new HashMap<>();
        result.configValues().forEach(v -> byName.put(v.name(), v));
        BatchTuningConfig.validate(byName);
        UnresolvedPlaceholders.report(connectorConfigs, result);
        boolean errors = result.configValues().stream().anyMatch(v -> !v.errorMessages().isEmpty());
        return new Checked(byName, errors);
    }

    /** The key checks' results. */
    public record Checked(Map<String, ConfigValue> byName, boolean hasErrors) {
    }
}
