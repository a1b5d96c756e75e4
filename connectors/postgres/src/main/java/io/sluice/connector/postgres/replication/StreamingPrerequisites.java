package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * What streaming needs from the source server and user, checked up front so that a missing
 * setting ends in one message that says how to fix it rather than in a protocol error later.
 */
public final class StreamingPrerequisites {

    private StreamingPrerequisites() {
    }

    /** Every unmet prerequisite, each as a sentence naming the fix; empty when streaming can start. */
    public static List<String> problems(Connection c, PgEndpoint endpoint) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('wal_level'), current_setting('max_replication_slots')::int, "
                     + "r.rolreplication OR r.rolsuper, current_user FROM pg_catalog.pg_roles r WHERE r.rolname = current_user")) {
            rs.next();
            String where = endpoint.where();
            if (!"logical".equals(rs.getString(1))) {
                problems.add("PostgreSQL at " + where + " runs with wal_level = " + rs.getString(1) + "; streaming changes needs "
                        + "wal_level = logical. Set it (ALTER SYSTEM SET wal_level = logical) and restart the server, or use "
                        + "snapshot.mode=initial_only for a one-off copy.");
            }
            if (rs.getInt(2) == 0) {
                problems.add("PostgreSQL at " + where + " allows no replication slots (max_replication_slots = 0). Raise it and "
                        + "restart the server.");
            }
            if (!rs.getBoolean(3)) {
                problems.add("User " + rs.getString(4) + " may not stream changes from " + where + ": it needs the REPLICATION "
                        + "attribute (ALTER ROLE " + rs.getString(4) + " REPLICATION), and pg_hba.conf must let it connect to "
                        + "database " + endpoint.database() + ".");
            }
        }
        return problems;
    }

    /** Fails with every unmet prerequisite in one message. */
    public static void check(Connection c, PgEndpoint endpoint) throws SQLException {
        List<String> problems = problems(c, endpoint);
        if (!problems.isEmpty()) {
            throw new ConnectException(String.join(" ", problems));
        }
    }
}
