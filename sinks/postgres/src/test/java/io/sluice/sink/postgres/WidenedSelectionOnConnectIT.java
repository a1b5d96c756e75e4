package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A source connector's {@code table.include.list} widened on a running cluster, as a user edits
 * it through the REST API: the task starts again, the table that joined is made on the target
 * and copied by a re-sync while the others stream, with no new snapshot of them; its changes
 * made during and after the copy arrive too.
 */
@ExtendWith(PostgresExtension.class)
class WidenedSelectionOnConnectIT {

    private static final int PARTITIONS = 3;

    @Test
    void aTableTheIncludeListTakesInLaterIsCopiedWithoutANewSnapshot() throws Exception {
        TestDatabases.withSourceAndTarget(WidenedSelectionOnConnectIT.class, (source, target) -> {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, amount int NOT NULL)",
                    "INSERT INTO orders SELECT g, g FROM generate_series(1, 500) g",
                    "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, visits int NOT NULL DEFAULT 0)",
                    "INSERT INTO customers SELECT g, 'c' || g, 0 FROM generate_series(1, 2000) g");
            try (ConnectCluster connect = ConnectCluster.start("widen", 1, Map.of())) {
                Map<String, String> sourceConfig = ConnectorConfigs.sourceWithBarriers(source, "widen", "public.orders", PARTITIONS);
                sourceConfig.put("slot.name", "widen_slot");
                sourceConfig.put("resync.chunk.rows", "300");
                connect.embedded().configureConnector("widen-source", sourceConfig);
                connect.embedded().configureConnector("widen-sink", ConnectorConfigs.sinkOfPrefix(target, "widen", PARTITIONS));
                target.awaitChecksumOf(source, "public.orders", Duration.ofSeconds(120));
                assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = 'customers'")).isZero();
                String taken = "SELECT string_agg(source || '@' || taken_at, ',') FROM sluice.snapshots";
                String snapshot = target.queryText(taken);

                source.execute("UPDATE customers SET visits = 1 WHERE id % 7 = 0", "UPDATE orders SET amount = -amount WHERE id <= 50");
                sourceConfig.put("table.include.list", "public.orders,public.customers");
                connect.embedded().configureConnector("widen-source", sourceConfig);
                source.execute("UPDATE customers SET visits = visits + 1 WHERE id % 11 = 0", "DELETE FROM customers WHERE id > 1990",
                        "INSERT INTO customers VALUES (5000, 'new', 0)");
                target.awaitChecksumOf(source, "public.customers", Duration.ofSeconds(120));
                target.awaitChecksumOf(source, "public.orders", Duration.ofSeconds(60));
                assertThat(source.queryText("SELECT string_agg(target || ':' || state, ',') FROM sluice_signals.requests"))
                        .as("one re-sync request, done").isEqualTo("public.customers:done");
                assertThat(target.queryText(taken)).as("no new snapshot").isEqualTo(snapshot);
                assertThat(connect.embedded().connectorStatus("widen-source").tasks())
                        .allSatisfy(task -> assertThat(task.state()).as("task %d: %s", task.id(), task.trace()).isEqualTo("RUNNING"));
                assertThat(connect.embedded().connectorStatus("widen-sink").tasks())
                        .allSatisfy(task -> assertThat(task.state()).as("task %d: %s", task.id(), task.trace()).isEqualTo("RUNNING"));
                connect.embedded().deleteConnector("widen-source");
                connect.embedded().deleteConnector("widen-sink");
            }
        });
    }
}
