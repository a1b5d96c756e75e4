package io.sluice.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;

/**
 * Debezium's JDBC sink connector reads the topics of Sluice's source connector on one Connect
 * worker: Sluice's change events are Debezium's envelope, so the snapshot and the inserts,
 * updates and deletes streamed after it end up on the target exactly as on the source.
 */
@ExtendWith(PostgresExtension.class)
class SluiceToDebeziumJdbcIT {

    @Test
    void debeziumsJdbcSinkMakesTheTargetEqualToTheSource() throws Exception {
        TestDatabase source = TestDatabases.create(SluiceToDebeziumJdbcIT.class);
        TestDatabase target = TestDatabases.create(SluiceToDebeziumJdbcIT.class);
        Interop.loadCustomers(source);
        Map<String, String> sluice = ConnectorConfigs.source(source, "interop", "public.customers");
        sluice.put("snapshot.schema", "none");
        sluice.put("ddl.capture", "false");
        // Debezium's default representation of numeric: Connect Decimal.
        sluice.put("numeric.mapping", "precise");

        Map<String, String> jdbc = Interop.jsonConnector("io.debezium.connector.jdbc.JdbcSinkConnector");
        jdbc.put("topics", "interop.public.customers");
        jdbc.put("connection.url", "jdbc:postgresql://" + target.host() + ":" + target.port() + "/" + target.name());
        jdbc.put("connection.username", target.user());
        jdbc.put("connection.password", target.password());
        jdbc.put("insert.mode", "upsert");
        jdbc.put("delete.enabled", "true");
        jdbc.put("primary.key.mode", "record_key");
        jdbc.put("schema.evolution", "basic");
        jdbc.put("collection.name.format", "${source.table}");

        try (ConnectCluster connect = ConnectCluster.start("interop-jdbc", 1)) {
            connect.embedded().configureConnector("sluice-source", sluice);
            connect.embedded().configureConnector("debezium-jdbc", jdbc);
            Interop.awaitEqual(source, target, "public.customers");

            Interop.changeCustomers(source);
            Interop.awaitEqual(source, target, "public.customers");
            assertThat(Interop.summary(target, "public.customers")).startsWith("1017|");
        } finally {
            TestDatabases.drop(source); // with Sluice's slot
            TestDatabases.drop(target);
        }
    }
}
