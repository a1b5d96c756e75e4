package io.sluice.sink.postgres;

import java.sql.Connection;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.sink.core.connector.SinkConnectors;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * Writes change events into PostgreSQL. Snapshot rows go in with binary COPY, several tables'
 * batches at once; it reads Sluice's events and Debezium's.
 */
public class PostgresSinkConnector extends SinkConnector {

    private Map<String, String> props;

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        new PostgresSinkConfig(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return PostgresSinkTask.class;
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
        return PostgresSinkConfig.CONFIG_DEF;
    }

    /** Every configuration error at once; then whether the target can be reached. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        SinkConnectors.Checked keys = SinkConnectors.checkKeys(result, connectorConfigs);
        if (keys.hasErrors()) {
            return result;
        }
        PostgresSinkConfig config = new PostgresSinkConfig(connectorConfigs);
        try (Connection c = PgConnect.open(config.endpoint(), "sluice validate")) {
            c.isValid(5);
        } catch (ConnectException e) {
            url(result).addErrorMessage(e.getMessage());
        } catch (java.sql.SQLException e) {
            url(result).addErrorMessage(PgConnect.explain(e, config.endpoint()).getMessage());
        }
        return result;
    }

    private static ConfigValue url(Config config) {
        return config.configValues().stream().filter(v -> v.name().equals(PostgresSinkConfig.URL)).findFirst().orElseThrow();
    }
}
