package io.sluice.sink.postgres.state;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.pgstate.OwnTables;
import io.sluice.sink.core.pgstate.MissingRelation;

/**
 * The table on the target that records, per source, the snapshot copied into it: when it was
 * taken, when it started and finished loading, and which source tables went into which target
 * tables. A finished snapshot lives here, next to the rows it describes, like the streaming
 * position does; a target recreated, emptied or swapped for another database no longer says
 * so, and whoever reads it (the {@code sluice} command) copies again rather than trusting a
 * local file.
 */
public final class SnapshotRecords {

    private final String schema;
    private final String qualified;

    /** @param schema the schema of Sluice's own tables on the target (that of the position table) */
    public SnapshotRecords(String schema) {
        this.schema = schema;
        this.qualified = Identifiers.quote(schema, "snapshots");
    }

    /** One source's record. Tables are quoted qualified names, the source's and the target's in the same order. */
    public record Snapshot(String source, String database, OffsetDateTime takenAt, OffsetDateTime startedAt, OffsetDateTime finishedAt,
                           List<String> sourceTables, List<String> targetTables) {

        public boolean finished() {
            return finishedAt != null;
        }
    }

    /** Records, in the caller's transaction, that a source's snapshot began loading (or began again). */
    public void started(Connection c, String source, String database, long takenMicros, List<String> sourceTables, List<String> targetTables)
            throws SQLException {
        OwnTables.createAndWrite(c, List.of(creation()), List.of(startWrite(c, source, database, takenMicros, sourceTables, targetTables)));
    }

    /** Records, in the caller's transaction, that a source's snapshot is complete on the target: rows, keys, post-data. */
    public void finished(Connection c, String source, String database, long takenMicros, List<String> sourceTables, List<String> targetTables)
            throws SQLException {
        OwnTables.createAndWrite(c, List.of(creation()), List.of(finishWrite(c, source, database, takenMicros, sourceTables, targetTables)));
    }

    /** What creates the table, for {@link OwnTables#createAndWrite}. */
    public String creation() {
        return "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema) + "; CREATE TABLE IF NOT EXISTS " + qualified
                + " (source text PRIMARY KEY, source_database text NOT NULL, taken_at timestamptz NOT NULL, started_at timestamptz NOT NULL "
                + "DEFAULT now(), finished_at timestamptz, source_tables text[] NOT NULL, target_tables text[] NOT NULL)";
    }

    /** The end of {@link #finished}, to write together with other rows (one round trip). */
    public OwnTables.Write finishWrite(Connection c, String source, String database, long takenMicros, List<String> sourceTables,
                                       List<String> targetTables) throws SQLException {
        return row(c, source, database, takenMicros, sourceTables, targetTables, true);
    }

    /** The start of {@link #started}, to write together with other rows (one round trip). */
    public OwnTables.Write startWrite(Connection c, String source, String database, long takenMicros, List<String> sourceTables,
                                      List<String> targetTables) throws SQLException {
        return row(c, source, database, takenMicros, sourceTables, targetTables, false);
    }

    /** A resumed snapshot sends no start of its own: its end keeps the start of the run that began it. */
    private OwnTables.Write row(Connection c, String source, String database, long takenMicros, List<String> sourceTables,
                                  List<String> targetTables, boolean finished) throws SQLException {
        return new OwnTables.Write("INSERT INTO " + qualified + " AS r (source, source_database, taken_at, finished_at, "
                + "source_tables, target_tables) VALUES (?, ?, to_timestamp(? / 1e6), " + (finished ? "now()" : "NULL") + ", ?, ?) "
                + "ON CONFLICT (source) DO UPDATE SET source_database = EXCLUDED.source_database, taken_at = EXCLUDED.taken_at, "
                + "finished_at = EXCLUDED.finished_at, source_tables = EXCLUDED.source_tables, target_tables = EXCLUDED.target_tables"
                + (finished ? "" : ", started_at = now()"),
                List.of(source, database, takenMicros, c.createArrayOf("text", sourceTables.toArray()),
                        c.createArrayOf("text", targetTables.toArray())));
    }

    /** What the target records of a source's snapshot; empty when nothing (or the table does not exist). */
    public Optional<Snapshot> read(Connection c, String source) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT source_database, taken_at, started_at, finished_at, source_tables, "
                + "target_tables FROM " + qualified + " WHERE source = ?")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Snapshot(source, rs.getString(1), rs.getObject(2, OffsetDateTime.class),
                        rs.getObject(3, OffsetDateTime.class), rs.getObject(4, OffsetDateTime.class), texts(rs.getArray(5)),
                        texts(rs.getArray(6))));
            }
        } catch (SQLException e) {
            if (MissingRelation.is(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Forgets a source's snapshot (its pipeline was torn down, or is copied again); false when there was none. */
    public boolean forget(Connection c, String source) throws SQLException {
        return OwnTables.forget(c, qualified, source);
    }


    private static List<String> texts(Array array) throws SQLException {
        return List.of((String[]) array.getArray());
    }
}
