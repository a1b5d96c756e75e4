package io.sluice.sink.opensearch.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The transport hands 401 and 403 over as exceptions; the client reads them back as answers with their status and body. */
class ClusterClientTest {

    @Test
    void aRefusalIsReadBackAsItsAnswer() {
        ClusterClient.Answer plain = ClusterClient.refusal("method [GET], host [http://h:9200], URI [/], status line [HTTP/1.1 403 Forbidden]\n"
                + "{\"message\":\"no\"}");
        assertThat(plain.status()).isEqualTo(403);
        assertThat(plain.text()).isEqualTo("{\"message\":\"no\"}");
        ClusterClient.Answer warned = ClusterClient.refusal("method [GET], host [http://h:9200], URI [/], status line [HTTP/1.1 401 Unauthorized]\n"
                + "Warnings: [deprecated]\n{\"error\":\"who\"}");
        assertThat(warned.status()).isEqualTo(401);
        assertThat(warned.text()).isEqualTo("{\"error\":\"who\"}");
        assertThat(ClusterClient.refusal("Connection refused")).isNull();
    }
}
