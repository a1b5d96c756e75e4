package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;

import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.testing.postgres.PostgresServer;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

/**
 * A source that cannot stream — WAL not logical, no replication slots, a user without the
 * REPLICATION attribute — is told so in one message naming every fix, on a server of its own
 * (the shared test server streams).
 */
class StreamingPrerequisitesIT {

    @Test
    void everyMissingPrerequisiteIsNamedWithItsFix() throws Exception {
        try (PostgresServer.Launched server = PostgresServer.launch("no-logical", "wal_level = replica", "max_replication_slots = 0")) {
            try (Connection admin = server.connect(server.adminDatabase()); Statement s = admin.createStatement()) {
                s.execute("CREATE ROLE plain LOGIN PASSWORD 'pw'");
            }
            PgEndpoint endpoint = new PgEndpoint(server.host(), server.port(), server.adminDatabase(), "plain", "pw", "disable");
            try (Connection c = DriverManager.getConnection(server.jdbcUrl(server.adminDatabase()), "plain", "pw")) {
                List<String> problems = StreamingPrerequisites.problems(c, endpoint);
                assertThat(problems).hasSize(3);
                assertThat(problems.get(0)).contains("wal_level = replica").contains("ALTER SYSTEM SET wal_level = logical")
                        .contains("snapshot.mode=initial_only");
                assertThat(problems.get(1)).contains("max_replication_slots = 0");
                assertThat(problems.get(2)).contains("User plain may not stream").contains("ALTER ROLE plain REPLICATION");
                assertThatThrownBy(() -> StreamingPrerequisites.check(c, endpoint)).isInstanceOf(ConnectException.class)
                        .hasMessageContaining("wal_level").hasMessageContaining("ALTER ROLE plain REPLICATION");
            }
            try (Connection c = server.connect(server.adminDatabase())) {
                // The superuser may stream; the server still may not.
                assertThat(StreamingPrerequisites.problems(c, endpoint)).hasSize(2);
            }
        }
    }
}
