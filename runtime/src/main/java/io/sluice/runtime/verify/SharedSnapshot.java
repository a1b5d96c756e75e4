package io.sluice.runtime.verify;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Connections that all read in one snapshot: the first one's open repeatable-read transaction
 * exports it ({@code pg_export_snapshot}) and each other one imports it, so that tables compared
 * at once on several connections are compared at the same point.
 */
final class SharedSnapshot implements AutoCloseable {

    private final List<Connection> connections = new ArrayList<>();
    private final int own;

    private SharedSnapshot(Connection first) {
        connections.add(first);
        own = 1;
    }

    /**
     * @param first a connection inside a repeatable-read transaction, which stays the caller's
     * @param more  opens another connection to the same server
     * @param extra how many more connections to open
     */
    static SharedSnapshot of(Connection first, Supplier<Connection> more, int extra) throws SQLException {
        SharedSnapshot shared = new SharedSnapshot(first);
        if (extra <= 0) {
            return shared;
        }
        String id;
        try (Statement s = first.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_export_snapshot()")) {
            rs.next();
            id = rs.getString(1);
        }
        try {
            for (int i = 0; i < extra; i++) {
                Connection c = more.get();
                shared.connections.add(c);
                c.setAutoCommit(true); // the transaction is the one BEGIN opens, with its isolation level
                try (Statement s = c.createStatement()) {
                    s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
                    s.execute("SET TRANSACTION SNAPSHOT '" + id.replace("'", "''") + "'");
                }
                TableSide.settle(c);
            }
        } catch (SQLException | RuntimeException e) {
            shared.close();
            throw e;
        }
        return shared;
    }

    /** The connections, the first one's first. */
    List<Connection> connections() {
        return connections;
    }

    /** Ends and closes the connections opened here (the first one stays the caller's). */
    @Override
    public void close() {
        for (Connection c : connections.subList(own, connections.size())) {
            try (Statement s = c.createStatement()) {
                s.execute("ROLLBACK");
            } catch (SQLException ignored) {
                // closed next either way
            }
            try {
                c.close();
            } catch (SQLException ignored) {
                // nothing more to release
            }
        }
    }
}
