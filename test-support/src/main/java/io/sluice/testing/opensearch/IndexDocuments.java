package io.sluice.testing.opensearch;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What an index of the test node holds, read over plain HTTP for the tests' checks (never
 * through the sink's own client, whose reads are under test too).
 */
public final class IndexDocuments {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private IndexDocuments() {
    }

    /**
     * Every document of an index (or alias), its {@code _source} by {@code _id}, after a refresh; empty when there is no such
     * index. An alias moved to a new index version while it was read (the old one dropped under the scroll) is read again
     * where it points now: the documents are always those of one index.
     */
    public static Map<String, JsonNode> all(OpenSearchNode node, String index) throws IOException, InterruptedException {
        for (int moves = 0; ; moves++) {
            Map<String, JsonNode> docs = readAll(node, index);
            if (docs != null) {
                return docs;
            }
            if (moves == 10) {
                throw new IOException("The index behind " + index + " was dropped under every one of 10 reads");
            }
        }
    }

    /** As {@link #all}; null when the index read was dropped while its pages were read. */
    private static Map<String, JsonNode> readAll(OpenSearchNode node, String index) throws IOException, InterruptedException {
        Map<String, JsonNode> docs = new HashMap<>();
        if (send(node, "POST", "/" + index + "/_refresh", null).statusCode() == 404) {
            return docs;
        }
        JsonNode page = json(send(node, "POST", "/" + index + "/_search?scroll=1m", "{\"size\":5000,\"query\":{\"match_all\":{}}}"));
        String scroll = page.path("_scroll_id").asText();
        // The concrete indexes read: those behind the name as the scroll began (an alias being moved may have two, one of them
        // without a hit), and those the hits came from.
        java.util.Set<String> began = behind(node, index);
        java.util.Set<String> read = new java.util.HashSet<>(began);
        try {
            while (page.path("hits").path("hits").size() > 0) {
                for (JsonNode hit : page.path("hits").path("hits")) {
                    docs.put(hit.path("_id").asText(), hit.path("_source"));
                    read.add(hit.path("_index").asText());
                }
                HttpResponse<String> next = send(node, "POST", "/_search/scroll", "{\"scroll\":\"1m\",\"scroll_id\":\"" + scroll + "\"}");
                if (next.statusCode() == 404 && next.body().contains("search_context_missing_exception") && (anyGone(node, read) || !behind(node, index).equals(began))) {
                    scroll = ""; // gone with one of its indexes, or the alias moved meanwhile
                    return null;
                }
                page = json(next);
                scroll = page.path("_scroll_id").asText(scroll);
            }
        } finally {
            // A test polling an index for minutes would otherwise hold hundreds of open scrolls, past the node's limit of 500.
            if (!scroll.isEmpty()) {
                send(node, "DELETE", "/_search/scroll", "{\"scroll_id\":[\"" + scroll + "\"]}");
            }
        }
        return docs;
    }

    /** The concrete indexes behind a name (an alias's, or the index itself); empty when there is none. */
    private static java.util.Set<String> behind(OpenSearchNode node, String index) throws IOException, InterruptedException {
        java.util.Set<String> indexes = new java.util.TreeSet<>();
        HttpResponse<String> mapping = send(node, "GET", "/" + index + "/_mapping", null);
        if (mapping.statusCode() == 200) {
            JSON.readTree(mapping.body()).fieldNames().forEachRemaining(indexes::add);
        }
        return indexes;
    }

    /** Whether one of these indexes no longer exists (dropped under a scroll). */
    private static boolean anyGone(OpenSearchNode node, java.util.Set<String> indexes) throws IOException, InterruptedException {
        for (String index : indexes) {
            if (send(node, "HEAD", "/" + index, null).statusCode() == 404) {
                return true;
            }
        }
        return false;
    }

    /** A document's {@code _source} as stored now (a realtime read); null when there is none. */
    public static JsonNode get(OpenSearchNode node, String index, String id) throws IOException, InterruptedException {
        HttpResponse<String> answer = send(node, "GET", "/" + index + "/_doc/" + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20"),
                null);
        if (answer.statusCode() == 404) {
            return null;
        }
        return json(answer).path("_source");
    }

    /** Documents in the index after a refresh; -1 when there is no such index. */
    public static long count(OpenSearchNode node, String index) throws IOException, InterruptedException {
        if (send(node, "POST", "/" + index + "/_refresh", null).statusCode() == 404) {
            return -1;
        }
        return json(send(node, "GET", "/" + index + "/_count", null)).path("count").asLong();
    }

    /** Documents matching a query (a JSON {@code query} body) after a refresh; -1 when the index does not exist (yet). */
    public static long count(OpenSearchNode node, String index, String queryBody) throws IOException, InterruptedException {
        if (send(node, "POST", "/" + index + "/_refresh", null).statusCode() == 404) {
            return -1;
        }
        return json(send(node, "POST", "/" + index + "/_count", queryBody)).path("count").asLong();
    }

    /** The ids of the documents matching a query (a JSON {@code query} body; at most 10,000) after a refresh. */
    public static java.util.Set<String> ids(OpenSearchNode node, String index, String queryBody) throws IOException, InterruptedException {
        send(node, "POST", "/" + index + "/_refresh", null);
        JsonNode query = JSON.readTree(queryBody);
        com.fasterxml.jackson.databind.node.ObjectNode body = JSON.createObjectNode();
        body.set("query", query.path("query"));
        body.put("size", 10_000);
        body.put("_source", false);
        java.util.Set<String> ids = new java.util.HashSet<>();
        json(send(node, "POST", "/" + index + "/_search", body.toString())).path("hits").path("hits")
                .forEach(hit -> ids.add(hit.path("_id").asText()));
        return ids;
    }

    private static HttpResponse<String> send(OpenSearchNode node, String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(node.httpUrl() + path)).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
        // An index just created (by the sink, while a test looks) answers 503 until its shard has started.
        long deadline = System.nanoTime() + 30_000_000_000L;
        HttpResponse<String> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        while (answer.statusCode() == 503 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        }
        return answer;
    }

    private static JsonNode json(HttpResponse<String> answer) throws IOException {
        if (answer.statusCode() / 100 != 2) {
            throw new IOException("OpenSearch answered " + answer.statusCode() + ": " + answer.body());
        }
        return JSON.readTree(answer.body());
    }
}
