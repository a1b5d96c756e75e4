package io.sluice.sink.opensearch.index;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.sink.opensearch.client.ClusterClient;

/** An index's documents (their ids, or their hits whole), read with a scroll in index order, a page at a time. */
public final class IndexScroll {

    /** Receives the ids of an index's documents, a page at a time. */
    @FunctionalInterface
    public interface IdPage {
        void accept(List<String> ids) throws InterruptedException;
    }

    private final ClusterClient client;

    public IndexScroll(ClusterClient client) {
        this.client = client;
    }

    /**
     * Hands over the ids of every document in the index, after a refresh so that every write
     * acknowledged so far is seen; nothing for an index that does not exist.
     */
    void eachId(String index, int pageSize, IdPage page) throws InterruptedException {
        eachId(index, pageSize, "{\"match_all\":{}}", page);
    }

    /** Hands over the ids of the documents the query (JSON) matches, as {@link #eachId(String, int, IdPage)} does. */
    void eachId(String index, int pageSize, String query, IdPage page) throws InterruptedException {
        eachHit(index, pageSize, query, false, hits -> {
            List<String> ids = new ArrayList<>();
            hits.forEach(hit -> ids.add(hit.path("_id").asText()));
            page.accept(ids);
        });
    }

    /** Receives the hits of a scroll, a page at a time. */
    @FunctionalInterface
    public interface HitPage {
        void accept(List<JsonNode> hits) throws InterruptedException;
    }

    /**
     * Hands over the hits of the query (JSON), with their bodies when {@code source}, after a
     * refresh so that every write acknowledged so far is seen, in one scroll (the index as it was
     * when the scroll began); nothing for an index that does not exist.
     */
    public void eachHit(String index, int pageSize, String query, boolean source, HitPage page) throws InterruptedException {
        // A search sees what the last refresh made searchable: documents written a moment ago would be missed (and stay).
        ClusterClient.Answer refreshed = client.call("POST", "/" + index + "/_refresh", Map.of(), null, "refresh " + index);
        if (refreshed.status() == 404) {
            return;
        }
        ClusterClient.Answer answer = client.call("POST", "/" + index + "/_search", Map.of("scroll", "1m"), ("{\"size\":" + pageSize
                + ",\"_source\":" + source + ",\"sort\":[\"_doc\"],\"query\":" + query + "}").getBytes(StandardCharsets.UTF_8),
                "list the documents of " + index);
        if (answer.status() == 404) {
            return;
        }
        JsonNode body = ClusterClient.json(answer);
        String scroll = body.path("_scroll_id").asText(null);
        try {
            while (body.path("hits").path("hits").size() > 0) {
                List<JsonNode> hits = new ArrayList<>();
                body.path("hits").path("hits").forEach(hits::add);
                page.accept(hits);
                body = ClusterClient.json(client.call("POST", "/_search/scroll", Map.of(), ("{\"scroll\":\"1m\",\"scroll_id\":\"" + scroll
                        + "\"}").getBytes(StandardCharsets.UTF_8), "list the documents of " + index));
                scroll = body.path("_scroll_id").asText(scroll);
            }
        } finally {
            if (scroll != null) {
                client.call("DELETE", "/_search/scroll", Map.of(), ("{\"scroll_id\":\"" + scroll + "\"}").getBytes(StandardCharsets.UTF_8),
                        "end a scroll");
            }
        }
    }
}
