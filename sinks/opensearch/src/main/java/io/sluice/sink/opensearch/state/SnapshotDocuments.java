package io.sluice.sink.opensearch.state;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.opensearch.client.ClusterClient;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Which snapshot the indexes hold, per source (a pipeline's name): one document in the state
 * index, written when a snapshot starts and again when every row of it is indexed. The
 * {@code sluice} command decides from it whether to copy, resume or stream (the cluster is the
 * truth, local files only cache it), and {@code sluice status} shows it.
 */
public final class SnapshotDocuments {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One source's record. Source tables and the aliases of their indexes are in the same order;
     * a finished record lists the tables that had rows (an empty table has no index until its first row).
     */
    public record Snapshot(String source, String database, OffsetDateTime takenAt, OffsetDateTime startedAt, OffsetDateTime finishedAt,
                           List<String> sourceTables, List<String> aliases) {

        public boolean finished() {
            return finishedAt != null;
        }
    }

    private final ClusterClient client;
    private final OwnIndex index;

    public SnapshotDocuments(ClusterClient client, String stateIndex) {
        this.client = client;
        this.index = new OwnIndex(client, stateIndex, "{\"kind\":{\"type\":\"keyword\"},\"source\":{\"type\":\"keyword\"}}");
    }

    /** Where the records are, for messages. */
    public String where() {
        return "index " + index.name();
    }

    /** Records that a source's snapshot began indexing (or began again). */
    public void started(String source, String database, long takenMicros, List<String> sourceTables, List<String> aliases) {
        write(source, database, takenMicros, sourceTables, aliases, false);
    }

    /** Records that every row of a source's snapshot is indexed. */
    public void finished(String source, String database, long takenMicros, List<String> sourceTables, List<String> aliases) {
        write(source, database, takenMicros, sourceTables, aliases, true);
    }

    private void write(String source, String database, long takenMicros, List<String> sourceTables, List<String> aliases, boolean finished) {
        index.ensure();
        Optional<Snapshot> earlier = finished ? read(source) : Optional.empty();
        ObjectNode doc = JSON.createObjectNode();
        doc.put("kind", "snapshot");
        doc.put("source", source);
        doc.put("database", database);
        doc.put("taken_at", Instant.EPOCH.plusNanos(takenMicros * 1000L).toString());
        String now = Instant.now().toString();
        doc.put("started_at", earlier.map(s -> s.startedAt().toInstant().toString()).orElse(now));
        if (finished) {
            doc.put("finished_at", now);
        } else {
            doc.putNull("finished_at");
        }
        sourceTables.forEach(doc.putArray("source_tables")::add);
        aliases.forEach(doc.putArray("aliases")::add);
        ClusterClient.Answer answer = client.call("PUT", "/" + index.name() + "/_doc/" + id(source), Map.of("refresh", "true"),
                doc.toString().getBytes(StandardCharsets.UTF_8), "record the snapshot of " + source);
        if (!answer.ok()) {
            throw new ConnectException("Cannot record the snapshot of " + source + " in index " + index.name() + ": OpenSearch answered "
                    + answer.status() + " " + answer.brief());
        }
    }

    /** The record of a source's snapshot; empty when there is none. */
    public Optional<Snapshot> read(String source) {
        ClusterClient.Answer answer = client.call("GET", "/" + index.name() + "/_doc/" + id(source), Map.of(), null,
                "read the snapshot record of " + source);
        if (answer.status() == 404) {
            return Optional.empty();
        }
        JsonNode doc = ClusterClient.json(answer);
        if (!doc.path("found").asBoolean(false)) {
            return Optional.empty();
        }
        JsonNode s = doc.path("_source");
        return Optional.of(new Snapshot(source, s.path("database").asText(null), time(s.path("taken_at")), time(s.path("started_at")),
                time(s.path("finished_at")), strings(s.path("source_tables")), strings(s.path("aliases"))));
    }

    /** Deletes a source's record; whether there was one. */
    public boolean forget(String source) {
        if (!index.present()) {
            return false;
        }
        ClusterClient.Answer answer = client.call("DELETE", "/" + index.name() + "/_doc/" + id(source), Map.of("refresh", "true"), null,
                "forget the snapshot of " + source);
        return answer.ok();
    }

    private static String id(String source) {
        return URLEncoder.encode("snapshot:" + source, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static OffsetDateTime time(JsonNode node) {
        return node.isTextual() ? Instant.parse(node.asText()).atOffset(ZoneOffset.UTC) : null;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
