package io.sluice.connector.postgres.resync;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.InTurn;

/**
 * Which tables each pipeline streams, as the names its stream sends ({@code schema.table}), kept
 * beside the signal table: at each start the tables selected now that it did not stream before
 * joined the selection (its tables were widened) and have rows the targets never got; they are
 * copied by a re-sync, without a new snapshot of the others. Tables the stream's own DDL selects
 * while it runs (created under the include list) are added as they come, so they are not taken
 * for newcomers at the next start.
 */
public final class SelectionLedger {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SelectionLedger.class);

    /** The ledger's table, in the signal table's schema. */
    public static final String TABLE = "selections";

    private final String quoted;

    /** Next to the signal table, in its schema. */
    public SelectionLedger(SignalTable signals) {
        String[] name = Identifiers.unquoteQualified(signals.name());
        this.quoted = Identifiers.quote(name[0], TABLE);
    }

    /**
     * Records the tables selected now, in the caller's transaction, and returns those the
     * pipeline did not stream before; none at the pipeline's first start (its snapshot copies all).
     */
    public List<String> record(Connection c, String pipeline, Collection<String> now) throws SQLException {
        create(c);
        Set<String> before = null;
        try (PreparedStatement s = c.prepareStatement("SELECT tables FROM " + quoted + " WHERE pipeline = ? FOR UPDATE")) {
            s.setString(1, pipeline);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next()) {
                    before = new LinkedHashSet<>(List.of((String[]) rs.getArray(1).getArray()));
                }
            }
        }
        Set<String> sorted = new TreeSet<>(now);
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + quoted + " AS l (pipeline, tables) VALUES (?, ?) "
                + "ON CONFLICT (pipeline) DO UPDATE SET tables = EXCLUDED.tables, updated_at = now()")) {
            s.setString(1, pipeline);
            s.setArray(2, c.createArrayOf("text", sorted.toArray()));
            s.executeUpdate();
        }
        if (before == null) {
            return List.of();
        }
        List<String> added = new ArrayList<>();
        for (String name : sorted) {
            if (!before.contains(name)) {
                added.add(name);
            }
        }
        return added;
    }

    /**
     * Makes the table when it is missing. One session at a time: two pipelines of one source
     * starting together both ran CREATE TABLE IF NOT EXISTS, and the second failed on the
     * catalog's unique index (IF NOT EXISTS does not wait for a creation in progress).
     */
    private void create(Connection c) throws SQLException {
        if (exists(c)) {
            return;
        }
        InTurn.run(c, quoted, conn -> {
            try (Statement s = conn.createStatement()) {
                return s.execute("CREATE TABLE IF NOT EXISTS " + quoted + " (pipeline text PRIMARY KEY, tables text[] NOT NULL, "
                        + "updated_at timestamptz NOT NULL DEFAULT now())");
            }
        });
    }

    private boolean exists(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.to_regclass(?) IS NOT NULL")) {
            s.setString(1, quoted);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Adds tables the stream's DDL selected while it runs; nothing when the pipeline has no entry yet. */
    public void add(Connection c, String pipeline, Collection<String> names) throws SQLException {
        create(c);
        try (PreparedStatement s = c.prepareStatement("UPDATE " + quoted + " SET tables = ARRAY(SELECT DISTINCT t FROM "
                + "unnest(tables || ?::text[]) t ORDER BY t), updated_at = now() WHERE pipeline = ?")) {
            Array array = c.createArrayOf("text", names.toArray());
            s.setArray(1, array);
            s.setString(2, pipeline);
            s.executeUpdate();
        }
    }

    /**
     * Keeps the ledger up with the tables the stream's DDL selects while it runs, at most every
     * ten seconds, from the stream's own thread.
     */
    public static final class Updates {
        private final SelectionLedger ledger;
        private final String pipeline;
        private final java.util.function.Supplier<Set<String>> streamed;
        private Set<String> recorded;
        private long next;
        private boolean failed;

        /** @param streamed the names the stream sends now */
        public Updates(SelectionLedger ledger, String pipeline, java.util.function.Supplier<Set<String>> streamed) {
            this.ledger = ledger;
            this.pipeline = pipeline;
            this.streamed = streamed;
        }

        /** Adds the names the stream took on since the last time, when due. */
        public void due(java.util.function.Supplier<Connection> connection) throws SQLException {
            long now = System.nanoTime();
            if (now - next < 0) {
                return;
            }
            next = now + 10_000_000_000L;
            Set<String> names = streamed.get();
            if (names.equals(recorded) || failed) {
                return;
            }
            try {
                ledger.add(connection.get(), pipeline, names);
                recorded = names;
            } catch (SQLException e) {
                if (io.sluice.schemas.postgres.PgConnect.unreachable(e)) {
                    throw e;
                }
                failed = true;
                LOG.warn("Cannot record the tables pipeline {} streams ({}): a table created while it streams may be copied once more "
                        + "at its next start", pipeline, e.getMessage());
            }
        }
    }

    /** Forgets the pipeline (at teardown). */
    public void forget(Connection c, String pipeline) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("DELETE FROM " + quoted + " WHERE pipeline = ?")) {
            s.setString(1, pipeline);
            s.executeUpdate();
        } catch (SQLException e) {
            if (!"42P01".equals(e.getSQLState())) {
                throw e;
            }
        }
    }
}
