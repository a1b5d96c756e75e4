package io.sluice.sink.opensearch.state;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.sluice.sink.opensearch.client.ClusterClient;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * One of the indexes the sink keeps its own records in, made when first written to: a
 * mapping that indexes only what is looked up (the rest stays in {@code _source}), and one
 * replica where the cluster has a node for it, so a record outlives a node.
 */
final class OwnIndex {

    private final ClusterClient client;
    private final String name;
    private final String properties;
    private volatile boolean exists;

    /** @param properties the mapping's {@code properties} object, as JSON */
    OwnIndex(ClusterClient client, String name, String properties) {
        this.client = client;
        this.name = name;
        this.properties = properties;
    }

    String name() {
        return name;
    }

    /** Makes the index unless it is there. */
    void ensure() {
        if (exists) {
            return;
        }
        ClusterClient.Answer head = client.call("HEAD", "/" + name, Map.of(), null, "look for index " + name);
        if (head.status() != 200) {
            String body = "{\"settings\":{\"index\":{\"number_of_shards\":1,\"auto_expand_replicas\":\"0-1\"}},"
                    + "\"mappings\":{\"dynamic\":false,\"properties\":" + properties + "}}";
            ClusterClient.Answer created = client.call("PUT", "/" + name, Map.of(), body.getBytes(StandardCharsets.UTF_8),
                    "create index " + name);
            if (!created.ok() && !created.text().contains("resource_already_exists_exception")) {
                throw new ConnectException("Cannot create index " + name + ", where the sink keeps its own records: OpenSearch answered "
                        + created.status() + " " + created.brief() + ". The sink's user needs create_index and write on it (or set "
                        + "state.index.prefix to a name it may create)");
            }
        }
        exists = true;
    }

    /** Whether the index is there, without making it. */
    boolean present() {
        return exists || client.call("HEAD", "/" + name, Map.of(), null, "look for index " + name).status() == 200;
    }
}
