package io.sluice.sink.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.sink.webhook.signing.SigningSecret;
import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import io.sluice.testing.webhook.TestReceiver.Received;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The webhook sink as a Connect plugin: two tasks on two workers read table topics of three
 * partitions and write one outbox; one of them delivers the subscription. A TRUNCATE waits at
 * its barrier (agreed on in the state database). A worker is stopped while changes stream: its
 * partitions and, when it held it, the subscription move, and every change still arrives, in
 * order per key, signed. Connect's validate reports every configuration error at once.
 */
@ExtendWith(PostgresExtension.class)
class WebhookOnConnectIT {

    private static final int PARTITIONS = 3;

    @Test
    void twoTasksOnTwoWorkersDeliverEveryChangeInOrderThroughAStoppedWorker() throws Exception {
        TestDatabases.withSourceAndTarget(WebhookOnConnectIT.class, (source, state) -> {
            source.execute("CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)",
                    "INSERT INTO counters SELECT g, 0 FROM generate_series(1, 500) g",
                    "CREATE TABLE scratch (id int PRIMARY KEY)", "INSERT INTO scratch SELECT generate_series(1, 10)");
            String secret = SigningSecret.generate(new SecureRandom());
            try (TestReceiver receiver = new TestReceiver(List.of(secret));
                 ConnectCluster connect = ConnectCluster.start("wh", 2, Map.of("scheduled.rebalance.max.delay.ms", "2000"))) {
                Map<String, String> sourceConfig = ConnectorConfigs.sourceWithBarriers(source, "wh", "public.*", PARTITIONS);
                sourceConfig.put("slot.name", "wh_slot");
                connect.embedded().configureConnector("wh-source", sourceConfig);
                Map<String, String> sink = sinkConfig(state, receiver.url(), secret);

                ConfigInfos bad = connect.embedded().validateConnectorConfig(WebhookSinkConnector.class.getSimpleName(), withBadKeys(sink));
                List<String> errors = new ArrayList<>();
                bad.values().forEach(v -> errors.addAll(v.configValue().errors()));
                assertThat(errors).as("every error at once: " + errors).hasSizeGreaterThanOrEqualTo(3);
                assertThat(String.join("\n", errors)).contains("only http and https").contains("secrets is missing")
                        .contains("no network").doesNotContain(secret);

                connect.embedded().configureConnector("wh-sink", sink);
                await(() -> ids(receiver).size() >= 510, "the snapshot's 510 rows delivered");

                source.execute("UPDATE counters SET n = n + 1 WHERE id % 3 = 0", "UPDATE counters SET n = n + 1 WHERE id % 5 = 0",
                        "TRUNCATE scratch", "INSERT INTO scratch VALUES (-1)");
                await(() -> ids(receiver).stream().count() >= 510 + 166 + 100 + 2, "the changes and the truncation delivered");

                WorkerHandle stopped = connect.busiestWorker("wh-sink");
                String gone = ":" + stopped.url().getPort();
                connect.embedded().removeWorker(stopped);
                source.execute("UPDATE counters SET n = n + 1 WHERE id % 2 = 0", "UPDATE counters SET n = n + 1 WHERE id % 7 = 0",
                        "INSERT INTO scratch VALUES (-2)");
                await(() -> connect.allTasksRunningElsewhere("wh-sink", 2, gone), "the sink's tasks running on the other worker");
                Map<Integer, Integer> expected = new HashMap<>();
                for (int id = 1; id <= 500; id++) {
                    expected.put(id, (id % 3 == 0 ? 1 : 0) + (id % 5 == 0 ? 1 : 0) + (id % 2 == 0 ? 1 : 0) + (id % 7 == 0 ? 1 : 0));
                }
                await(() -> latest(receiver).equals(expected), "every counter's last value delivered");

                assertThat(receiver.received()).allMatch(Received::verified, "every request verified by the spec's verifier");
                assertInOrderPerKey(receiver.accepted());
                List<String> scratch = new ArrayList<>();
                for (Received r : receiver.accepted()) {
                    JsonNode change = r.json();
                    if (change.path("table").asText().equals("scratch") && !change.path("operation").asText().equals("read")) {
                        scratch.add(change.path("operation").asText() + ":" + change.path("key").path("id").asText(""));
                    }
                }
                assertThat(scratch.stream().distinct().toList()).as("the truncation between the rows around it")
                        .containsExactly("truncate:", "insert:-1", "insert:-2");
                assertThat(connect.embedded().connectorStatus("wh-sink").tasks())
                        .allSatisfy(task -> assertThat(task.state()).as("task %d: %s", task.id(), task.trace()).isEqualTo("RUNNING"));
                connect.embedded().deleteConnector("wh-source");
                connect.embedded().deleteConnector("wh-sink");
            }
        });
    }

    /**
     * On a cluster the sink holds no source: a subscription declared with backfill=true waits,
     * its note naming the INSERT that asks for it; once that is made on the source, the current
     * rows reach that subscription alone, as reads.
     */
    @Test
    void aBackfillAskedForWithTheSignalTablesInsertReachesItsSubscriptionAlone() throws Exception {
        TestDatabases.withSourceAndTarget(WebhookOnConnectIT.class, (source, state) -> {
            source.execute("CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)",
                    "INSERT INTO counters SELECT g, 0 FROM generate_series(1, 300) g");
            String secret = SigningSecret.generate(new SecureRandom());
            try (TestReceiver first = new TestReceiver(List.of(secret)); TestReceiver late = new TestReceiver(List.of(secret));
                 ConnectCluster connect = ConnectCluster.start("wb", 1, Map.of())) {
                Map<String, String> sourceConfig = ConnectorConfigs.sourceWithBarriers(source, "wb", "public.*", PARTITIONS);
                sourceConfig.put("slot.name", "wb_slot");
                sourceConfig.put("resync.chunk.rows", "50");
                connect.embedded().configureConnector("wb-source", sourceConfig);
                Map<String, String> sink = sinkConfig(state, first.url(), secret);
                sink.put("topics.regex", "wb\\..*");
                connect.embedded().configureConnector("wb-sink", sink);
                await(() -> ids(first).size() >= 300, "the snapshot's 300 rows delivered");

                sink.put("subscriptions", "all,late");
                sink.put("subscription.late.url", late.url());
                sink.put("subscription.late.secrets", secret);
                sink.put("subscription.late.tables", "public.counters");
                sink.put("subscription.late.backfill", "true");
                connect.embedded().configureConnector("wb-sink", sink);
                String note = "SELECT (SELECT backfill || ': ' || coalesce(backfill_note, '') FROM sluice.webhook_subscriptions "
                        + "WHERE name = 'late')";
                await(() -> String.valueOf(state.queryText(note)).contains("INSERT INTO sluice_signals.requests"),
                        "the late subscription's note naming the INSERT");
                assertThat(state.queryText(note)).startsWith("pending");
                source.execute("UPDATE counters SET n = 1 WHERE id <= 10");

                source.execute("INSERT INTO sluice_signals.requests (pipeline, kind, target, subscription) "
                        + "VALUES ('wb', 'resync', 'public.counters', 'late')");
                await(() -> reads(late, true).size() == 300, "the backfill's 300 reads at the late subscriber");
                await(() -> "done".equals(source.queryText("SELECT (SELECT state FROM sluice_signals.requests WHERE subscription = 'late')")),
                        "the request done");
                // The sink's tasks restarted with the new configuration, and Kafka handed them again what Connect had not
                // committed: the outbox knows it has those records (a snapshot's rows too), so no subscriber gets a row again
                // after the newer changes of its row. The backfill's reads have ids of their own.
                assertThat(reads(first, false)).as("the first subscriber's snapshot reads").hasSize(300)
                        .allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
                assertInOrderPerKey(first.accepted());
                assertThat(reads(late, false)).as("the late subscriber gets no snapshot row: it was made after them").isEmpty();
                assertThat(reads(first, true)).as("the first subscriber gets nothing of the backfill").isEmpty();
                assertThat(reads(late, true)).as("the late subscriber's backfill: each row once").hasSize(300)
                        .allSatisfy((id, n) -> assertThat(n).isEqualTo(1));
                assertThat(latest(late)).as("the late subscriber's rows as the source has them").hasSize(300)
                        .allSatisfy((id, n) -> assertThat(n).as("counter " + id).isEqualTo(id <= 10 ? 1 : 0));
                assertThat(state.queryText(note)).startsWith("started");
                assertThat(connect.embedded().connectorStatus("wb-sink").tasks())
                        .allSatisfy(task -> assertThat(task.state()).as("task %d: %s", task.id(), task.trace()).isEqualTo("RUNNING"));
                connect.embedded().deleteConnector("wb-source");
                connect.embedded().deleteConnector("wb-sink");
            }
        });
    }

    /** Reads accepted per counter id, each delivery once: the snapshot's, or the others (a re-sync's, streamed with a position). */
    private static Map<Integer, Integer> reads(TestReceiver receiver, boolean resynced) {
        Map<Integer, Integer> reads = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (Received r : receiver.accepted()) {
            if (seen.add(r.id()) && r.json().path("operation").asText().equals("read") && r.id().contains("_snap_") != resynced) {
                reads.merge(r.json().path("after").path("id").asInt(), 1, Integer::sum);
            }
        }
        return reads;
    }

    private static Map<String, String> sinkConfig(TestDatabase state, String url, String secret) {
        Map<String, String> sink = new HashMap<>();
        sink.put("connector.class", WebhookSinkConnector.class.getName());
        sink.put("tasks.max", "2");
        sink.put("topics.regex", "wh\\..*");
        sink.put("consumer.override.metadata.max.age.ms", "1000");
        sink.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        sink.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        sink.put("state.url", state.url());
        sink.put("delivery.allow.networks", "127.0.0.1/32");
        sink.put("subscriptions", "all");
        sink.put("subscription.all.url", url);
        sink.put("subscription.all.secrets", secret);
        sink.put("subscription.all.retry.initial.ms", "100");
        return sink;
    }

    private static Map<String, String> withBadKeys(Map<String, String> sink) {
        Map<String, String> bad = new HashMap<>(sink);
        bad.put("subscriptions", "all,nosecret");
        bad.put("subscription.all.url", "ftp://example.com/x");
        bad.put("subscription.nosecret.url", "https://example.com/in");
        bad.put("delivery.allow.networks", "everything");
        return bad;
    }

    /** Each counter's value in the last change accepted for it. */
    private static Map<Integer, Integer> latest(TestReceiver receiver) {
        Map<Integer, Integer> latest = new HashMap<>();
        for (Received r : receiver.accepted()) {
            JsonNode change = r.json();
            if (change.path("table").asText().equals("counters") && change.path("after").isObject()) {
                latest.put(change.path("after").path("id").asInt(), change.path("after").path("n").asInt());
            }
        }
        return latest;
    }

    /** Per counter, the values first accepted never step back. */
    private static void assertInOrderPerKey(List<Received> accepted) {
        Map<Integer, List<Integer>> byKey = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (Received r : accepted) {
            JsonNode change = r.json();
            if (seen.add(r.id()) && change.path("table").asText().equals("counters")) {
                byKey.computeIfAbsent(change.path("after").path("id").asInt(), k -> new ArrayList<>()).add(change.path("after").path("n").asInt());
            }
        }
        byKey.forEach((key, values) -> {
            for (int i = 1; i < values.size(); i++) {
                assertThat(values.get(i)).as("counter " + key + " in order: " + values).isEqualTo(values.get(i - 1) + 1);
            }
        });
    }

    private static Set<String> ids(TestReceiver receiver) {
        Set<String> ids = new HashSet<>();
        receiver.accepted().forEach(r -> ids.add(r.id()));
        return ids;
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!condition.holds()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(250);
        }
    }
}
