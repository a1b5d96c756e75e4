package io.sluice.sink.core.pgstate;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates Sluice's own tables in a sink's database (positions, offsets, claims, barriers) when they are
 * missing. Many tasks start at once on a cluster, and two concurrent {@code CREATE TABLE IF NOT
 * EXISTS} of one table can both miss it and one then fails on the catalog's unique index; a
 * transaction-scoped advisory lock makes them take turns.
 */
public final class OwnTables {

    /** The advisory lock's key: any fixed number, spelled so it is recognizable in pg_locks. */
    private static final long LOCK = 0x511CE_0001L;

    private OwnTables() {
    }

    /**
     * Deletes a source's row from one of Sluice's tables (its primary key is {@code source});
     * false when there was none, or no such table.
     */
    public static boolean forget(Connection c, String qualifiedTable, String source) throws SQLException {
        try (java.sql.PreparedStatement s = c.prepareStatement("DELETE FROM " + qualifiedTable + " WHERE source = ?")) {
            s.setString(1, source);
            return s.executeUpdate() > 0;
        } catch (SQLException e) {
            if (MissingRelation.is(e)) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Runs the statements (each {@code IF NOT EXISTS}) under the lock: in the caller's transaction
     * when one is open (the lock is held until it ends), else in a transaction of their own.
     */
    public static void create(Connection c, String... statements) throws SQLException {
        boolean own = c.getAutoCommit();
        if (own) {
            c.setAutoCommit(false);
        }
        try (Statement s = c.createStatement()) {
            // One round trip for the lock and the statements (and the BEGIN): through a 200 ms link
            // each statement on its own added 0.4 s to the start of a load.
            StringBuilder all = new StringBuilder("SELECT pg_advisory_xact_lock(" + LOCK + ")");
            for (String statement : statements) {
                all.append(";\n").append(statement);
            }
            s.execute(all.toString());
            if (own) {
                c.commit();
            }
        } catch (SQLException | RuntimeException e) {
            if (own) {
                c.rollback();
            }
            throw e;
        } finally {
            if (own) {
                c.setAutoCommit(true);
            }
        }
    }
}
