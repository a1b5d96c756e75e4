package io.sluice.sink.opensearch.state;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.core.barrier.BarrierStore;
import io.sluice.sink.opensearch.client.ClusterClient;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The OpenSearch sink's barrier store: an index where the tasks of one connector, on any worker,
 * record which partitions reached a barrier and which barriers are released — one document
 * each, keyed by what it records, so a repeated arrival or release changes nothing. Writes wait
 * for the refresh that makes them visible to searches ({@code refresh=wait_for}), so a task that
 * asks right after another arrived sees it; releases are read by id, in real time. Barriers are
 * rare (a snapshot's start and end, a table's end, a schema change): the wait costs little.
 */
public final class BarrierDocuments implements BarrierStore {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ClusterClient client;
    private final OwnIndex index;
    private final String connector;

    /** @param connector the sink connector's name: connectors sharing a cluster keep their barriers apart */
    public BarrierDocuments(ClusterClient client, String barrierIndex, String connector) {
        this.client = client;
        this.index = new OwnIndex(client, barrierIndex, "{\"kind\":{\"type\":\"keyword\"},\"connector\":{\"type\":\"keyword\"},"
                + "\"barrier\":{\"type\":\"keyword\"},\"topic\":{\"type\":\"keyword\"},\"partition\":{\"type\":\"integer\"}}");
        this.connector = connector;
    }

    @Override
    public void arrive(String barrier, TopicPartition partition, long offset) {
        ObjectNode doc = JSON.createObjectNode();
        doc.put("kind", "arrival");
        doc.put("connector", connector);
        doc.put("barrier", barrier);
        doc.put("topic", partition.topic());
        doc.put("partition", partition.partition());
        doc.put("offset", offset);
        put("arrival:" + connector + ":" + barrier + ":" + partition.topic() + ":" + partition.partition(), doc,
                "record that " + partition + " reached barrier " + barrier);
    }

    @Override
    public Set<TopicPartition> arrived(String barrier, Collection<String> topics) {
        Set<TopicPartition> arrived = new HashSet<>();
        if (topics.isEmpty() || !index.present()) {
            return arrived;
        }
        ObjectNode query = JSON.createObjectNode();
        query.put("size", 10_000);
        ArrayNode filter = query.putObject("query").putObject("bool").putArray("filter");
        filter.addObject().putObject("term").put("kind", "arrival");
        filter.addObject().putObject("term").put("connector", connector);
        filter.addObject().putObject("term").put("barrier", barrier);
        ArrayNode names = filter.addObject().putObject("terms").putArray("topic");
        topics.forEach(names::add);
        JsonNode hits = read(client.call("POST", "/" + index.name() + "/_search", Map.of(), bytes(query),
                "read the arrivals at barrier " + barrier));
        for (JsonNode hit : hits.path("hits").path("hits")) {
            JsonNode source = hit.path("_source");
            arrived.add(new TopicPartition(source.path("topic").asText(), source.path("partition").asInt()));
        }
        return arrived;
    }

    @Override
    public Set<String> released(Collection<String> barriers) {
        Set<String> released = new HashSet<>();
        if (barriers.isEmpty() || !index.present()) {
            return released;
        }
        ObjectNode body = JSON.createObjectNode();
        ArrayNode ids = body.putArray("ids");
        barriers.forEach(b -> ids.add(releaseId(b)));
        JsonNode docs = read(client.call("POST", "/" + index.name() + "/_mget", Map.of("realtime", "true"), bytes(body),
                "read which barriers are released"));
        for (JsonNode doc : docs.path("docs")) {
            if (doc.path("found").asBoolean(false)) {
                released.add(doc.path("_source").path("barrier").asText());
            }
        }
        return released;
    }

    @Override
    public void release(String barrier) {
        ObjectNode doc = JSON.createObjectNode();
        doc.put("kind", "release");
        doc.put("connector", connector);
        doc.put("barrier", barrier);
        put(releaseId(barrier), doc, "release barrier " + barrier);
    }

    @Override
    public void releaseElsewhere(String barrier) {
        release(barrier); // the client is shared by threads
    }

    private String releaseId(String barrier) {
        return "release:" + connector + ":" + barrier;
    }

    private void put(String id, ObjectNode doc, String what) {
        index.ensure();
        ClusterClient.Answer answer = client.call("PUT", "/" + index.name() + "/_doc/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
                .replace("+", "%20"), Map.of("refresh", "wait_for"), bytes(doc), what);
        if (!answer.ok()) {
            throw new ConnectException("Cannot " + what + " in index " + index.name() + ": OpenSearch answered " + answer.status() + " "
                    + answer.brief());
        }
    }

    private static JsonNode read(ClusterClient.Answer answer) {
        return answer.status() == 404 ? JSON.createObjectNode() : ClusterClient.json(answer);
    }

    private static byte[] bytes(JsonNode node) {
        return node.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void reset() {
        // Nothing is held between calls: each is a request of its own.
    }

    @Override
    public void close() {
        // The client belongs to the task.
    }
}
