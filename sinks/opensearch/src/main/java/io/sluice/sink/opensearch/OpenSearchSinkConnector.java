package io.sluice.sink.opensearch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.config.UnresolvedPlaceholders;
import io.sluice.sink.core.batch.BatchTuningConfig;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.client.ConnectionCheck;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * Keeps OpenSearch indexes in step with PostgreSQL tables: one index per table (an alias over a
 * versioned index), one document per row, every write ordered by its source position.
 */
public class OpenSearchSinkConnector extends SinkConnector {

    private Map<String, String> props;

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        new OpenSearchSinkConfig(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return OpenSearchSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>();
        for (int i = 0; i < maxTasks; i++) {
            configs.add(props);
        }
        return configs;
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return OpenSearchSinkConfig.CONFIG_DEF;
    }

    /** Every configuration error at once; then whether the cluster answers to these credentials. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        Map<String, ConfigValue> byName = new HashMap<>();
        result.configValues().forEach(v -> byName.put(v.name(), v));
        BatchTuningConfig.validate(byName);
        UnresolvedPlaceholders.report(connectorConfigs, result);
        if (result.configValues().stream().anyMatch(v -> !v.errorMessages().isEmpty())) {
            return result;
        }
        OpenSearchSinkConfig config = new OpenSearchSinkConfig(connectorConfigs);
        try (ClusterClient client = new ClusterClient(config.address(), 1)) {
            ConnectionCheck.check(client);
        } catch (ConnectException e) {
            byName.get(OpenSearchSinkConfig.URL).addErrorMessage(e.getMessage());
        }
        return result;
    }
}
