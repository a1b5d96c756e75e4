package io.sluice.sink.postgres.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.StringJoiner;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.pgstate.OwnTables;
import io.sluice.sink.core.pgstate.MissingRelation;

/**
 * The table on the target that holds, per source, the position of the last change applied. It
 * is written in the same transaction as the rows, so after any crash it says exactly which
 * changes are in: those at or below it are skipped when they come again.
 */
public final class AppliedPositions {

    private final String schema;
    private final String table;
    private final String qualified;
    private final AppliedHeartbeats heartbeats;

    /** @param qualifiedName {@code schema.table} */
    public AppliedPositions(String qualifiedName) {
        int dot = qualifiedName.indexOf('.');
        if (dot <= 0 || dot == qualifiedName.length() - 1) {
            throw new IllegalArgumentException("The position table must be named schema.table, not " + qualifiedName);
        }
        this.schema = qualifiedName.substring(0, dot);
        this.table = qualifiedName.substring(dot + 1);
        this.qualified = Identifiers.quote(schema, table);
        this.heartbeats = new AppliedHeartbeats(schema);
    }

    /** The newest heartbeat applied per source, kept beside the positions and written in the same transactions. */
    public AppliedHeartbeats heartbeats() {
        return heartbeats;
    }

    /** The schema the table is in, where Sluice keeps its other tables on the target too. */
    public String schema() {
        return schema;
    }

    /** The table, as {@code schema.table}. */
    public String name() {
        return schema + "." + table;
    }

    /** Creates the table, and the heartbeats' beside it, if missing. */
    public void ensure(Connection c) throws SQLException {
        OwnTables.create(c, "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema), "CREATE TABLE IF NOT EXISTS " + qualified
                + " (source text PRIMARY KEY, lsn_commit pg_lsn NOT NULL, event bigint NOT NULL, applied_at timestamptz NOT NULL "
                + "DEFAULT now(), changes bigint NOT NULL DEFAULT 0, whole boolean)",
                OwnTables.columnUnlessThere(qualified, "whole", "boolean"));
        heartbeats.ensure(c);
    }

    /** What the table says of one source. */
    public record Applied(SourcePosition position, java.time.OffsetDateTime appliedAt, long changes) {
    }

    /**
     * Whether the target holds the whole source transaction of the source's position (a batch
     * may end inside one); true when it does not record it (a target written before it did).
     */
    public boolean whole(Connection c, String source) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT whole FROM " + qualified + " WHERE source = ?")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return true;
                }
                boolean whole = rs.getBoolean(1);
                return rs.wasNull() || whole;
            }
        } catch (SQLException e) {
            if (MissingRelation.is(e) || "42703".equals(e.getSQLState())) {
                return true;
            }
            throw e;
        }
    }

    /** The row of a source, empty when nothing of it was applied (or the table does not exist). */
    public java.util.Optional<Applied> status(Connection c, String source) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT lsn_commit::text, event, applied_at, changes FROM " + qualified
                + " WHERE source = ?")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? java.util.Optional.of(new Applied(new SourcePosition(Lsn.parse(rs.getString(1)), rs.getLong(2)),
                        rs.getObject(3, java.time.OffsetDateTime.class), rs.getLong(4))) : java.util.Optional.empty();
            }
        } catch (SQLException e) {
            if (MissingRelation.is(e)) {
                return java.util.Optional.empty();
            }
            throw e;
        }
    }

    /** Forgets a source's position (its pipeline was torn down); false when there was none. */
    public boolean forget(Connection c, String source) throws SQLException {
        return OwnTables.forget(c, qualified, source);
    }


    /** The last applied position of a source; null when nothing of it was applied. */
    public SourcePosition read(Connection c, String source) throws SQLException {
        return status(c, source).map(Applied::position).orElse(null);
    }


    /**
     * Records the positions, inside the caller's transaction, and adds the changes applied with
     * them to each source's running count (what {@code sluice status} measures rates with).
     */
    public void write(Connection c, Map<String, SourcePosition> positions, Map<String, Long> changes) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate(writeSql(positions, changes, Map.of()));
        }
    }

    /**
     * The statement {@link #write} runs, with the values in it: the streamed changes' applier
     * sends it together with the statements that write the changes, in one round trip.
     */
    public String writeSql(Map<String, SourcePosition> positions, Map<String, Long> changes, Map<String, Boolean> whole) {
        StringJoiner rows = new StringJoiner(", ");
        for (Map.Entry<String, SourcePosition> e : positions.entrySet()) {
            Boolean ends = whole.get(e.getKey());
            rows.add("(" + Identifiers.literal(e.getKey()) + ", " + Identifiers.literal(e.getValue().lsnText()) + "::pg_lsn, "
                    + e.getValue().event() + ", " + changes.getOrDefault(e.getKey(), 0L) + ", " + (ends == null ? "NULL" : ends) + "::boolean)");
        }
        return "INSERT INTO " + qualified + " AS p (source, lsn_commit, event, changes, whole) VALUES " + rows
                + " ON CONFLICT (source) DO UPDATE SET lsn_commit = EXCLUDED.lsn_commit, event = EXCLUDED.event, applied_at = now(), "
                + "changes = p.changes + EXCLUDED.changes, whole = EXCLUDED.whole";
    }
}
