package io.sluice.sink.postgres;

import java.sql.Connection;
import java.util.Map;

import io.sluice.schemas.postgres.PgConnect;
import io.sluice.sink.core.connector.SinkConnectors;
import io.sluice.sink.core.connector.SluiceSinkConnector;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Writes change events into PostgreSQL. Snapshot rows go in with binary COPY, several tables'
 * batches at once; it reads Sluice's events and Debezium's.
 */
public class PostgresSinkConnector extends SluiceSinkConnector {

    public PostgresSinkConnector() {
        super(PostgresSinkConfig.CONFIG_DEF, PostgresSinkConfig::new, PostgresSinkTask.class);
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
