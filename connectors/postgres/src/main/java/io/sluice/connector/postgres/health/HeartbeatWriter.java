package io.sluice.connector.postgres.health;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Supplier;

import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.naming.Identifiers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the pipeline's heartbeat into the source's WAL every interval: a transactional logical
 * decoding message ({@link Heartbeats#MESSAGE_PREFIX}, content the topic prefix) on the primary,
 * or, where the user names a heartbeat table, the pipeline's row of that table. It comes back
 * through the slot among the changes, so the sinks can tell their end-to-end lag when the
 * selected tables are idle, and the slot moves on even when the database's own writes never reach
 * it. A write that fails is logged (once per kind of failure) and tried again next time.
 */
public final class HeartbeatWriter extends OwnConnection {

    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatWriter.class);
    private static final String EMIT = "SELECT pg_catalog.pg_logical_emit_message(true, ?, ?)";

    private final String pipeline;
    private final String write;
    private final boolean asMessage;
    private String lastFailure;

    /** @param primary connections to the server that takes writes (the primary, also when streaming from a standby) */
    public HeartbeatWriter(String pipeline, Supplier<Connection> primary) {
        this(pipeline, primary, "");
    }

    /** @param table the heartbeat table ({@code schema.table}), or empty for logical decoding messages */
    public HeartbeatWriter(String pipeline, Supplier<Connection> primary, String table) {
        super("sluice-heartbeat-" + pipeline, primary);
        this.pipeline = pipeline;
        this.asMessage = table.isEmpty();
        this.write = table.isEmpty() ? EMIT : "INSERT INTO " + quoted(table) + " (pipeline, at) VALUES (?, now()) "
                + "ON CONFLICT (pipeline) DO UPDATE SET at = excluded.at";
    }

    /**
     * Why the user cannot write heartbeats on this server, or empty when it can. As messages:
     * EXECUTE on {@code pg_logical_emit_message}, which PostgreSQL grants to PUBLIC unless revoked.
     * To a table: the table, its columns, INSERT and UPDATE on it, and its being selected.
     */
    public static Optional<String> problem(Connection c, String table, java.util.function.BiPredicate<String, String> selected)
            throws SQLException {
        if (table.isEmpty()) {
            // By name: PostgreSQL 17 added a fourth argument (flush, with a default), so no one signature fits every version.
            try (PreparedStatement s = c.prepareStatement("SELECT coalesce(bool_or(pg_catalog.has_function_privilege(current_user, p.oid, "
                    + "'EXECUTE')), false), min(p.oid::regprocedure::text), current_user FROM pg_catalog.pg_proc p "
                    + "WHERE p.proname = 'pg_logical_emit_message' AND p.pronamespace = 'pg_catalog'::regnamespace "
                    + "AND p.proargtypes[2] = 'text'::regtype");
                 ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1) ? Optional.empty() : Optional.of("User " + rs.getString(3) + " may not write heartbeats: it "
                        + "lacks EXECUTE on pg_logical_emit_message (GRANT EXECUTE ON FUNCTION pg_catalog." + rs.getString(2) + " TO "
                        + rs.getString(3) + "), or set heartbeat.table to write them to a table, or heartbeat.interval.ms=0 to write none");
            }
        }
        String[] parts = Identifiers.unquoteQualified(table);
        if (parts.length != 2) {
            return Optional.of("heartbeat.table names a table as schema.table, got " + table);
        }
        try (PreparedStatement s = c.prepareStatement("SELECT c.oid IS NOT NULL, "
                + "EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'pipeline' AND NOT a.attisdropped), "
                + "EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'at' AND NOT a.attisdropped), "
                + "c.oid IS NOT NULL AND pg_catalog.has_table_privilege(current_user, c.oid, 'INSERT, UPDATE'), current_user "
                + "FROM (SELECT NULL) x LEFT JOIN pg_catalog.pg_class c ON c.relname = ? "
                + "AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)")) {
            s.setString(1, parts[1]);
            s.setString(2, parts[0]);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                String create = "CREATE TABLE " + quoted(table) + " (pipeline text PRIMARY KEY, at timestamptz NOT NULL)";
                if (!rs.getBoolean(1)) {
                    return Optional.of("Heartbeat table " + table + " does not exist: create it (" + create + "), or leave "
                            + "heartbeat.table empty to write heartbeats as logical decoding messages");
                }
                if (!rs.getBoolean(2) || !rs.getBoolean(3)) {
                    return Optional.of("Heartbeat table " + table + " needs the columns pipeline (text, its primary key) and at "
                            + "(timestamptz), as " + create + " makes them");
                }
                if (!rs.getBoolean(4)) {
                    return Optional.of("User " + rs.getString(5) + " may not write heartbeats to " + table + ": GRANT INSERT, UPDATE ON "
                            + quoted(table) + " TO " + rs.getString(5));
                }
            }
        }
        if (!selected.test(parts[0], parts[1])) {
            return Optional.of("Heartbeat table " + table + " is not selected by table.include.list and table.exclude.list, so its "
                    + "changes would not reach the targets: add it to the selection");
        }
        return Optional.empty();
    }

    /** {@code schema.table} (each part as it is, or in double quotes) as SQL. */
    private static String quoted(String table) {
        String[] parts = Identifiers.unquoteQualified(table);
        return Identifiers.quote(parts[0], parts[1]);
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
            try (PreparedStatement s = connection().prepareStatement(write)) {
                if (asMessage) {
                    s.setString(1, Heartbeats.MESSAGE_PREFIX);
                    s.setString(2, pipeline);
                } else {
                    s.setString(1, pipeline);
                }
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
