package io.sluice.sink.postgres.state;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
        // One string, one round trip.
        OwnTables.create(c, "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema) + "; CREATE TABLE IF NOT EXISTS " + qualified
                + " (source text PRIMARY KEY, tables text[] NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + qualified + " (source, tables) VALUES (?, ?) "
                + "ON CONFLICT (source) DO UPDATE SET tables = EXCLUDED.tables, created_at = now()")) {
            s.setString(1, source);
            s.setArray(2, c.createArrayOf("text", tables.toArray()));
            s.execute();
        }
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
     * Clears the source's claim: its snapshot finished (or its pipeline was torn down); false
     * when it had none. The last claim takes the table with it: what stays is the record of the
     * finished snapshot ({@link SnapshotRecords}).
     */
    public boolean release(Connection c, String source) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement(); PreparedStatement delete = c.prepareStatement("WITH gone AS (DELETE FROM "
                + qualified + " WHERE source = ? RETURNING 1) SELECT EXISTS (SELECT 1 FROM gone), NOT EXISTS (SELECT 1 FROM "
                + qualified + " WHERE source <> ?)")) {
            // Locked first, so a claim being made meanwhile is not dropped with the table.
            s.execute("LOCK TABLE " + qualified + " IN ACCESS EXCLUSIVE MODE");
            // The delete and the check whether other claims remain in one statement (one round
            // trip); its query sees the table as it was before the delete.
            delete.setString(1, source);
            delete.setString(2, source);
            boolean released;
            try (ResultSet rs = delete.executeQuery()) {
                rs.next();
                released = rs.getBoolean(1);
                if (rs.getBoolean(2)) {
                    s.execute("DROP TABLE " + qualified);
                }
            }
            c.commit();
            return released;
        } catch (SQLException e) {
            c.rollback();
            if (MissingRelation.is(e)) {
                return false;
            }
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }
}
