package io.sluice.testing.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

class ConnectClusterIT {

    @Test
    void workerStartsAndListsKafkasOwnPlugins() throws Exception {
        try (ConnectCluster connect = ConnectCluster.start("smoke-connect", 1)) {
            assertThat(connect.embedded().allWorkersHealthy()).isTrue();
            HttpResponse<String> plugins = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(connect.restUrl("connector-plugins?connectorsOnly=false"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(plugins.statusCode()).isEqualTo(200);
            assertThat(plugins.body())
                    .contains("org.apache.kafka.connect.file.FileStreamSourceConnector")
                    .contains("org.apache.kafka.connect.file.FileStreamSinkConnector")
                    .contains("org.apache.kafka.connect.transforms.MaskField$Value")
                    .contains("org.apache.kafka.connect.json.JsonConverter");
            System.out.println("Kafka Connect test cluster listed " + plugins.body().split("\"class\"").length + " plugins");
        }
    }
}
