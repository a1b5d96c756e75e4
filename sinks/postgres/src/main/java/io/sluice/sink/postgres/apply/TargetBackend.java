package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;

import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server process (backend) behind an apply connection. When the connection is lost, its
 * transaction may still commit until that backend has gone (a COMMIT sent just before the
 * connection died, or a half-open connection the server has not noticed), so whether a batch is
 * on the target can only be read once it is gone. Identified by process id and start time, since
 * a process id is reused.
 *
 * @param pid   the backend's process id
 * @param start when it started (from {@code pg_stat_activity})
 */
record TargetBackend(int pid, OffsetDateTime start) {

    private static final Logger LOG = LoggerFactory.getLogger(TargetBackend.class);
    private static final String ALIVE = "FROM pg_stat_activity WHERE pid = ? AND backend_start = ?";

    /** The backend serving {@code c}; null when the server does not say. */
    static TargetBackend of(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()");
             ResultSet rs = s.executeQuery()) {
            return rs.next() ? new TargetBackend(rs.getInt(1), rs.getObject(2, OffsetDateTime.class)) : null;
        }
    }

    /**
     * Ends the backend, if still there, and waits until it has gone. Its transaction then either
     * committed or never will. Ending it needs the same role (or pg_signal_backend); without
     * that, this waits for the server to notice the dead connection itself.
     *
     * @param c       a new connection to the same server
     * @param timeoutMillis how long to wait before giving up
     * @param what    what the lost connection was doing, for the message
     */
    void awaitGone(Connection c, long timeoutMillis, String what) throws SQLException {
        boolean ended = false;
        try (PreparedStatement s = c.prepareStatement("SELECT pg_terminate_backend(pid) " + ALIVE)) {
            bind(s);
            try (ResultSet rs = s.executeQuery()) {
                ended = rs.next();
            }
        } catch (SQLException e) {
            if (!"42501".equals(e.getSQLState())) {
                throw e;
            }
            LOG.warn("{}: not allowed to end the target's backend {} of the lost connection ({}); waiting for the server to drop it",
                    what, pid, e.getMessage());
        }
        if (ended) {
            LOG.info("{}: ended the target's backend {} of the lost connection, to learn whether its transaction committed", what, pid);
        }
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (alive(c)) {
            if (System.nanoTime() > deadline) {
                throw new ConnectException(what + ": the target's backend " + pid + " of the lost connection is still there after "
                        + timeoutMillis + " ms, so whether its transaction committed cannot be known yet. End it "
                        + "(SELECT pg_terminate_backend(" + pid + ") as its role or a superuser) and restart the sink; "
                        + "nothing was marked as applied");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ConnectException(what + " was interrupted while waiting for the lost connection's backend to end", e);
            }
        }
    }

    private boolean alive(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 " + ALIVE)) {
            bind(s);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        }
    }

    private void bind(PreparedStatement s) throws SQLException {
        s.setInt(1, pid);
        s.setObject(2, start);
    }
}
