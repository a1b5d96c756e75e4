package io.sluice.sink.core.pgstate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.InTurn;

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
     * A statement that adds a column to one of Sluice's tables made before it had it, for
     * {@link #create}: it looks before it alters, because even {@code ADD COLUMN IF NOT EXISTS}
     * takes the table's exclusive lock, which would wait behind a session that holds one of its
     * rows (a batch whose connection was lost while its transaction stayed open on the target).
     *
     * @param qualified the table, quoted and qualified
     */
    public static String columnUnlessThere(String qualified, String column, String type) {
        return "DO $sluice$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = "
                + Identifiers.literal(qualified) + "::regclass AND attname = "
                + Identifiers.literal(column) + " AND NOT attisdropped) THEN ALTER TABLE " + qualified
                + " ADD COLUMN IF NOT EXISTS " + Identifiers.quote(column) + " " + type + "; END IF; END $sluice$";
    }

    /** A row to write into one of Sluice's tables: a statement with {@code ?} parameters, and their values in order. */
    public record Write(String sql, List<Object> parameters) {
    }

    /**
     * Runs the statements (each {@code IF NOT EXISTS}) under the lock: in the caller's transaction
     * when one is open (the lock is held until it ends), else in a transaction of their own.
     */
    public static void create(Connection c, String... statements) throws SQLException {
        createAndWrite(c, List.of(statements), List.of());
    }

    /**
     * Creates tables as {@link #create} does, then writes rows into them, all in one string (one
     * round trip; a transaction of its own adds one for the commit). Parameters are strings,
     * numbers or {@link java.sql.Array}s.
     */
    public static void createAndWrite(Connection c, List<String> creations, List<Write> writes) throws SQLException {
        // One round trip for the lock, the statements and the writes (and the BEGIN): through a
        // 200 ms link each statement on its own added 0.4 s to the start of a load.
        StringBuilder all = new StringBuilder("SELECT pg_advisory_xact_lock(" + LOCK + ")");
        for (String statement : creations) {
            all.append(";\n").append(statement);
        }
        for (Write write : writes) {
            all.append(";\n").append(write.sql());
        }
        InTurn.inTransaction(c, conn -> {
            if (writes.isEmpty()) {
                try (Statement s = conn.createStatement()) {
                    return s.execute(all.toString());
                }
            }
            try (PreparedStatement s = conn.prepareStatement(all.toString())) {
                int i = 1;
                for (Write write : writes) {
                    for (Object parameter : write.parameters()) {
                        s.setObject(i++, parameter);
                    }
                }
                return s.execute();
            }
        });
    }
}
