package io.sluice.sink.postgres.state;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.pgstate.OwnTables;
import io.sluice.sink.core.pgstate.MissingRelation;

/**
 * The table on the target that names, per source, the tables a snapshot created and has not
 * finished loading. It is written in the transaction that creates them, and cleared when the
 * snapshot's last event is applied. A run stopped after creating the tables but before the
 * source stored that its snapshot was under way starts the snapshot over; the claim tells the
 * tables in its way apart from tables that were there before, which are never dropped.
 */
public final class SnapshotClaims {

    private final String schema;
    private final String qualified;

    /** @param schema the schema of Sluice's own tables on the target (that of the position table) */
    public SnapshotClaims(String schema) {
        this.schema = schema;
        this.qualified = Identifiers.quote(schema, "snapshot_claims");
    }

    /** Records, in the caller's transaction, that the source's snapshot created these tables (quoted names). */
    public void claim(Connection c, String source, List<String> tables) throws SQLException {
        OwnTables.createAndWrite(c, List.of(creation()), List.of(write(c, source, tables)));
    }

    /** What creates the table, for {@link OwnTables#createAndWrite}. */
    public String creation() {
        return "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema) + "; CREATE TABLE IF NOT EXISTS " + qualified
                + " (source text PRIMARY KEY, tables text[] NOT NULL, created_at timestamptz NOT NULL DEFAULT now())";
    }

    /** The claim of {@link #claim}, to write together with other rows (one round trip). */
    public OwnTables.Write write(Connection c, String source, List<String> tables) throws SQLException {
        return new OwnTables.Write("INSERT INTO " + qualified + " (source, tables) VALUES (?, ?) "
                + "ON CONFLICT (source) DO UPDATE SET tables = EXCLUDED.tables, created_at = now()",
                List.of(source, c.createArrayOf("text", tables.toArray())));
    }

    /** The tables (quoted names) the source's unfinished snapshot created; empty when it has no claim. */
    public List<String> claimed(Connection c, String source) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT tables FROM " + qualified + " WHERE source = ?")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return List.of();
                }
                Array tables = rs.getArray(1);
                return List.of((String[]) tables.getArray());
            }
        } catch (SQLException e) {
            if (MissingRelation.is(e)) {
                return List.of();
            }
            throw e;
        }
    }

    /**
     * Clears the source's claim: its snapshot finished (or its pipeline was torn down). The last
     * claim takes the table with it: what stays is the record of the finished snapshot
     * ({@link SnapshotRecords}). Nothing to do without the table.
     */
    public void release(Connection c, String source) throws SQLException {
        OwnTables.createAndWrite(c, List.of(), List.of(releaseWrite(source)));
    }

    /**
     * {@link #release} as a write to run with others (one round trip): the source goes in as a
     * setting of the transaction, which a server-side block reads, so the check for remaining
     * claims and the drop need no round trips of their own.
     */
    public OwnTables.Write releaseWrite(String source) {
        String table = qualified.replace("'", "''");
        // Locked first, so a claim being made meanwhile is not dropped with the table.
        return new OwnTables.Write("SELECT pg_catalog.set_config('sluice.released_source', ?, true);\n"
                + "DO $release$ BEGIN IF pg_catalog.to_regclass('" + table + "') IS NOT NULL THEN "
                + "LOCK TABLE " + qualified + " IN ACCESS EXCLUSIVE MODE; "
                + "DELETE FROM " + qualified + " WHERE source = pg_catalog.current_setting('sluice.released_source'); "
                + "IF NOT EXISTS (SELECT 1 FROM " + qualified + ") THEN DROP TABLE " + qualified + "; END IF; "
                + "END IF; END $release$", List.of(source));
    }
}
