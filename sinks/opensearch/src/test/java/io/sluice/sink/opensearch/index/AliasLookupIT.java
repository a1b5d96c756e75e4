package io.sluice.sink.opensearch.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.sink.opensearch.client.ClusterAddress;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.testing.opensearch.FaultyProxy;
import io.sluice.testing.opensearch.OpenSearchNode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Reading what an alias stands for takes several requests (the alias, the mapping of its index,
 * the list of versions, the mapping of a rebuild under way), and on a Connect cluster another task
 * may change the alias between any two of them: finish a rebuild (the alias moves to the new
 * version, the old one is dropped), begin one, or drop the table's indexes. Invariant: whichever
 * request the change comes before, the lookup answers what the cluster holds after it — never an
 * index that is gone, which a task would then write to (a task failed on a Connect cluster that way).
 */
class AliasLookupIT {

    private static final AtomicInteger TRIES = new AtomicInteger();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** The state before: a version behind the alias, and a rebuild under way beside it or not. */
    enum Before { ALIASED, REBUILDING }

    /** Another task's change. */
    enum Change { FINISH_REBUILD, BEGIN_REBUILD, DROP_TABLE, NONE }

    /** The request of the lookup the change comes before. */
    enum Request { ALIAS, MAPPING, VERSIONS, REBUILD_MAPPING, VERSIONS_AGAIN }

    @Property(tries = 60)
    void theLookupAnswersWhatTheClusterHoldsAfterAChangeBetweenItsRequests(@ForAll Before before, @ForAll Change change,
                                                                           @ForAll Request request) throws Exception {
        OpenSearchNode node = OpenSearchNode.shared();
        String alias = "lookup-" + TRIES.incrementAndGet();
        String v1 = IndexNames.physical(alias, 1);
        String v2 = IndexNames.physical(alias, 2);
        send(node, "PUT", "/" + v1, "{\"aliases\":{\"" + alias + "\":{}},\"mappings\":{\"properties\":{\"a\":{\"type\":\"long\"}}}}");
        if (before == Before.REBUILDING) {
            send(node, "PUT", "/" + v2, "{\"mappings\":{\"_meta\":{\"sluice_rebuilt_for\":7},\"properties\":{\"a\":{\"type\":\"long\"},"
                    + "\"b\":{\"type\":\"keyword\"}}}}");
        }
        try (FaultyProxy proxy = FaultyProxy.start(node, 1);
             ClusterClient viaProxy = client(proxy.httpUrl());
             ClusterClient direct = client(node.httpUrl())) {
            String path = switch (request) {
                case ALIAS -> "/_alias/" + alias;
                case MAPPING -> "/" + v1 + "/_mapping";
                case VERSIONS, VERSIONS_AGAIN -> "/" + alias + "_v*/_alias";
                case REBUILD_MAPPING -> "/" + v2 + "/_mapping";
            };
            proxy.before("GET", path, request == Request.VERSIONS_AGAIN ? 2 : 1, () -> apply(node, direct, change, before, alias));

            KnownIndex found = new AliasLookup(viaProxy).find(alias);
            KnownIndex truth = new AliasLookup(direct).find(alias);

            String what = before + ", " + change + " before the " + request + " request";
            if (truth == null) {
                assertThat(found).as(what).isNull();
                return;
            }
            assertThat(found).as(what).isNotNull();
            assertThat(found.physical).as(what + ": the index behind the alias").isEqualTo(truth.physical);
            assertThat(found.rebuild == null ? null : found.rebuild.physical).as(what + ": the rebuild under way")
                    .isEqualTo(truth.rebuild == null ? null : truth.rebuild.physical);
            assertThat(found.fields).as(what + ": the fields").isEqualTo(truth.fields);
            assertThat(exists(node, found.writeTarget().physical)).as(what + ": the index writes go to exists").isTrue();
        } finally {
            HTTP.send(HttpRequest.newBuilder(URI.create(node.httpUrl() + "/" + alias + "_v*")).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding());
        }
    }

    /** Another task's change, made straight on the node. */
    private static void apply(OpenSearchNode node, ClusterClient direct, Change change, Before before, String alias) throws Exception {
        String v1 = IndexNames.physical(alias, 1);
        String v2 = IndexNames.physical(alias, 2);
        switch (change) {
            case FINISH_REBUILD -> {
                if (before == Before.REBUILDING) {
                    IndexVersions.swap(direct, alias, v1, v2);
                }
            }
            case BEGIN_REBUILD -> send(node, "PUT", "/" + IndexNames.physical(alias, before == Before.REBUILDING ? 3 : 2),
                    "{\"mappings\":{\"_meta\":{\"sluice_rebuilt_for\":9},\"properties\":{\"c\":{\"type\":\"long\"}}}}");
            case DROP_TABLE -> send(node, "DELETE", "/" + alias + "_v*", null);
            case NONE -> {
            }
        }
    }

    private static ClusterClient client(String url) {
        return new ClusterClient(ClusterAddress.parse(url, null, null, null, null, true, 30_000), 2, 30_000);
    }

    private static boolean exists(OpenSearchNode node, String index) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(node.httpUrl() + "/" + index)).method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    }

    private static String send(OpenSearchNode node, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.httpUrl() + path)).header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> answer = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(method + " " + path + ": " + answer.body()).isLessThan(300);
        return answer.body();
    }
}
