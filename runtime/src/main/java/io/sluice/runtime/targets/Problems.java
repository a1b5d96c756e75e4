package io.sluice.runtime.targets;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;

/** A connector's {@code validate()} answer as lines of {@code key: message}. */
final class Problems {

    private Problems() {
    }

    static List<String> of(Config config) {
        List<String> problems = new ArrayList<>();
        for (ConfigValue v : config.configValues()) {
            for (String message : v.errorMessages()) {
                problems.add(v.name() + ": " + message);
            }
        }
        return problems;
    }
}
