package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import io.sluice.schemas.naming.Identifiers;

/**
 * The table on the target that holds, per source, the position of the last change applied. It
 * is written in the same transaction as the rows, so after any crash it says exactly which
 * changes are in: those at or below it are skipped when they come again.
 */
public final class AppliedPositions {

    private final String schema;
    private final String table;
    private final String qualified;

    /** @param qualifiedName {@code schema.table} */
    public AppliedPositions(String qualifiedName) {
        int dot = qualifiedName.indexOf('.');
        if (dot <= 0 || dot == qualifiedName.length() - 1) {
            throw new IllegalArgumentException("The position table must be named schema.table, not " + qualifiedName);
        }
        this.schema = qualifiedName.substring(0, dot);
        this.table = qualifiedName.substring(dot + 1);
        this.qualified = Identifiers.quote(schema, table);
    }

    /** The table, as {@code schema.table}. */
    public String name() {
        return schema + "." + table;
    }

    /** Creates the table if it is missing. */
    public void ensure(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema));
            s.execute("CREATE TABLE IF NOT EXISTS " + qualified + " (source text PRIMARY KEY, lsn_commit pg_lsn NOT NULL, "
                    + "event bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
        }
    }

    /** The last applied position of a source; null when nothing of it was applied. */
    public SourcePosition read(Connection c, String source) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT lsn_commit - '0/0'::pg_lsn, event FROM " + qualified + " WHERE source = ?")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? new SourcePosition(rs.getBigDecimal(1).longValue(), rs.getLong(2)) : null;
            }
        }
    }

    /** Records the positions, inside the caller's transaction. */
    public void write(Connection c, Map<String, SourcePosition> positions) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + qualified + " (source, lsn_commit, event) VALUES (?, ?::pg_lsn, ?) "
                + "ON CONFLICT (source) DO UPDATE SET lsn_commit = EXCLUDED.lsn_commit, event = EXCLUDED.event, applied_at = now()")) {
            for (Map.Entry<String, SourcePosition> e : positions.entrySet()) {
                s.setString(1, e.getKey());
                s.setString(2, e.getValue().lsnText());
                s.setLong(3, e.getValue().event());
                s.addBatch();
            }
            s.executeBatch();
        }
    }
}
