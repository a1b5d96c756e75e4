package io.sluice.sink.opensearch;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.opensearch.bulk.DocumentIds;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.client.ConnectionCheck;
import io.sluice.sink.opensearch.index.IndexNames;
import io.sluice.sink.opensearch.index.IndexScroll;
import io.sluice.sink.opensearch.mapping.DocumentValues;
import org.apache.kafka.connect.data.Struct;

/**
 * The OpenSearch sink's front door for {@code sluice verify}: the document the sink writes for a
 * row (its id and body, through the sink's own conversion), and the documents an index holds,
 * read back whole in one consistent view (a scroll) or by id (real-time gets).
 */
public final class OpenSearchDocuments implements AutoCloseable {

    /** Receives a document of an index: its id and its body. */
    @FunctionalInterface
    public interface Document {
        void accept(String id, JsonNode body);
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PAGE = 1000;

    private final OpenSearchSinkConfig config;
    private final DocumentValues values;
    private final ClusterClient client;

    /** How long a question waits for a busy cluster. */
    private static final long QUESTION_RETRY_MILLIS = 30_000;

    /**
     * Asks the cluster who it is first, as the sink does.
     *
     * @param keys the sink's configuration keys
     * @throws org.apache.kafka.connect.errors.ConnectException saying why, when the cluster does not answer or refuses
     */
    public OpenSearchDocuments(Map<String, String> keys) {
        this.config = new OpenSearchSinkConfig(keys);
        this.values = new DocumentValues(config.mappingOptions());
        this.client = new ClusterClient(config.address(), 1, QUESTION_RETRY_MILLIS);
        try {
            ConnectionCheck.check(client);
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** The cluster's address without secrets. */
    public String display() {
        return config.address().display();
    }

    /** The alias the sink writes a source table's documents to. */
    public String alias(String sourceName, String schema, String table) {
        return new IndexNames(config.indexNameFormat()).aliasOf(sourceName, schema, table);
    }

    /** The id of the document of the row with this key. */
    public static String id(Struct key) {
        return DocumentIds.of(key);
    }

    /** The body the sink writes for the row, as a tree. */
    public JsonNode body(Struct row) {
        StringWriter text = new StringWriter();
        try (JsonGenerator out = JSON.getFactory().createGenerator(text)) {
            values.write(row, Set.of(), out);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot write the document of a row of " + row.schema().name() + ": " + e.getMessage(), e);
        }
        return parse(text.toString());
    }

    /** Whether the index (or alias) exists. */
    public boolean exists(String alias) {
        return client.call("HEAD", "/" + alias, Map.of(), null, "look for " + alias).status() == 200;
    }

    /**
     * Every document of the alias, after a refresh (so that every write acknowledged so far is
     * seen), in one scroll: the index as it was when the scroll began.
     */
    public void each(String alias, Document each) {
        try {
            new IndexScroll(client).eachHit(alias, PAGE, "{\"match_all\":{}}", true,
                    hits -> hits.forEach(hit -> each.accept(hit.path("_id").asText(), hit.path("_source"))));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading the documents of " + alias, e);
        }
    }

    /** The documents of these ids the alias holds now (real-time: acknowledged writes count); an id it lacks is absent. */
    public Map<String, JsonNode> byIds(String alias, Collection<String> ids) {
        Map<String, JsonNode> found = new HashMap<>();
        if (ids.isEmpty()) {
            return found;
        }
        ObjectNode request = JSON.createObjectNode();
        ids.forEach(request.putArray("ids")::add);
        JsonNode answer = ClusterClient.json(client.call("POST", "/" + alias + "/_mget", Map.of("realtime", "true"),
                request.toString().getBytes(StandardCharsets.UTF_8), "read documents of " + alias + " by id"));
        answer.path("docs").forEach(d -> {
            if (d.path("found").asBoolean(false)) {
                found.put(d.path("_id").asText(), d.path("_source"));
            }
        });
        return found;
    }

    private static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
