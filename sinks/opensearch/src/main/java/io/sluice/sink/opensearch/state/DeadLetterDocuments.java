package io.sluice.sink.opensearch.state;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.core.deadletter.DeadLetter;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.opensearch.client.ClusterClient;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The dead-letter store of the {@code sluice} command into OpenSearch: a document per record
 * the cluster would not index, in the sink's dead-letter index, with the record whole (key and
 * value in Sluice's binary format, base64), a readable rendering, where it came from and the
 * reason. A record is stored (acknowledged, so in the translog) before its report completes.
 */
public final class DeadLetterDocuments implements DeadLetterStore {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ClusterClient client;
    private final OwnIndex index;
    private final String pipeline;
    private final boolean closesClient;
    private final DeadLetter.Encoder encoder = new DeadLetter.Encoder();
    private long kept;

    /**
     * @param pipeline     the pipeline's name: several pipelines into one cluster keep their records apart
     * @param closesClient whether {@link #close()} closes the client (one made for this store alone)
     */
    public DeadLetterDocuments(ClusterClient client, String deadLetterIndex, String pipeline, boolean closesClient) {
        this.client = client;
        this.closesClient = closesClient;
        this.index = new OwnIndex(client, deadLetterIndex, "{\"pipeline\":{\"type\":\"keyword\"},\"source_table\":{\"type\":\"keyword\"},"
                + "\"source_position\":{\"type\":\"keyword\"},\"failed_at\":{\"type\":\"date\"}}");
        this.pipeline = pipeline;
    }

    @Override
    public String where() {
        return "index " + index.name() + " on " + client.address().display() + " (pipeline: " + pipeline + ")";
    }

    @Override
    public synchronized Future<Void> report(SinkRecord record, Throwable error) {
        DeadLetter letter = encoder.of(record, error);
        ObjectNode doc = JSON.createObjectNode();
        doc.put("pipeline", pipeline);
        doc.put("topic", letter.topic());
        doc.put("kafka_partition", letter.partition());
        doc.put("kafka_offset", letter.offset());
        doc.put("source_table", letter.sourceTable());
        doc.put("source_position", letter.sourcePosition());
        doc.put("reason", letter.reason());
        doc.put("value_text", letter.valueText());
        doc.put("record_key", letter.key() == null ? null : Base64.getEncoder().encodeToString(letter.key()));
        doc.put("record_value", letter.value() == null ? null : Base64.getEncoder().encodeToString(letter.value()));
        doc.put("headers", letter.headers());
        doc.put("failed_at", Instant.now().toString());
        try {
            index.ensure();
            ClusterClient.Answer answer = client.call("POST", "/" + index.name() + "/_doc", Map.of(), doc.toString().getBytes(StandardCharsets.UTF_8),
                    "keep a dead letter");
            if (!answer.ok()) {
                throw new ConnectException("OpenSearch answered " + answer.status() + " " + answer.brief());
            }
        } catch (ConnectException e) {
            throw new ConnectException("The record at " + record.topic() + "@" + record.kafkaOffset() + " could not be indexed ("
                    + error.getMessage() + ") nor kept in " + where() + ": " + e.getMessage(), e);
        }
        kept++;
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized long kept() {
        return kept;
    }

    /** How many records the pipeline has here; 0 when the index does not exist. */
    public long count() {
        if (!index.present()) {
            return 0;
        }
        client.call("POST", "/" + index.name() + "/_refresh", Map.of(), null, "refresh " + index.name()); // count what was just kept too
        String query = "{\"query\":{\"term\":{\"pipeline\":" + JSON.valueToTree(pipeline) + "}}}";
        return ClusterClient.json(client.call("POST", "/" + index.name() + "/_count", Map.of(), query.getBytes(StandardCharsets.UTF_8),
                "count dead letters")).path("count").asLong();
    }

    @Override
    public void close() {
        if (closesClient) {
            client.close();
        }
    }
}
