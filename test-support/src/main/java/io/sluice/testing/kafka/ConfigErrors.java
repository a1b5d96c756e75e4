package io.sluice.testing.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;

/** A connector's validation result as the keys that have errors, each with its messages. */
public final class ConfigErrors {

    private ConfigErrors() {
    }

    public static Map<String, List<String>> byKey(Config config) {
        Map<String, List<String>> errors = new HashMap<>();
        for (ConfigValue v : config.configValues()) {
            if (!v.errorMessages().isEmpty()) {
                errors.put(v.name(), v.errorMessages());
            }
        }
        return errors;
    }
}
