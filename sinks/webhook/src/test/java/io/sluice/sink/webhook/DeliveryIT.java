package io.sluice.sink.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.webhook.TestReceiver;
import io.sluice.testing.webhook.TestReceiver.Received;
import io.sluice.testing.webhook.TestReceiver.Reply;
import io.sluice.sink.webhook.signing.SigningSecret;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The webhook sink end to end: a PostgreSQL source through the source and sink tasks, an outbox
 * in a state database, and real HTTP receivers on loopback that verify every signature with the
 * spec's verifier. Receivers that fail at random (500, 429 with Retry-After, answers too slow),
 * one that is down for a while, one that answers 410 or 400.
 */
@ExtendWith(PostgresExtension.class)
class DeliveryIT {

    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void everyChangeArrivesSignedInOrderPerKeyAndADuplicateKeepsItsId() throws Exception {
        TestDatabases.withSourceAndTarget(DeliveryIT.class, (source, state) -> {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, v int NOT NULL, status text)",
                    "ALTER TABLE orders REPLICA IDENTITY FULL",
                    "INSERT INTO orders SELECT g, 0, 'new' FROM generate_series(1, 40) g");
            String fastSecret = SigningSecret.generate(RANDOM);
            String oldSecret = SigningSecret.generate(RANDOM);
            String newSecret = SigningSecret.generate(RANDOM);
            Random chance = new Random(7);
            try (TestReceiver fast = new TestReceiver(List.of(fastSecret));
                 TestReceiver flaky = new TestReceiver(List.of(newSecret)).answering(n -> {
                     int roll;
                     synchronized (chance) {
                         roll = chance.nextInt(100);
                     }
                     if (roll < 20) {
                         return new Reply(500, null, 0);
                     } else if (roll < 28) {
                         return new Reply(429, "1", 0);
                     } else if (roll < 32) {
                         return new Reply(503, null, 0);
                     } else if (roll < 36) {
                         return new Reply(200, null, 1_500); // past the subscription's timeout: counted as failed, sent again
                     }
                     return new Reply(200, null, 0);
                 })) {
                Map<String, String> sinkProps = Pipes.sinkProps(state, "subscriptions", "fast,flaky",
                        "subscription.fast.url", fast.url(), "subscription.fast.secrets", fastSecret,
                        "subscription.flaky.url", flaky.url(), "subscription.flaky.secrets", oldSecret + "," + newSecret,
                        "subscription.flaky.timeout.ms", "1000", "subscription.flaky.retry.initial.ms", "20",
                        "subscription.flaky.retry.max.ms", "300", "subscription.flaky.max.in.flight", "4");
                Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
                try (SourceToSink<WebhookSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "shop"), sinkProps)) {
                    pipe.pumpUntil(() -> ids(fast).size() >= 40, 120_000, "the 40 snapshot rows at the fast receiver");
                    pipe.commit();
                    Random keys = new Random(11);
                    for (int i = 0; i < 300; i++) {
                        int id = 1 + keys.nextInt(40);
                        source.execute("UPDATE orders SET v = v + 1, status = 's" + i + "' WHERE id = " + id);
                    }
                    source.execute("DELETE FROM orders WHERE id <= 3", "INSERT INTO orders VALUES (41, 0, 'late')");
                    int expected = 40 + 300 + 3 + 1;
                    pipe.pumpUntil(() -> ids(fast).size() >= expected && ids(flaky).size() >= expected, 180_000,
                            "every change at both receivers");
                    pipe.commit();
                }
                for (TestReceiver receiver : List.of(fast, flaky)) {
                    assertThat(receiver.received()).allMatch(Received::verified, "signature verified by the spec's verifier");
                    assertInOrderPerKey(receiver.accepted());
                    assertSameBodyPerId(receiver.received());
                    assertThat(ids(receiver)).hasSize(40 + 300 + 3 + 1);
                }
                assertThat(flaky.received().size()).as("the flaky receiver got retries").isGreaterThan(flaky.accepted().size());
                assertThat(state.queryLong("SELECT count(*) FROM sluice.webhook_attempts WHERE subscription = 'flaky' "
                        + "AND outcome IN ('retrying', 'throttled')")).isGreaterThan(0);
                assertThat(state.queryLong("SELECT count(*) FROM sluice.webhook_failed")).isZero();
                JsonNode update = fast.accepted().stream().map(Received::json).filter(j -> j.path("operation").asText().equals("update"))
                        .findFirst().orElseThrow();
                assertThat(update.path("changed_columns").toString()).isEqualTo("[\"v\",\"status\"]");
                assertThat(update.path("before").path("v").asInt()).isEqualTo(update.path("after").path("v").asInt() - 1);
                assertThat(update.path("source").path("lsn").asText()).matches("[0-9A-F]+/[0-9A-F]+");
            }
        });
    }

    @Test
    void aReceiverThatIsDownDelaysNoOtherAndGetsEverythingWhenItComesBack() throws Exception {
        TestDatabases.withSourceAndTarget(DeliveryIT.class, (source, state) -> {
            source.execute("CREATE TABLE events (id int PRIMARY KEY, v int NOT NULL)");
            String secret = SigningSecret.generate(RANDOM);
            try (TestReceiver live = new TestReceiver(List.of(secret)); TestReceiver down = new TestReceiver(List.of(secret))) {
                down.goDown();
                Map<String, String> sinkProps = Pipes.sinkProps(state, "subscriptions", "live,down",
                        "subscription.live.url", live.url(), "subscription.live.secrets", secret,
                        "subscription.down.url", down.url(), "subscription.down.secrets", secret,
                        "subscription.down.retry.initial.ms", "50", "subscription.down.retry.max.ms", "500");
                Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
                try (SourceToSink<WebhookSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "app"), sinkProps)) {
                    pipe.pumpUntil(() -> true, 1000, "start");
                    Thread.sleep(500);
                    Map<Integer, Long> committed = new HashMap<>();
                    pipe.startPumping();
                    try (java.sql.Connection c = source.connect(); java.sql.Statement st = c.createStatement()) {
                        // The test server commits asynchronously (WAL flushed every 200 ms), which would be measured instead.
                        st.execute("SET synchronous_commit = on");
                        for (int i = 1; i <= 200; i++) {
                            st.execute("INSERT INTO events VALUES (" + i + ", 0)");
                            committed.put(i, System.currentTimeMillis());
                            Thread.sleep(5);
                        }
                    }
                    long deadline = System.currentTimeMillis() + 60_000;
                    while (ids(live).size() < 200 && System.currentTimeMillis() < deadline) {
                        Thread.sleep(20);
                    }
                    pipe.stopPumping();
                    assertThat(ids(live)).hasSize(200);
                    pipe.commit();
                    List<Long> latencies = new ArrayList<>();
                    for (Received r : live.accepted()) {
                        int id = r.json().path("key").path("id").asInt();
                        latencies.add(r.arrivedMillis() - committed.get(id));
                    }
                    latencies.sort(Long::compare);
                    long p99 = latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1);
                    System.out.printf("live receiver with another one down: commit -> receipt p50 %d ms, p99 %d ms%n",
                            latencies.get(latencies.size() / 2), p99);
                    assertThat(p99).as("p99 ms from commit to receipt at the live receiver while another is down").isLessThan(2_000);
                    assertThat(state.queryLong("SELECT count(*) FROM sluice.webhook_attempts WHERE subscription = 'down' "
                            + "AND outcome = 'retrying'")).as("the down receiver was tried").isGreaterThan(0);
                    assertThat(down.received()).isEmpty();
                    assertThat(state.queryLong("SELECT position FROM sluice.webhook_subscriptions WHERE name = 'down'"))
                            .isLessThan(state.queryLong("SELECT position FROM sluice.webhook_subscriptions WHERE name = 'live'"));
                    down.comeBack();
                    pipe.pumpUntil(() -> ids(down).size() >= 200, 60_000, "200 inserts at the receiver that came back");
                    assertInOrderPerKey(down.accepted());
                    assertThat(down.received()).allMatch(Received::verified);
                }
            }
        });
    }

    @Test
    void batchesCarryEveryChangeInOrderPerKey() throws Exception {
        TestDatabases.withSourceAndTarget(DeliveryIT.class, (source, state) -> {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, v int NOT NULL, status text)");
            String secret = SigningSecret.generate(RANDOM);
            try (TestReceiver batches = new TestReceiver(List.of(secret)).answering(n -> new Reply(n % 5 == 0 ? 503 : 200, null, 2));
                 TestReceiver events = new TestReceiver(List.of(secret));
                 TestReceiver binary = new TestReceiver(List.of(secret))) {
                Map<String, String> sinkProps = Pipes.sinkProps(state, "subscriptions", "batches,events,binary",
                        "subscription.binary.url", binary.url(), "subscription.binary.secrets", secret,
                        "subscription.binary.format", "cloudevents-binary",
                        "subscription.batches.url", batches.url(), "subscription.batches.secrets", secret,
                        "subscription.batches.batch.max.size", "50", "subscription.batches.max.in.flight", "2",
                        "subscription.batches.retry.initial.ms", "20", "subscription.batches.retry.max.ms", "100",
                        "subscription.events.url", events.url(), "subscription.events.secrets", secret,
                        "subscription.events.format", "cloudevents", "subscription.events.batch.max.size", "20");
                Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
                int expected = 200 + 100 + 66 + 50 + 40 + 33;
                try (SourceToSink<WebhookSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "shop"), sinkProps)) {
                    pipe.pumpUntil(() -> true, 1000, "start");
                    Thread.sleep(500);
                    source.execute("INSERT INTO orders SELECT g, 0, 'new' FROM generate_series(1, 200) g");
                    for (int i = 0; i < 5; i++) {
                        source.execute("UPDATE orders SET v = v + 1 WHERE id % " + (i + 2) + " = 0");
                    }
                    pipe.pumpUntil(() -> changes(batches, false).size() >= expected && changes(events, true).size() >= expected
                                    && binary.accepted().size() >= expected, 120_000, "every change at the three receivers");
                }
                assertThat(batches.received()).allMatch(Received::verified);
                assertThat(batches.accepted()).as("requests held several changes").hasSizeLessThan(200 + 100 + 66 + 50 + 40 + 33);
                assertInOrderPerKey(changes(batches, false));
                assertThat(events.accepted()).allSatisfy(r -> assertThat(r.contentType()).startsWith("application/cloudevents-batch+json"));
                assertInOrderPerKey(changes(events, true));
                // CloudEvents binary mode: one change per request, its attributes in ce- headers, the change itself the body.
                assertThat(binary.received()).allMatch(Received::verified);
                assertThat(binary.accepted()).hasSize(expected).allSatisfy(r -> {
                    assertThat(r.contentType()).startsWith("application/json");
                    assertThat(r.ceHeaders()).containsEntry("ce-specversion", "1.0").containsEntry("ce-id", r.id())
                            .containsEntry("ce-type", "io.sluice.change." + r.json().path("operation").asText())
                            .containsEntry("ce-source", "/sluice/shop/public.orders")
                            .containsEntry("ce-subject", "{\"id\":" + r.json().path("key").path("id").asInt() + "}")
                            .containsKey("ce-time");
                });
                assertInOrderPerKey(binary.accepted());
            }
        });
    }

    /** The changes the receiver accepted, unpacked from their batches (from the CloudEvents' data), as requests of their own. */
    private static List<Received> changes(TestReceiver receiver, boolean cloudEvents) {
        List<Received> changes = new ArrayList<>();
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (Received r : receiver.accepted()) {
            for (JsonNode item : r.json()) {
                JsonNode change = cloudEvents ? item.path("data") : item;
                try {
                    changes.add(new Received(change.path("id").asText(), r.timestamp(), r.signature(), r.contentType(),
                            json.writeValueAsBytes(change), r.arrivedMillis(), r.verified(), r.answered(), Map.of()));
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        return changes.stream().filter(c -> seen.add(c.id())).toList();
    }

    @Test
    void a410DisablesTheSubscriptionAndA400FailsOneDeliveryForGood() throws Exception {
        TestDatabases.withSourceAndTarget(DeliveryIT.class, (source, state) -> {
            source.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
            String secret = SigningSecret.generate(RANDOM);
            try (TestReceiver gone = new TestReceiver(List.of(secret)).answering(n -> new Reply(n < 3 ? 204 : 410, null, 0));
                 TestReceiver picky = new TestReceiver(List.of(secret)).answering(n -> new Reply(n == 2 ? 400 : 204, null, 0));
                 TestReceiver inside = new TestReceiver(List.of(secret));
                 TestReceiver down = new TestReceiver(List.of(secret));
                 TestReceiver careful = new TestReceiver(List.of(secret)).answering(n -> new Reply(n == 1 ? 400 : 204, null, 0))) {
                down.goDown();
                Map<String, String> sinkProps = Pipes.sinkProps(state, "subscriptions", "gone,picky,down,careful",
                        "subscription.down.url", down.url(), "subscription.down.secrets", secret,
                        "subscription.down.retry.initial.ms", "50", "subscription.down.retry.max.ms", "200",
                        "subscription.down.disable.after.ms", "1500",
                        "subscription.careful.url", careful.url(), "subscription.careful.secrets", secret,
                        "subscription.careful.on.failure", "pause", "subscription.careful.max.in.flight", "1",
                        "subscription.gone.url", gone.url(), "subscription.gone.secrets", secret,
                        "subscription.gone.max.in.flight", "1",
                        "subscription.picky.url", picky.url(), "subscription.picky.secrets", secret,
                        "subscription.picky.max.in.flight", "1");
                Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
                try (SourceToSink<WebhookSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "app"), sinkProps)) {
                    pipe.pumpUntil(() -> true, 1000, "start");
                    Thread.sleep(500);
                    for (int i = 1; i <= 5; i++) {
                        source.execute("INSERT INTO t VALUES (" + i + ", 'x')");
                    }
                    pipe.pumpUntil(() -> picky.received().size() >= 5 && gone.received().size() >= 3, 60_000, "the deliveries");
                    pipe.commit();
                    awaitValue(state, "SELECT status FROM sluice.webhook_subscriptions WHERE name = 'gone'", "disabled");
                    Thread.sleep(1_000);
                    assertThat(gone.received()).as("nothing after the 410").hasSize(3);
                    assertThat(state.queryText("SELECT status_reason FROM sluice.webhook_subscriptions WHERE name = 'gone'")).contains("410");
                    assertThat(picky.received()).hasSize(5);
                    awaitValue(state, "SELECT count(*)::text FROM sluice.webhook_failed WHERE subscription = 'picky' AND status = 400", "1");
                    assertThat(state.queryText("SELECT status FROM sluice.webhook_subscriptions WHERE name = 'picky'")).isEqualTo("active");
                    // Failing without one success for disable.after.ms: disabled, with why.
                    awaitValue(state, "SELECT status FROM sluice.webhook_subscriptions WHERE name = 'down'", "disabled");
                    assertThat(state.queryText("SELECT status_reason FROM sluice.webhook_subscriptions WHERE name = 'down'"))
                            .contains("failed since");
                    // on.failure=pause: the first delivery failed for good, and nothing after it went.
                    awaitValue(state, "SELECT status FROM sluice.webhook_subscriptions WHERE name = 'careful'", "paused");
                    assertThat(careful.received()).hasSize(1);
                    assertThat(state.queryText("SELECT status_reason FROM sluice.webhook_subscriptions WHERE name = 'careful'"))
                            .contains("400");
                }
                // Without an allow-list, loopback is refused, on the address the name resolves to when connecting.
                Map<String, String> guarded = Pipes.sinkProps(state, "subscriptions", "inside",
                        "subscription.inside.url", inside.url().replace("127.0.0.1", "localhost"), "subscription.inside.secrets", secret,
                        "delivery.allow.networks", "");
                try (SourceToSink<WebhookSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "app"), guarded)) {
                    pipe.pumpUntil(() -> true, 1000, "start");
                    Thread.sleep(500);
                    source.execute("INSERT INTO t VALUES (100, 'x')");
                    pipe.pumpUntil(() -> {
                        try {
                            return state.queryLong("SELECT count(*) FROM sluice.webhook_failed WHERE subscription = 'inside'") > 0;
                        } catch (java.sql.SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    }, 60_000, "the refused delivery in the log");
                    assertThat(inside.received()).isEmpty();
                    assertThat(state.queryText("SELECT error FROM sluice.webhook_failed WHERE subscription = 'inside'"))
                            .contains("loopback").contains("delivery.allow.networks");
                }
            }
        });
    }

    private static void awaitValue(TestDatabase db, String sql, String expected) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        String last = null;
        while (System.currentTimeMillis() < deadline) {
            last = db.queryText(sql);
            if (expected.equals(last)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(sql + " gave " + last + ", not " + expected);
    }

    /** The distinct delivery ids a receiver accepted. */
    private static java.util.Set<String> ids(TestReceiver receiver) {
        java.util.Set<String> ids = new java.util.HashSet<>();
        receiver.accepted().forEach(r -> ids.add(r.id()));
        return ids;
    }

    /** Per key, the versions (column v) in the order they were first accepted rise one by one; a delete comes last. */
    private static void assertInOrderPerKey(List<Received> accepted) {
        Map<Integer, List<String>> byKey = new LinkedHashMap<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Received r : accepted) { // in arrival order, as the receiver recorded them
            if (!seen.add(r.id())) {
                continue;
            }
            JsonNode change = r.json();
            int key = change.path("key").path("id").asInt();
            String op = change.path("operation").asText();
            byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(op.equals("delete") ? "delete" : change.path("after").path("v").asText());
        }
        byKey.forEach((key, versions) -> {
            for (int i = 0; i < versions.size(); i++) {
                if (versions.get(i).equals("delete")) {
                    assertThat(i).as("key " + key + ": the delete comes last, " + versions).isEqualTo(versions.size() - 1);
                } else {
                    assertThat(Integer.parseInt(versions.get(i))).as("key " + key + " in order: " + versions)
                            .isEqualTo(Integer.parseInt(versions.get(0)) + i);
                }
            }
        });
    }

    private static void assertSameBodyPerId(List<Received> received) {
        Map<String, String> bodyById = new HashMap<>();
        for (Received r : received) {
            String body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
            String earlier = bodyById.putIfAbsent(r.id(), body);
            if (earlier != null) {
                assertThat(body).as("a delivery sent again keeps its id and body").isEqualTo(earlier);
            }
        }
    }
}
