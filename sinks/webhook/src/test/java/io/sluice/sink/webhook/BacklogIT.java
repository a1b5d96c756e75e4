package io.sluice.sink.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.sink.webhook.signing.SigningSecret;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A subscription far behind — its receiver down, more changes waiting for it than its queue
 * reads ahead — has nothing to do until its next retry, and must wait for it: a queue that
 * spins instead takes a core from every other subscription and from the outbox writer (on two
 * cores, the healthy subscription's p99 went from 27 to 60-90 ms, issue 53).
 */
@ExtendWith(PostgresExtension.class)
class BacklogIT {

    /** More than a queue reads ahead ({@code DeliveryLoop.MAX_BUFFERED_ROWS}). */
    private static final int CHANGES = 12_000;
    private static final long WINDOW_MILLIS = 3_000;

    @Test
    void aSubscriptionWhoseReadAheadIsFullWaitsWithoutSpinning() throws Exception {
        TestDatabases.withSourceAndTarget(BacklogIT.class, (source, state) -> {
            source.execute("CREATE TABLE events (id int PRIMARY KEY, v int NOT NULL)");
            String secret = SigningSecret.generate(new SecureRandom());
            try (TestReceiver live = new TestReceiver(List.of(secret)); TestReceiver down = new TestReceiver(List.of(secret))) {
                down.goDown();
                // One lane, and a retry drawn within a day: once its first try failed, the queue has nothing to do.
                Map<String, String> sinkProps = Pipes.sinkProps(state, "subscriptions", "live,down",
                        "subscription.live.url", live.url(), "subscription.live.secrets", secret,
                        "subscription.down.url", down.url(), "subscription.down.secrets", secret,
                        "subscription.down.max.in.flight", "1", "subscription.down.retry.initial.ms", "86400000",
                        "subscription.down.retry.max.ms", "86400000");
                Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
                try (SourceToSink<WebhookSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "app"), sinkProps)) {
                    pipe.pumpUntil(() -> true, 1000, "start");
                    source.execute("INSERT INTO events SELECT g, 0 FROM generate_series(1, " + CHANGES + ") g");
                    pipe.pumpUntil(() -> ids(live).size() >= CHANGES, 120_000, CHANGES + " inserts at the live receiver");
                    pipe.commit();
                    awaitAttempt(state);

                    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                    long thread = queueThread("sluice-webhook-down");
                    long cpuBefore = threads.getThreadCpuTime(thread);
                    Thread.sleep(WINDOW_MILLIS);
                    long cpuMillis = (threads.getThreadCpuTime(thread) - cpuBefore) / 1_000_000L;
                    // Waiting costs a few milliseconds (a wake each second); a spinning loop runs for most of the window.
                    assertThat(cpuMillis).as("CPU ms the down subscription's queue used in " + WINDOW_MILLIS + " ms of waiting")
                            .isLessThan(WINDOW_MILLIS / 10);
                    assertThat(down.received()).isEmpty();
                }
            }
        });
    }

    /** Waits until the down subscription's first try is in the delivery log: from then on its queue waits. */
    private static void awaitAttempt(io.sluice.testing.postgres.TestDatabase state) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (state.queryLong("SELECT count(*) FROM sluice.webhook_attempts WHERE subscription = 'down'") == 0) {
            assertThat(System.currentTimeMillis()).as("the down subscription tried within 30 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static long queueThread(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread " + name)).getId();
    }

    private static Set<String> ids(TestReceiver receiver) {
        Set<String> ids = new HashSet<>();
        receiver.accepted().forEach(r -> ids.add(r.id()));
        return ids;
    }
}
