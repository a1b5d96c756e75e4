package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.regex.Pattern;

import io.sluice.schemas.postgres.Lsn;

/**
 * A logical replication slot with the pgoutput plugin: created on a replication connection
 * together with an exported snapshot, so that a snapshot read in that snapshot and a stream
 * started at the slot's consistent point meet with no gap and no overlap.
 */
public final class ReplicationSlot {

    private static final Pattern VALID_NAME = Pattern.compile("[a-z0-9_]{1,63}");

    /**
     * A new slot.
     *
     * @param consistentPoint the first position the slot decodes from: changes committed after it are streamed
     * @param snapshotName    the snapshot exported at that point; valid only until the replication
     *                        connection that created the slot runs another command or closes
     */
    public record Created(String name, long consistentPoint, String snapshotName) {
    }

    /** What pg_replication_slots says of an existing slot. */
    public record State(String name, String plugin, String database, boolean active, Integer activePid, long confirmedFlush) {
    }

    private ReplicationSlot() {
    }

    /** Whether a name is one PostgreSQL accepts for a slot (lower-case letters, digits, underscores, at most 63). */
    public static boolean validName(String name) {
        return name != null && VALID_NAME.matcher(name).matches();
    }

    /** A slot name derived from the topic prefix: {@code sluice_} and the prefix with anything else made an underscore. */
    public static String defaultName(String topicPrefix) {
        String base = "sluice_" + topicPrefix.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return base.length() > 63 ? base.substring(0, 63) : base;
    }

    /** Creates the slot and exports its snapshot, on a connection opened with {@code replication=database}. */
    public static Created create(Connection replication, String name) throws SQLException {
        return create(replication, name, false);
    }

    /**
     * Creates the slot and exports its snapshot, on a connection opened with {@code
     * replication=database}; with {@code failover}, as a slot standbys synchronize (17 and later,
     * see {@link #failoverProblem}).
     */
    public static Created create(Connection replication, String name, boolean failover) throws SQLException {
        if (!validName(name)) {
            throw new IllegalArgumentException("Invalid replication slot name " + name);
        }
        String command = failover ? "CREATE_REPLICATION_SLOT " + name + " LOGICAL pgoutput (SNAPSHOT 'export', FAILOVER true)"
                : "CREATE_REPLICATION_SLOT " + name + " LOGICAL pgoutput EXPORT_SNAPSHOT";
        try (Statement s = replication.createStatement();
             ResultSet rs = s.executeQuery(command)) {
            rs.next();
            return new Created(rs.getString(1), Lsn.parse(rs.getString(2)), rs.getString(3));
        }
    }

    /**
     * Creates a temporary slot, which the server drops when the connection closes, and exports
     * its snapshot; on a connection opened with {@code replication=database}.
     */
    public static Created createTemporary(Connection replication, String name) throws SQLException {
        if (!validName(name)) {
            throw new IllegalArgumentException("Invalid replication slot name " + name);
        }
        try (Statement s = replication.createStatement();
             ResultSet rs = s.executeQuery("CREATE_REPLICATION_SLOT " + name + " TEMPORARY LOGICAL pgoutput EXPORT_SNAPSHOT")) {
            rs.next();
            return new Created(rs.getString(1), Lsn.parse(rs.getString(2)), rs.getString(3));
        }
    }

    /** Why this server cannot keep a failover slot; empty when it can (17 and later). */
    public static Optional<String> failoverProblem(Connection sql) throws SQLException {
        if (sql.getMetaData().getDatabaseMajorVersion() >= 17) {
            return Optional.empty();
        }
        return Optional.of("slot.failover=true needs PostgreSQL 17 or later, and the source runs "
                + sql.getMetaData().getDatabaseProductVersion() + ": its slots stay on the server they were made on, so after a "
                + "failover the pipeline must start again with a new snapshot (sluice run --fresh). Set slot.failover=false");
    }

    /** Whether the slot is a failover slot; false before 17, which has none. */
    public static boolean isFailover(Connection sql, String name) throws SQLException {
        if (sql.getMetaData().getDatabaseMajorVersion() < 17) {
            return false;
        }
        try (PreparedStatement s = sql.prepareStatement("SELECT failover FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Makes an existing slot a failover slot (17 and later), on a replication connection; it must not be in use. */
    public static void makeFailover(Connection replication, String name) throws SQLException {
        if (!validName(name)) {
            throw new IllegalArgumentException("Invalid replication slot name " + name);
        }
        try (Statement s = replication.createStatement()) {
            s.execute("ALTER_REPLICATION_SLOT " + name + " (FAILOVER true)");
        }
    }

    /** The slot, when it exists in this server (in any database). */
    public static Optional<State> find(Connection sql, String name) throws SQLException {
        try (PreparedStatement s = sql.prepareStatement("SELECT slot_name, plugin, database, active, active_pid, "
                + "coalesce(confirmed_flush_lsn, '0/0')::text FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                int pid = rs.getInt(5);
                return Optional.of(new State(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4),
                        rs.wasNull() ? null : pid, Lsn.parse(rs.getString(6))));
            }
        }
    }

    /**
     * Waits until no process holds the slot, at most {@code timeoutMillis}; true when it is
     * free (or gone). A wal sender whose client was killed lets go of its slot only once it
     * notices, a moment later.
     */
    public static boolean awaitReleased(Connection sql, String name, long timeoutMillis) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            Optional<State> slot = find(sql, name);
            if (slot.isEmpty() || !slot.get().active()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
    }

    /**
     * Drops the slot; false when it did not exist. A slot in use by a running stream cannot be
     * dropped: that fails naming the process that holds it.
     */
    public static boolean drop(Connection sql, String name) throws SQLException {
        Optional<State> slot = find(sql, name);
        if (slot.isEmpty()) {
            return false;
        }
        if (slot.get().active()) {
            throw new SQLException("Replication slot " + name + " is in use by process " + slot.get().activePid()
                    + ": stop the pipeline that streams from it first", "55006");
        }
        try (PreparedStatement s = sql.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
            s.setString(1, name);
            s.execute();
        }
        return true;
    }
}
