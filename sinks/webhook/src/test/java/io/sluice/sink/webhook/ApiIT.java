package io.sluice.sink.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.webhook.TestReceiver;
import io.sluice.testing.webhook.TestReceiver.Received;
import io.sluice.testing.webhook.TestReceiver.Reply;
import io.sluice.sink.webhook.signing.SigningSecret;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The subscription API of a running sink: the bearer token (401 without it or with a wrong one),
 * subscriptions made, changed, paused, resumed and deleted at run time, a test event, the
 * delivery log, and a replay of a delivery that failed for good — with the same id.
 */
@ExtendWith(PostgresExtension.class)
class ApiIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "test-token-0123456789abcdef";
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void subscriptionsAreManagedAtRunTimeBehindTheToken() throws Exception {
        TestDatabases.withSourceAndTarget(ApiIT.class, (source, state) -> {
            source.execute("CREATE TABLE t (id int PRIMARY KEY, v text, secret text)");
            String declaredSecret = SigningSecret.generate(new SecureRandom());
            try (TestReceiver declared = new TestReceiver(List.of(declaredSecret));
                 TestReceiver picky = new TestReceiver(List.of()).answering(n -> new Reply(n == 1 ? 422 : 204, null, 0))) {
                Map<String, String> props = Pipes.sinkProps(state, "api.listen", "127.0.0.1:0", "api.token", TOKEN,
                        "subscriptions", "declared", "subscription.declared.url", declared.url(),
                        "subscription.declared.secrets", declaredSecret);
                Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
                try (SourceToSink<WebhookSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "app"), props)) {
                    String api = pipe.sink().apiAddress();
                    assertThat(call("GET", api + "/health", null, null).statusCode()).isEqualTo(200);
                    assertThat(call("GET", api + "/subscriptions", null, null).statusCode()).isEqualTo(401);
                    assertThat(call("GET", api + "/subscriptions", "wrong-token-0123456789", null).statusCode()).isEqualTo(401);
                    assertThat(call("GET", api + "/subscriptions", TOKEN.substring(1), null).statusCode()).isEqualTo(401);

                    HttpResponse<String> bad = call("POST", api + "/subscriptions", TOKEN,
                            "{\"name\": \"meta\", \"url\": \"http://169.254.169.254/latest\", \"operations\": [\"upsert\"]}");
                    assertThat(bad.statusCode()).isEqualTo(400);
                    assertThat(bad.body()).contains("link-local").contains("upsert");

                    HttpResponse<String> made = call("POST", api + "/subscriptions", TOKEN, "{\"name\": \"audit\", \"url\": \"" + picky.url()
                            + "\", \"tables\": [\"public.t\"], \"operations\": [\"insert\", \"update\"], \"columns\": [\"v\"], "
                            + "\"max.in.flight\": 1, \"retry.timeout.ms\": 0}");
                    assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
                    String secret = JSON.readTree(made.body()).path("secret").asText();
                    assertThat(secret).startsWith("whsec_");
                    picky.close();
                    try (TestReceiver audit = new TestReceiver(List.of(secret)).answering(n -> new Reply(n == 1 ? 422 : 204, null, 0))) {
                        HttpResponse<String> moved = call("PATCH", api + "/subscriptions/audit", TOKEN, "{\"url\": \"" + audit.url() + "\"}");
                        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
                        JsonNode list = JSON.readTree(call("GET", api + "/subscriptions", TOKEN, null).body());
                        assertThat(list.path("subscriptions")).hasSize(2);
                        assertThat(list.toString()).doesNotContain("whsec_");
                        assertThat(call("PATCH", api + "/subscriptions/declared", TOKEN, "{\"tables\": \"x.y\"}").statusCode()).isEqualTo(409);

                        JsonNode test = JSON.readTree(call("POST", api + "/subscriptions/audit/test", TOKEN, "").body());
                        assertThat(test.path("outcome").asText()).as(test.toString()).isEqualTo("failed"); // the receiver's first answer: 422
                        assertThat(audit.received()).singleElement().satisfies(r -> {
                            assertThat(r.verified()).isTrue();
                            assertThat(r.json().path("operation").asText()).isEqualTo("test");
                        });

                        pipe.startPumping();
                        Thread.sleep(3_000); // the deliveries read the subscriptions every 2 s
                        source.execute("INSERT INTO t VALUES (1, 'one', 's1')", "INSERT INTO t VALUES (2, 'two', 's2')");
                        await(() -> audit.accepted().size() >= 2, "both inserts at the audit receiver");
                        assertThat(audit.accepted()).allSatisfy(r -> {
                            assertThat(r.verified()).isTrue();
                            assertThat(r.json().path("after").has("secret")).as("projected to id and v").isFalse();
                            assertThat(r.json().path("after").has("v")).isTrue();
                        });

                        assertThat(call("POST", api + "/subscriptions/audit/pause", TOKEN, "").statusCode()).isEqualTo(200);
                        Thread.sleep(3_000);
                        source.execute("UPDATE t SET v = 'uno' WHERE id = 1");
                        Thread.sleep(2_000);
                        assertThat(audit.accepted()).hasSize(2);
                        assertThat(call("POST", api + "/subscriptions/audit/resume", TOKEN, "").statusCode()).isEqualTo(200);
                        await(() -> audit.accepted().size() >= 3, "the update after the resume");

                        // A delivery failed for good (the 422 above went to the test event, so make one now).
                        audit.answering(n -> new Reply(400, null, 0));
                        source.execute("INSERT INTO t VALUES (3, 'three', 's3')");
                        await(() -> failedCount(api, "audit") == 1, "the 400 in the delivery log");
                        JsonNode deliveries = JSON.readTree(call("GET", api + "/subscriptions/audit/deliveries", TOKEN, null).body());
                        String failedId = deliveries.path("failed").get(0).path("deliveryId").asText();
                        assertThat(deliveries.path("attempts").toString()).contains("\"outcome\":\"failed\"").contains("\"status\":400");
                        audit.answering(n -> new Reply(204, null, 0));
                        JsonNode replay = JSON.readTree(call("POST", api + "/subscriptions/audit/replay", TOKEN, "{\"failed\": true}").body());
                        assertThat(replay.path("replayed").asInt()).isEqualTo(1);
                        await(() -> audit.accepted().stream().anyMatch(r -> r.id().equals(failedId)), "the replayed delivery");
                        await(() -> failedCount(api, "audit") == 0, "the replayed delivery out of the failed list");

                        // Two more fail for good; a replay by position range takes the one inside it, one by time the other.
                        audit.answering(n -> new Reply(400, null, 0));
                        source.execute("INSERT INTO t VALUES (4, 'four', 's4')");
                        await(() -> failedCount(api, "audit") == 1, "the first 400 in the delivery log");
                        source.execute("INSERT INTO t VALUES (5, 'five', 's5')");
                        await(() -> failedCount(api, "audit") == 2, "the second 400 in the delivery log");
                        JsonNode failedTwo = JSON.readTree(call("GET", api + "/subscriptions/audit/deliveries", TOKEN, null).body()).path("failed");
                        String fourId = failedTwo.get(0).path("deliveryId").asText();
                        String fiveId = failedTwo.get(1).path("deliveryId").asText();
                        String fiveLsn = Lsn.format(Long.parseLong(state.queryText("SELECT lsn::text FROM sluice.webhook_outbox WHERE seq = "
                                + failedTwo.get(1).path("seq").asLong())));
                        audit.answering(n -> new Reply(204, null, 0));
                        HttpResponse<String> badLsn = call("POST", api + "/subscriptions/audit/replay", TOKEN,
                                "{\"failed\": true, \"from_lsn\": \"nonsense\"}");
                        assertThat(badLsn.statusCode()).isEqualTo(400);
                        assertThat(badLsn.body()).contains("from_lsn");
                        JsonNode byLsn = JSON.readTree(call("POST", api + "/subscriptions/audit/replay", TOKEN,
                                "{\"failed\": true, \"from_lsn\": \"" + fiveLsn + "\", \"to_lsn\": \"" + fiveLsn + "\"}").body());
                        assertThat(byLsn.path("replayed").asInt()).as(byLsn.toString()).isEqualTo(1);
                        await(() -> audit.accepted().stream().anyMatch(r -> r.id().equals(fiveId)), "the delivery replayed by position");
                        await(() -> failedCount(api, "audit") == 1, "the replayed delivery out of the failed list");
                        assertThat(audit.accepted()).noneMatch(r -> r.id().equals(fourId));
                        String hourAgo = java.time.Instant.now().minusSeconds(3600).toString();
                        JsonNode tooEarly = JSON.readTree(call("POST", api + "/subscriptions/audit/replay", TOKEN,
                                "{\"failed\": true, \"to\": \"" + hourAgo + "\"}").body());
                        assertThat(tooEarly.path("replayed").asInt()).isZero();
                        JsonNode byTime = JSON.readTree(call("POST", api + "/subscriptions/audit/replay", TOKEN,
                                "{\"failed\": true, \"from\": \"" + hourAgo + "\"}").body());
                        assertThat(byTime.path("replayed").asInt()).isEqualTo(1);
                        await(() -> audit.accepted().stream().anyMatch(r -> r.id().equals(fourId)), "the delivery replayed by time");
                        await(() -> failedCount(api, "audit") == 0, "no failed delivery left");

                        assertThat(call("DELETE", api + "/subscriptions/audit", TOKEN, null).statusCode()).isEqualTo(204);
                        assertThat(call("GET", api + "/subscriptions/audit", TOKEN, null).statusCode()).isEqualTo(404);
                        pipe.stopPumping();
                    }
                    assertThat(declared.received()).allMatch(Received::verified);
                    assertThat(declared.accepted()).hasSizeGreaterThanOrEqualTo(3);
                }
            }
        });
    }

    private int failedCount(String api, String name) {
        try {
            return JSON.readTree(call("GET", api + "/subscriptions/" + name + "/deliveries", TOKEN, null).body()).path("failed").size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }

    private HttpResponse<String> call(String method, String url, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
