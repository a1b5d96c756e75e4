package io.sluice.connector.postgres.health;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Supplier;

import io.sluice.schemas.envelope.Heartbeats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the pipeline's heartbeat into the source's WAL every interval: a transactional logical
 * decoding message ({@link Heartbeats#MESSAGE_PREFIX}, content the topic prefix) on the primary.
 * It comes back through the slot among the changes, so the sinks can tell their end-to-end lag
 * when the selected tables are idle, and the slot moves on even when the database's own writes
 * never reach it. A write that fails is logged (once per kind of failure) and tried again next time.
 */
public final class HeartbeatWriter extends OwnConnection {

    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatWriter.class);
    private static final String EMIT = "SELECT pg_catalog.pg_logical_emit_message(true, ?, ?)";

    private final String pipeline;
    private String lastFailure;

    /** @param primary connections to the server that takes writes (the primary, also when streaming from a standby) */
    public HeartbeatWriter(String pipeline, Supplier<Connection> primary) {
        super("sluice-heartbeat-" + pipeline, primary);
        this.pipeline = pipeline;
    }

    /**
     * Why the user cannot write heartbeats on this server, or empty when it can: EXECUTE on
     * {@code pg_logical_emit_message}, which PostgreSQL grants to PUBLIC unless revoked.
     */
    public static Optional<String> problem(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.has_function_privilege(current_user, "
                + "'pg_catalog.pg_logical_emit_message(boolean, text, text)', 'EXECUTE'), current_user");
             ResultSet rs = s.executeQuery()) {
            rs.next();
            if (rs.getBoolean(1)) {
                return Optional.empty();
            }
            return Optional.of("User " + rs.getString(2) + " may not write heartbeats: it lacks EXECUTE on pg_logical_emit_message "
                    + "(GRANT EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, text) TO " + rs.getString(2)
                    + "), or set heartbeat.interval.ms=0 to write none");
        }
    }

    /** Writes one every {@code intervalMillis}, the first after one interval. */
    public void start(long intervalMillis) {
        every(intervalMillis, intervalMillis);
    }

    @Override
    void once() {
        beat();
    }

    /** Writes one heartbeat now; whether it was written. */
    public boolean beat() {
        try {
            try (PreparedStatement s = connection().prepareStatement(EMIT)) {
                s.setString(1, Heartbeats.MESSAGE_PREFIX);
                s.setString(2, pipeline);
                s.execute();
            }
            if (lastFailure != null) {
                LOG.info("Heartbeats of {} are written again", pipeline);
                lastFailure = null;
            }
            return true;
        } catch (SQLException | RuntimeException e) {
            String kind = e instanceof SQLException sql && sql.getSQLState() != null ? sql.getSQLState() : e.getClass().getName();
            if (!kind.equals(lastFailure)) {
                LOG.warn("Writing the heartbeat of {} failed ({}): the end-to-end lag is measured by the changes alone until it "
                        + "works again{}", pipeline, e.getMessage(), "25006".equals(kind)
                        ? " (the server is a standby: name the primary with database.primary.hostname, or set heartbeat.interval.ms=0)"
                        : "");
                lastFailure = kind;
            }
            closeConnection();
            return false;
        }
    }
}
