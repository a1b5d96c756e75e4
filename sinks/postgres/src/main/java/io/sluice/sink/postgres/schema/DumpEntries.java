package io.sluice.sink.postgres.schema;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;

import io.sluice.schemas.ddl.DumpScript;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a dump's entries on the target, the way pre-data and post-data both do. */
final class DumpEntries {

    private static final Logger LOG = LoggerFactory.getLogger(DumpEntries.class);
    /** Errors that say an object is already there: skipped when loading into existing tables. */
    static final Set<String> DUPLICATE_OBJECT = Set.of("42P07", "42710", "42P06", "42723", "42P16", "42701", "42P04");

    private DumpEntries() {
    }

    /**
     * Runs the entry, after the preamble in the same string (one round trip); an object that is
     * there already is kept when {@code tolerateExisting}, any other failure names the entry.
     */
    static void apply(Connection c, String preamble, DumpScript.Entry entry, boolean tolerateExisting, PgEndpoint endpoint) {
        String sql = DumpScript.withoutComments(preamble).isBlank() ? entry.sql() : preamble + "\n;\n" + entry.sql();
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            if (tolerateExisting && (DUPLICATE_OBJECT.contains(e.getSQLState()) || attachedAlready(entry, e))) {
                LOG.info("{} exists on the target already; kept", entry);
                return;
            }
            throw new ConnectException("Creating " + entry + " on " + endpoint.display() + " failed: " + e.getMessage()
                    + "\nStatement: " + entry.sql(), e);
        }
    }

    /** A key built from an existing index whose index already backs that key. */
    private static boolean attachedAlready(DumpScript.Entry entry, SQLException e) {
        return "55000".equals(e.getSQLState()) && entry.sql().contains(" USING INDEX ") && e.getMessage().contains("already associated");
    }

    /** Runs a script that may be empty or only comments (then nothing). */
    static void run(Connection c, String sql) throws SQLException {
        if (sql != null && !DumpScript.withoutComments(sql).isBlank()) {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }
    }

}
