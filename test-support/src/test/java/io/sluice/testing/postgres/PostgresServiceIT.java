package io.sluice.testing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

@ExtendWith(PostgresExtension.class)
class PostgresServiceIT {

    @Test
    void serverRunsWithLogicalWalLevel(TestDatabase db) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW wal_level")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo("logical");
        }
        System.out.println("PostgreSQL test server: " + db.server().origin());
    }

    @Test
    void logicalSlotStreamsAnInsertThroughPgoutput(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE smoke (id int PRIMARY KEY, note text)",
                "CREATE PUBLICATION smoke_pub FOR TABLE smoke",
                "SELECT pg_create_logical_replication_slot('smoke_slot', 'pgoutput')",
                "INSERT INTO smoke VALUES (1, 'hello from the slot')");

        List<Character> messageKinds = new ArrayList<>();
        String inserted = null;
        try (Connection replication = db.connectForReplication()) {
            PGReplicationStream stream = replication.unwrap(PGConnection.class).getReplicationAPI()
                    .replicationStream().logical()
                    .withSlotName("smoke_slot")
                    .withSlotOption("proto_version", "1")
                    .withSlotOption("publication_names", "smoke_pub")
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!messageKinds.contains('C') && System.nanoTime() < deadline) {
                ByteBuffer message = stream.readPending();
                if (message == null) {
                    Thread.sleep(20);
                    continue;
                }
                char kind = (char) message.get(message.position());
                messageKinds.add(kind);
                if (kind == 'I') {
                    inserted = new String(message.array(), message.arrayOffset() + message.position(), message.remaining(),
                            StandardCharsets.UTF_8);
                }
            }
            stream.close();
        }
        // Begin, Relation, Insert, Commit: the slot saw the row through the built-in plugin.
        assertThat(messageKinds).containsSubsequence('B', 'R', 'I', 'C');
        assertThat(inserted).contains("hello from the slot");
    }

    @Test
    void eachTestClassGetsItsOwnDatabase(TestDatabase db) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_database()")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo(db.name()).startsWith("t_postgresserviceit_");
        }
    }
}
