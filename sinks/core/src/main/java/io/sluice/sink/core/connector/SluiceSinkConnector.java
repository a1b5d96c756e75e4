package io.sluice.sink.core.connector;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.sluice.schemas.SluiceVersion;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * A Sluice sink connector: its configuration checked at start, the same configuration for every
 * task (they share the topics' partitions), and its {@code ConfigDef}. A sink adds its
 * {@code validate} checks that reach the target.
 */
public abstract class SluiceSinkConnector extends SinkConnector {

    private final ConfigDef configDef;
    private final Function<Map<String, String>, ?> parse;
    private final Class<? extends Task> taskClass;
    private Map<String, String> props;

    /**
     * @param parse reads the configuration, throwing on a bad one (the sink's config class's constructor)
     */
    protected SluiceSinkConnector(ConfigDef configDef, Function<Map<String, String>, ?> parse, Class<? extends Task> taskClass) {
        this.configDef = configDef;
        this.parse = parse;
        this.taskClass = taskClass;
    }

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        parse.apply(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return taskClass;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return SinkConnectors.sameForEveryTask(props, maxTasks);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return configDef;
    }
}
