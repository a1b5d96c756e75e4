package io.sluice.testing.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.apache.hc.core5.http.HttpHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.opensearch.client.opensearch.OpenSearchClient;
import org.opensearch.client.opensearch.core.SearchResponse;
import org.opensearch.client.transport.OpenSearchTransport;
import org.opensearch.client.transport.httpclient5.ApacheHttpClient5TransportBuilder;

@ExtendWith(OpenSearchExtension.class)
class OpenSearchServiceIT {

    @Test
    void indexedDocumentIsFoundAfterRefresh(OpenSearchNode node) throws Exception {
        System.out.println("OpenSearch test node: " + node.origin() + " at " + node.httpUrl());
        try (OpenSearchTransport transport = ApacheHttpClient5TransportBuilder.builder(HttpHost.create(node.httpUrl())).build()) {
            OpenSearchClient client = new OpenSearchClient(transport);
            client.indices().create(c -> c.index("smoke"));
            client.index(i -> i.index("smoke").id("1").document(Map.of("title", "sluice smoke test", "rows", 42)));
            client.indices().refresh(r -> r.index("smoke"));

            @SuppressWarnings({"rawtypes", "unchecked"})
            SearchResponse<Map> found = client.search(s -> s.index("smoke")
                    .query(q -> q.match(m -> m.field("title").query(v -> v.stringValue("smoke")))), Map.class);
            assertThat(found.hits().hits()).hasSize(1);
            assertThat(found.hits().hits().get(0).id()).isEqualTo("1");
            assertThat(found.hits().hits().get(0).source()).containsEntry("rows", 42);
        }
    }
}
