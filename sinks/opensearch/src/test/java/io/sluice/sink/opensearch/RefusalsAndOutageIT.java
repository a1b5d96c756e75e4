package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.opensearch.FaultyProxy;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sink against a cluster that refuses: through a proxy that answers one request in ten with
 * 429 or 503 and refuses one bulk item in ten with 429, a snapshot and streamed changes; then
 * the cluster gone (connections refused) for 60 s while changes go on. Nothing is lost: the
 * index ends equal to the table.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class RefusalsAndOutageIT {

    @Test
    void nothingIsLostThroughRefusalsAndAMinuteWithoutTheCluster(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(RefusalsAndOutageIT.class);
        String prefix = source.name().toLowerCase() + "-";
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try (FaultyProxy proxy = FaultyProxy.start(node, 42)) {
            source.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL, note text)",
                    "INSERT INTO accounts SELECT g, g, repeat('n', 50) FROM generate_series(1, 20000) g");
            proxy.faults(0.1, 0.1);
            Map<String, String> sinkProps = Pipes.sinkProps(node, "connection.url", proxy.httpUrl(), "bulk.max.bytes", "16384",
                    "retry.timeout.ms", "300000", "index.name.format", prefix + "${schema}.${table}");
            Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(stored, Pipes.sourceProps(source, "faults"), sinkProps)) {
                Pipes.pumpUntil(pipe, "accounts", -1, () -> source.execute("INSERT INTO accounts VALUES (-1, 0, 'after the snapshot')"));
                pipe.commit();
                source.execute("UPDATE accounts SET balance = balance * 2 WHERE id % 3 = 0", "DELETE FROM accounts WHERE id % 11 = 0",
                        "INSERT INTO accounts SELECT g, g, 'new' FROM generate_series(20001, 22000) g",
                        "INSERT INTO accounts VALUES (-2, 0, 'refusals done')");
                Pipes.pumpUntil(pipe, "accounts", -2, () -> { });
                pipe.commit();
                assertThat(proxy.requestsRefused()).as("requests refused").isGreaterThan(5);
                assertThat(proxy.itemsRefused()).as("bulk items refused").isGreaterThan(100);

                // The cluster gone for a minute while the source goes on.
                proxy.faults(0, 0);
                proxy.down();
                long downAt = System.nanoTime();
                timer.schedule(() -> {
                    proxy.up();
                    return null;
                }, 60, TimeUnit.SECONDS);
                source.execute("UPDATE accounts SET note = 'during the outage' WHERE id % 5 = 0", "DELETE FROM accounts WHERE id % 13 = 0",
                        "INSERT INTO accounts VALUES (-3, 0, 'outage over')");
                Pipes.pumpUntil(pipe, "accounts", -3, () -> { });
                pipe.commit();
                assertThat(System.nanoTime() - downAt).as("the last changes waited for the cluster").isGreaterThan(TimeUnit.SECONDS.toNanos(59));
            }
            AccountsIndex.assertSame(source, node, prefix + "public.accounts");
        } finally {
            timer.shutdownNow();
            TestDatabases.drop(source);
        }
    }

}
