package io.sluice.sink.webhook.payload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.sink.webhook.state.OutboxRow;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;
import org.junit.jupiter.api.Test;

/** A delivery's body in each format: JSON, CloudEvents structured and binary, batches, and a column projection. */
class RequestBodyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BODY = "{\"id\":\"msg_1\",\"operation\":\"update\",\"schema\":\"public\",\"table\":\"orders\","
            + "\"key\":{\"id\":7},\"before\":{\"id\":7,\"status\":\"new\",\"secret\":\"s\"},\"after\":{\"id\":7,\"status\":\"paid\","
            + "\"secret\":\"t\"},\"changed_columns\":[\"status\",\"secret\"],\"source\":{\"name\":\"shop\",\"lsn\":\"0/16B3748\","
            + "\"event\":3,\"commit_time\":\"2026-11-28T10:15:30.123Z\",\"snapshot\":false}}";

    private static SubscriptionSpec spec(String... options) {
        Map<String, String> o = new java.util.HashMap<>();
        o.put("url", "https://example.com/in");
        for (int i = 0; i < options.length; i += 2) {
            o.put(options[i], options[i + 1]);
        }
        List<String> errors = new ArrayList<>();
        SubscriptionSpec spec = SubscriptionSpec.parse("s", o::get, "", errors);
        assertThat(errors).isEmpty();
        return spec;
    }

    private static OutboxRow row(String id, String body) {
        return new OutboxRow(1, id, "public.orders", "update", 0, 0x16B3748, 0, body, false);
    }

    @Test
    void jsonIsTheChangeAsTheOutboxHoldsIt() throws Exception {
        RequestBody request = RequestBody.of(spec(), List.of(row("msg_1", BODY)));
        assertThat(request.webhookId()).isEqualTo("msg_1");
        assertThat(request.contentType()).isEqualTo("application/json");
        assertThat(JSON.readTree(request.body())).isEqualTo(JSON.readTree(BODY));
        assertThat(request.headers()).isEmpty();
    }

    @Test
    void structuredCloudEventsWrapTheChange() throws Exception {
        RequestBody request = RequestBody.of(spec("format", "cloudevents"), List.of(row("msg_1", BODY)));
        assertThat(request.contentType()).isEqualTo("application/cloudevents+json");
        JsonNode event = JSON.readTree(request.body());
        assertThat(event.path("specversion").asText()).isEqualTo("1.0");
        assertThat(event.path("id").asText()).isEqualTo("msg_1");
        assertThat(event.path("source").asText()).isEqualTo("/sluice/shop/public.orders");
        assertThat(event.path("type").asText()).isEqualTo("io.sluice.change.update");
        assertThat(event.path("time").asText()).isEqualTo("2026-11-28T10:15:30.123Z");
        assertThat(event.path("subject").asText()).isEqualTo("{\"id\":7}");
        assertThat(event.path("datacontenttype").asText()).isEqualTo("application/json");
        assertThat(event.path("data")).isEqualTo(JSON.readTree(BODY));
    }

    @Test
    void binaryCloudEventsPutTheAttributesInHeaders() throws Exception {
        RequestBody request = RequestBody.of(spec("format", "cloudevents-binary"), List.of(row("msg_1", BODY)));
        assertThat(request.contentType()).isEqualTo("application/json");
        assertThat(request.headers()).containsEntry("ce-specversion", "1.0").containsEntry("ce-id", "msg_1")
                .containsEntry("ce-source", "/sluice/shop/public.orders").containsEntry("ce-type", "io.sluice.change.update")
                .containsEntry("ce-time", "2026-11-28T10:15:30.123Z").containsEntry("ce-subject", "{\"id\":7}");
        assertThat(JSON.readTree(request.body())).isEqualTo(JSON.readTree(BODY));
    }

    @Test
    void aBatchIsAnArrayWithAnIdOfItsChanges() throws Exception {
        List<OutboxRow> rows = List.of(row("msg_1", BODY), row("msg_2", BODY.replace("msg_1", "msg_2")));
        RequestBody json = RequestBody.of(spec("batch.max.size", "10"), rows);
        assertThat(json.contentType()).isEqualTo("application/json");
        assertThat(JSON.readTree(json.body())).hasSize(2);
        assertThat(json.webhookId()).startsWith("msg_batch_").isEqualTo(RequestBody.of(spec("batch.max.size", "10"), rows).webhookId())
                .isNotEqualTo(RequestBody.of(spec("batch.max.size", "10"), List.of(rows.get(1), rows.get(0))).webhookId());
        RequestBody one = RequestBody.of(spec("batch.max.size", "10"), rows.subList(0, 1));
        assertThat(JSON.readTree(one.body()).isArray()).as("a batch of one is an array too").isTrue();
        RequestBody events = RequestBody.of(spec("format", "cloudevents", "batch.max.size", "10"), rows);
        assertThat(events.contentType()).isEqualTo("application/cloudevents-batch+json");
        assertThat(JSON.readTree(events.body()).get(1).path("id").asText()).isEqualTo("msg_2");
    }

    @Test
    void aProjectionKeepsItsColumnsAndTheKey() throws Exception {
        JsonNode change = JSON.readTree(RequestBody.of(spec("columns", "status"), List.of(row("msg_1", BODY))).body());
        assertThat(change.path("after").toString()).isEqualTo("{\"id\":7,\"status\":\"paid\"}");
        assertThat(change.path("before").toString()).isEqualTo("{\"id\":7,\"status\":\"new\"}");
        assertThat(change.path("changed_columns").toString()).isEqualTo("[\"status\"]");
        assertThat(change.path("source").path("lsn").asText()).isEqualTo("0/16B3748");
    }
}
