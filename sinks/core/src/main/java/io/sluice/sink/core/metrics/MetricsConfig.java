package io.sluice.sink.core.metrics;

import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The key that names a sink in the process's metrics, the same for every sink. */
public final class MetricsConfig {

    public static final String TARGET_NAME = "metrics.target.name";

    private MetricsConfig() {
    }

    public static ConfigDef define(ConfigDef def, String group, int order) {
        return def.define(TARGET_NAME, Type.STRING, "", Importance.LOW,
                "The target label of this sink's series in Sluice's metrics (docs/metrics.md). Empty: the connector's name "
                        + "(in the sluice command, the pipeline's).", group, order, Width.MEDIUM, "Metrics target name");
    }

    /** The target label a sink task's configuration gives: the key above, else the connector's name. */
    public static String targetName(Map<String, String> props) {
        String named = props.get(TARGET_NAME);
        if (named != null && !named.isBlank()) {
            return named;
        }
        String connector = props.get("name");
        return connector == null || connector.isBlank() ? "sluice" : connector;
    }
}
