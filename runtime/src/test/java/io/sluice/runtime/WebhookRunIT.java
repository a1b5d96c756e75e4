package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import io.sluice.testing.webhook.TestReceiver.Received;
import io.sluice.testing.webhook.TestReceiver.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice run --target webhook} as a user runs it: the snapshot and a stream of updates
 * delivered to a real receiver on loopback that verifies every signature; a graceful stop and
 * {@code sluice status}; then a run in a JVM of its own killed with SIGKILL while deliveries are
 * in flight, and started again. Every change arrives at least once, in order per key (each
 * update adds one to a counter, so a gap or a step back shows), and a change sent again has
 * the id and body it had the first time. The source is named apart from the pipeline
 * ({@code topic.prefix}): status shows, and teardown forgets, the snapshot recorded under it.
 */
@ExtendWith(PostgresExtension.class)
class WebhookRunIT {

    @TempDir
    Path work;

    @Test
    void runDeliversTheSnapshotAndEveryChangeThroughAStopAndAKill() throws Exception {
        TestDatabase source = TestDatabases.create(WebhookRunIT.class);
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new SecureRandom());
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread workload = null;
        SluiceProcess killed = null;
        try (TestReceiver receiver = new TestReceiver(List.of(secret)).answering(n -> new Reply(204, null, n % 7 == 0 ? 30 : 0))) {
            source.execute("CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL, note text)",
                    "INSERT INTO counters SELECT g, 0, 'c' || g FROM generate_series(1, 300) g");
            int apiPort;
            try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
                apiPort = free.getLocalPort();
            }
            String api = "http://127.0.0.1:" + apiPort;
            String token = "run-it-token-0123456789abcdef";
            String[] command = {"run", "--source", SluiceRuns.url(source), "--target", "webhook", "--name", "hooks",
                    "--set", "target.api.listen=127.0.0.1:" + apiPort, "--set", "target.api.token=" + token,
                    "--offsets", work.resolve("hooks.offsets").toString(), "--set", "source.status.update.interval.ms=200",
                    "--set", "target.delivery.allow.networks=127.0.0.1/32", "--set", "target.subscriptions=counters",
                    "--set", "target.subscription.counters.url=" + receiver.url(), "--set", "target.subscription.counters.secrets=" + secret,
                    "--set", "target.subscription.counters.max.in.flight=4", "--set", "source.heartbeat.interval.ms=500",
                    // A source name apart from the pipeline's: the snapshot is recorded, shown and forgotten under it.
                    "--set", "source.topic.prefix=hook_feed"};

            CompletableFuture<Void> stop = new CompletableFuture<>();
            int metricsPort = SluiceRuns.freePort();
            String metrics = "http://127.0.0.1:" + metricsPort;
            CompletableFuture<Result> first = SluiceRuns.start(stop, SluiceRuns.with(command, "--metrics", "127.0.0.1:" + metricsPort));
            SluiceRuns.waitFor(() -> ids(receiver).size() >= 300, first, "the 300 snapshot rows at the receiver");
            // The subscription through the command line, which calls the running sink's API.
            Result list = webhooks("list", "--api", api, "--token", token);
            assertThat(list.exit()).as(list.out() + list.err()).isZero();
            assertThat(list.out()).contains("\"name\" : \"counters\"").contains("\"status\" : \"active\"").doesNotContain("whsec_");
            Result noToken = webhooks("list", "--api", api);
            assertThat(noToken.exit()).isEqualTo(2);
            assertThat(noToken.err()).contains("SLUICE_WEBHOOK_TOKEN");
            Result wrongToken = webhooks("list", "--api", api, "--token", "not-the-token-0123456789");
            assertThat(wrongToken.exit()).isEqualTo(1);
            assertThat(wrongToken.err()).contains("bearer token");
            Result test = webhooks("test", "counters", "--api", api, "--token", token);
            assertThat(test.exit()).as(test.out() + test.err()).isZero();
            assertThat(test.out()).contains("\"outcome\" : \"delivered\"");
            Result paused = webhooks("pause", "counters", "--api", api, "--token", token);
            assertThat(paused.out()).as(paused.err()).contains("\"status\" : \"paused\"");
            Result resumed = webhooks("resume", "counters", "--api", api, "--token", token);
            assertThat(resumed.out()).as(resumed.err()).contains("\"status\" : \"active\"");
            Result secret2 = webhooks("secret");
            assertThat(secret2.out().trim()).startsWith("whsec_").hasSize("whsec_".length() + 44);

            workload = updates(source, writing);
            SluiceRuns.waitFor(() -> ids(receiver).size() >= 500, first, "200 streamed changes at the receiver");
            // The webhook sink's metrics: what the receiver took, counted as delivered; the subscription active again.
            SluiceRuns.waitFor(() -> io.sluice.runtime.metrics.Scrape.of(metrics).sum("sluice_webhook_deliveries_total", "target", "hooks",
                    "subscription", "counters", "outcome", "delivered") >= 500, first, "the deliveries counted");
            assertThat(io.sluice.runtime.metrics.Scrape.of(metrics).value("sluice_webhook_subscription_state", "target", "hooks",
                    "subscription", "counters", "state", "active")).hasValue(1);
            // Heartbeats go into the state database with the outbox batches: the newest one it took moves with the source's.
            double streamingSince = System.currentTimeMillis() / 1000.0;
            SluiceRuns.waitFor(() -> heartbeatSeconds(source) > streamingSince, first, "a heartbeat in sluice.webhook_heartbeats");
            assertThat(io.sluice.runtime.metrics.Scrape.of(metrics).value("sluice_end_to_end_lag_seconds", "target", "hooks")).isPresent();
            stop.complete(null);
            Result stopped = first.get(60, TimeUnit.SECONDS);
            assertThat(stopped.exit()).as(stopped.out() + stopped.err()).isZero();

            Result status = SluiceRuns.start(new CompletableFuture<>(), concat("status", command)).get(60, TimeUnit.SECONDS);
            assertThat(status.exit()).as(status.out() + status.err()).isZero();
            assertThat(status.out()).contains("snapshot of " + source.name()).contains("finished").contains("counters → http://127.0.0.1")
                    .contains("active");

            // In a JVM of its own, killed while changes flow and deliveries are under way; then started again.
            for (int round = 0; round < 3; round++) {
                killed = SluiceProcess.start(work, command);
                int before = ids(receiver).size();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (ids(receiver).size() < before + 100) {
                    assertThat(killed.alive()).as("sluice runs until killed:\n" + killed.output()).isTrue();
                    assertThat(System.nanoTime()).as("the run delivered within 120 s:\n" + killed.output()).isLessThan(deadline);
                    Thread.sleep(20);
                }
                Thread.sleep(new Random().nextInt(1500));
                killed.kill();
                assertThat(killed.output()).contains("Resuming pipeline hooks");
                killed = null;
            }
            writing.set(false);
            workload.join();
            source.execute("UPDATE counters SET n = n + 1, note = 'last' WHERE id = 1");
            Map<Integer, Integer> expected = counters(source);

            CompletableFuture<Void> stopLast = new CompletableFuture<>();
            CompletableFuture<Result> last = SluiceRuns.start(stopLast, command);
            try {
                SluiceRuns.waitFor(() -> latest(receiver).equals(expected), last, "every counter's last value at the receiver");
            } catch (AssertionError e) {
                Map<Integer, Integer> got = latest(receiver);
                StringBuilder differ = new StringBuilder();
                expected.forEach((k, v) -> {
                    if (!v.equals(got.get(k)) && differ.length() < 2000) {
                        differ.append(k).append(": expected ").append(v).append(", got ").append(got.get(k)).append("; ");
                    }
                });
                stopLast.complete(null);
                Result r = last.get(60, TimeUnit.SECONDS);
                throw new AssertionError(e.getMessage() + ". Counters that differ: " + differ + "\nThe last run said:\n" + r.out() + r.err()
                        + "\nState: " + source.queryText("SELECT string_agg(name || ' ' || status || ' ' || position || ' ' || coalesce(status_reason, ''), '; ') FROM sluice.webhook_subscriptions")
                        + " outbox last " + source.queryText("SELECT max(seq)::text FROM sluice.webhook_outbox"), e);
            }
            stopLast.complete(null);
            Result lastResult = last.get(60, TimeUnit.SECONDS);
            assertThat(lastResult.exit()).as(lastResult.out() + lastResult.err()).isZero();

            assertThat(receiver.received()).allMatch(Received::verified, "every request verified by the spec's verifier");
            assertInOrderAndComplete(receiver.accepted());
            Map<String, String> bodies = new HashMap<>();
            int duplicates = 0;
            for (Received r : receiver.received()) {
                String body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
                String earlier = bodies.putIfAbsent(r.id(), body);
                if (earlier != null) {
                    duplicates++;
                    assertThat(body).as("sent again with the same id and body").isEqualTo(earlier);
                }
            }
            Result teardown = SluiceRuns.start(new CompletableFuture<>(), concat("teardown", command)).get(60, TimeUnit.SECONDS);
            assertThat(teardown.exit()).as(teardown.out() + teardown.err()).isZero();
            assertThat(teardown.out()).contains("Forgot the snapshot record of hook_feed in sluice.webhook_snapshots");
            assertThat(source.queryText("SELECT count(*)::text FROM sluice.webhook_snapshots")).isEqualTo("0");
            assertThat(source.queryText("SELECT count(*)::text FROM sluice.webhook_heartbeats")).as("the heartbeat forgotten").isEqualTo("0");
            System.out.printf("webhook run: %d changes delivered, %d requests sent again after kills%n", bodies.size(), duplicates);
        } finally {
            writing.set(false);
            if (workload != null) {
                workload.join(10_000);
            }
            if (killed != null) {
                killed.close();
            }
            TestDatabases.drop(source);
        }
    }

    private static Result webhooks(String... args) throws Exception {
        String[] all = new String[args.length + 1];
        all[0] = "webhooks";
        System.arraycopy(args, 0, all, 1, args.length);
        return SluiceRuns.start(new CompletableFuture<>(), all).get(60, TimeUnit.SECONDS);
    }

    /** Adds one to random counters, about 150 a second, until told to stop. */
    private static Thread updates(TestDatabase source, AtomicBoolean writing) {
        Thread t = new Thread(() -> {
            Random random = new Random(3);
            try (Connection c = source.connect(); Statement st = c.createStatement()) {
                while (writing.get()) {
                    st.execute("UPDATE counters SET n = n + 1 WHERE id = " + (1 + random.nextInt(300)));
                    Thread.sleep(6);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "counter-updates");
        t.start();
        return t;
    }

    private static Map<Integer, Integer> counters(TestDatabase source) throws Exception {
        Map<Integer, Integer> values = new HashMap<>();
        try (Connection c = source.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, n FROM counters")) {
            while (rs.next()) {
                values.put(rs.getInt(1), rs.getInt(2));
            }
        }
        return values;
    }

    /** Each counter's value in the last change the receiver accepted for it. */
    private static Map<Integer, Integer> latest(TestReceiver receiver) {
        Map<Integer, Integer> latest = new HashMap<>();
        for (Received r : byArrival(receiver.accepted())) {
            JsonNode after = r.json().path("after");
            if (!after.isObject()) {
                continue; // the test event
            }
            latest.put(after.path("id").asInt(), after.path("n").asInt());
        }
        return latest;
    }

    /** Per key, the values first accepted step up by one from the snapshot's 0: no gap, no step back. */
    private static void assertInOrderAndComplete(List<Received> accepted) {
        Map<Integer, List<Integer>> byKey = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (Received r : byArrival(accepted)) {
            if (seen.add(r.id()) && r.json().path("after").isObject()) {
                JsonNode after = r.json().path("after");
                byKey.computeIfAbsent(after.path("id").asInt(), k -> new ArrayList<>()).add(after.path("n").asInt());
            }
        }
        assertThat(byKey).hasSize(300);
        byKey.forEach((key, values) -> {
            for (int i = 0; i < values.size(); i++) {
                assertThat(values.get(i)).as("counter " + key + ": " + values).isEqualTo(i);
            }
        });
    }

    /** The receiver records requests as they arrive: its list is in arrival order (milliseconds would tie). */
    private static List<Received> byArrival(List<Received> received) {
        return received;
    }

    private static Set<String> ids(TestReceiver receiver) {
        Set<String> ids = new HashSet<>();
        receiver.accepted().stream().filter(r -> !r.id().startsWith("msg_test_")).forEach(r -> ids.add(r.id()));
        return ids;
    }

    private static String[] concat(String first, String[] rest) {
        String[] all = new String[rest.length];
        System.arraycopy(rest, 0, all, 0, rest.length);
        all[0] = first;
        return all;
    }

    /** The commit time (epoch seconds) of the newest heartbeat the state database holds; 0 when none. */
    private static double heartbeatSeconds(TestDatabase state) throws java.sql.SQLException {
        return Double.parseDouble(state.queryText("SELECT coalesce(extract(epoch FROM max(committed_at)), 0)::text "
                + "FROM sluice.webhook_heartbeats WHERE source = 'hook_feed'"));
    }
}
