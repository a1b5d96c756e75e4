package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.naming.Identifiers;

/**
 * The publication that tells pgoutput which tables to decode. Sluice manages it: created for
 * the selected tables (or for all tables), and when it exists, tables the selection gained are
 * added to it. It publishes leaf partitions as themselves, the way the snapshot reads them.
 */
public final class Publication {

    /** How the publication is made. */
    public enum Mode {
        /** For the selected tables; tables selected later are added. */
        FILTERED,
        /** FOR ALL TABLES (needs superuser); changes of unselected tables are dropped by the connector. */
        ALL_TABLES,
        /** Sluice does not touch it: it must exist and cover the selected tables. */
        DISABLED
    }

    private Publication() {
    }

    /** Drops the publication; false when it did not exist. */
    public static boolean drop(Connection sql, String name) throws SQLException {
        if (allTables(sql, name) == null) {
            return false;
        }
        try (Statement s = sql.createStatement()) {
            s.execute("DROP PUBLICATION " + Identifiers.quote(name));
        }
        return true;
    }

    /**
     * Makes sure the publication exists and covers the tables that are WAL-logged: UNLOGGED tables
     * cannot be published (their changes never reach the WAL), so the snapshot alone copies them;
     * {@link SelectedTable#unlogged} names them for the warning.
     *
     * @return what was done, for the log; empty when nothing
     */
    public static String ensure(Connection sql, String name, Mode mode, List<SelectedTable> selected) throws SQLException {
        String quoted = Identifiers.quote(name);
        List<SelectedTable> tables = selected.stream().filter(SelectedTable::logged).toList();
        Boolean allTables = allTables(sql, name);
        if (allTables == null) {
            if (mode == Mode.DISABLED) {
                throw new IllegalStateException("Publication " + name + " does not exist and publication.autocreate.mode is disabled: "
                        + "create it (CREATE PUBLICATION " + quoted + " FOR TABLE ...), or let Sluice create it");
            }
            try (Statement s = sql.createStatement()) {
                if (mode == Mode.ALL_TABLES) {
                    s.execute("CREATE PUBLICATION " + quoted + " FOR ALL TABLES");
                    return "created publication " + name + " for all tables";
                }
                // A publication for no table yet is valid; tables created later join it.
                s.execute("CREATE PUBLICATION " + quoted + (tables.isEmpty() ? "" : " FOR TABLE " + list(tables)));
                return "created publication " + name + " for " + tables.size() + " tables";
            }
        }
        if (allTables) {
            return "";
        }
        Set<Long> published = publishedOids(sql, name);
        List<SelectedTable> missing = new ArrayList<>();
        for (SelectedTable t : tables) {
            if (!published.contains(t.oid())) {
                missing.add(t);
            }
        }
        if (missing.isEmpty()) {
            return "";
        }
        if (mode == Mode.DISABLED) {
            throw new IllegalStateException("Publication " + name + " does not publish " + missing.size() + " selected table(s): "
                    + String.join(", ", missing.stream().map(SelectedTable::qualifiedName).limit(10).toList())
                    + ". Add them (ALTER PUBLICATION " + quoted + " ADD TABLE ...), or leave them out with table.exclude.list");
        }
        try (Statement s = sql.createStatement()) {
            s.execute("ALTER PUBLICATION " + quoted + " ADD TABLE " + list(missing));
        }
        return "added " + missing.size() + " tables to publication " + name;
    }

    /** The one warning that names the selected tables streaming cannot follow. */
    public static String unloggedWarning(List<String> unlogged) {
        return unlogged.size() + " selected table(s) are UNLOGGED: " + String.join(", ", unlogged.subList(0, Math.min(10, unlogged.size())))
                + (unlogged.size() > 10 ? ", ..." : "") + ". Their changes are not written to the WAL, so they cannot be streamed: the "
                + "snapshot copies them, and later changes do not reach the target. ALTER TABLE ... SET LOGGED and a new snapshot "
                + "(--fresh) streams them too, or leave them out with table.exclude.list.";
    }

    /** Null when the publication does not exist. */
    private static Boolean allTables(Connection sql, String name) throws SQLException {
        try (PreparedStatement s = sql.prepareStatement("SELECT puballtables FROM pg_catalog.pg_publication WHERE pubname = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getBoolean(1) : null;
            }
        }
    }

    private static Set<Long> publishedOids(Connection sql, String name) throws SQLException {
        Set<Long> oids = new LinkedHashSet<>();
        try (PreparedStatement s = sql.prepareStatement(
                "SELECT (quote_ident(schemaname) || '.' || quote_ident(tablename))::regclass::oid FROM pg_catalog.pg_publication_tables "
                        + "WHERE pubname = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    oids.add(rs.getLong(1));
                }
            }
        }
        return oids;
    }

    private static String list(List<SelectedTable> tables) {
        return String.join(", ", tables.stream().map(t -> Identifiers.quote(t.schema(), t.name())).toList());
    }
}
