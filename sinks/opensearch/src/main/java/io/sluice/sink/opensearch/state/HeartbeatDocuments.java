package io.sluice.sink.opensearch.state;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.sink.opensearch.client.ClusterClient;

/**
 * The newest heartbeat indexed per source, one document each in the sink's state index
 * ({@code kind: heartbeat}). It goes in the {@code _bulk} requests with the documents around it,
 * versioned by its commit time (so it never moves back), so a heartbeat counts as written only
 * once the cluster took a request after it: a cluster that is down shows as growing end-to-end
 * lag even while the source is idle.
 */
public final class HeartbeatDocuments {

    private final ClusterClient client;
    private final OwnIndex index;

    public HeartbeatDocuments(ClusterClient client, String stateIndex) {
        this.client = client;
        this.index = new OwnIndex(client, stateIndex, "{\"kind\":{\"type\":\"keyword\"},\"source\":{\"type\":\"keyword\"}}");
    }

    /** The index the documents go to, made (with the mapping the other state records use) when missing. */
    public String index() {
        index.ensure();
        return index.name();
    }

    /** The id of a source's heartbeat document. */
    public static String id(String source) {
        return "heartbeat:" + source;
    }

    /** Deletes a source's heartbeat document (its pipeline was torn down); whether there was one. */
    public boolean forget(String source) {
        if (!index.present()) {
            return false;
        }
        String id = URLEncoder.encode(id(source), StandardCharsets.UTF_8).replace("+", "%20");
        return client.call("DELETE", "/" + index.name() + "/_doc/" + id, Map.of("refresh", "true"), null,
                "forget the heartbeat of " + source).ok();
    }

    /** A heartbeat document's body. */
    public static void write(JsonGenerator out, String source, long commitMillis) throws IOException {
        out.writeStartObject();
        out.writeStringField("kind", "heartbeat");
        out.writeStringField("source", source);
        out.writeNumberField("committed_at_ms", commitMillis);
        out.writeStringField("committed_at", java.time.Instant.ofEpochMilli(commitMillis).toString());
        out.writeEndObject();
    }
}
