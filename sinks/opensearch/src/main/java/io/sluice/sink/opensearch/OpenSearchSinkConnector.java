package io.sluice.sink.opensearch;

import java.util.Map;

import io.sluice.sink.core.connector.SinkConnectors;
import io.sluice.sink.core.connector.SluiceSinkConnector;
import io.sluice.sink.opensearch.client.ClusterAddress;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.client.ConnectionCheck;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Keeps OpenSearch indexes in step with PostgreSQL tables: one index per table (an alias over a
 * versioned index), one document per row, every write ordered by its source position.
 */
public class OpenSearchSinkConnector extends SluiceSinkConnector {

    public OpenSearchSinkConnector() {
        super(OpenSearchSinkConfig.CONFIG_DEF, OpenSearchSinkConfig::new, OpenSearchSinkTask.class);
    }

    /** Every configuration error at once; then whether the cluster answers to these credentials. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        SinkConnectors.Checked keys = SinkConnectors.checkKeys(result, connectorConfigs);
        if (keys.hasErrors()) {
            return result;
        }
        OpenSearchSinkConfig config = new OpenSearchSinkConfig(connectorConfigs);
        ClusterAddress address;
        try {
            address = config.address();
        } catch (ConfigException e) {
            keys.byName().get(e.getMessage().contains(OpenSearchSinkConfig.AWS_ACCESS_KEY) ? OpenSearchSinkConfig.AWS_ACCESS_KEY
                    : OpenSearchSinkConfig.URL).addErrorMessage(e.getMessage());
            return result;
        }
        try (ClusterClient client = new ClusterClient(address, 1, 0)) {
            ConnectionCheck.check(client);
        } catch (ConnectException e) {
            keys.byName().get(OpenSearchSinkConfig.URL).addErrorMessage(e.getMessage());
        }
        return result;
    }
}
