package io.sluice.interop;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;

/**
 * Sluice's PostgreSQL sink reads the topics of Debezium's PostgreSQL connector on one Connect
 * worker: Debezium's snapshot rows and the changes streamed after them end up on the target
 * exactly as on the source. Debezium sends no DDL the sink could apply, so the target table is
 * made beforehand.
 */
@ExtendWith(PostgresExtension.class)
class DebeziumToSluiceSinkIT {

    @Test
    void sluicesSinkMakesTheTargetEqualToTheSourceFromDebeziumsTopics() throws Exception {
        TestDatabase source = TestDatabases.create(DebeziumToSluiceSinkIT.class);
        TestDatabase target = TestDatabases.create(DebeziumToSluiceSinkIT.class);
        Interop.loadCustomers(source);
        target.execute(Interop.CUSTOMERS);

        Map<String, String> debezium = Interop.jsonConnector("io.debezium.connector.postgresql.PostgresConnector");
        debezium.putAll(source.sourceConnection());
        debezium.remove("database.sslmode");
        debezium.put("topic.prefix", "dbz");
        debezium.put("plugin.name", "pgoutput");
        debezium.put("slot.name", "dbz_interop");
        debezium.put("publication.name", "dbz_interop");
        debezium.put("publication.autocreate.mode", "filtered");
        debezium.put("table.include.list", "public.customers");
        debezium.put("topic.creation.default.replication.factor", "1");
        debezium.put("topic.creation.default.partitions", "1");

        Map<String, String> sink = Interop.jsonConnector("io.sluice.sink.postgres.PostgresSinkConnector");
        sink.put("topics", "dbz.public.customers");
        sink.put("connection.url", "postgres://" + target.host() + ":" + target.port() + "/" + target.name() + "?sslmode=disable");
        sink.put("connection.username", target.user());
        sink.put("connection.password", target.password());
        sink.put("table.exists", "append");

        try (ConnectCluster connect = ConnectCluster.start("interop-sink", 1)) {
            connect.embedded().configureConnector("debezium-source", debezium);
            connect.embedded().configureConnector("sluice-sink", sink);
            // Changes after the snapshot, so that they stream: its rows load by COPY, and the first change ends their load.
            connect.embedded().kafka().consume(1000, 120_000, "dbz.public.customers");
            Interop.changeCustomers(source);
            Interop.awaitEqual(source, target, "public.customers");
        } finally {
            TestDatabases.drop(source); // with Debezium's slot
            TestDatabases.drop(target);
        }
    }
}
