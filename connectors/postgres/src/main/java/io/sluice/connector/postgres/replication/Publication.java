package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.naming.Identifiers;

/**
 * The publication that tells pgoutput which tables to decode. Sluice manages it: created for
 * the selected tables (or for all tables), and when it exists, tables the selection gained are
 * added to it. It publishes leaf partitions as themselves, the way the PostgreSQL sink rebuilds the
 * tree, or through their root ({@code publish_via_partition_root}), as one table to other sinks.
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
        if (state(sql, name).isEmpty()) {
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
     * {@link SelectedTable#unlogged} names them for the warning. With {@code viaRoot}, partitions
     * are published through their root ({@code publish_via_partition_root}), which is then what
     * the publication lists; a publication Sluice manages is altered to say so.
     *
     * @return what was done, for the log; empty when nothing
     */
    public static String ensure(Connection sql, String name, Mode mode, List<SelectedTable> selected, boolean viaRoot) throws SQLException {
        String quoted = Identifiers.quote(name);
        Map<String, String> wanted = new LinkedHashMap<>();
        for (SelectedTable t : selected) {
            if (t.logged()) {
                wanted.putIfAbsent(t.publishedName(viaRoot), viaRoot && t.root() != null ? Identifiers.quote(t.rootSchema(), t.rootName())
                        : Identifiers.quote(t.schema(), t.name()));
            }
        }
        // From 18 on, stored generated columns can be published, so snapshot rows and changes both carry them.
        boolean generated = sql.getMetaData().getDatabaseMajorVersion() >= 18;
        List<String> options = new ArrayList<>();
        if (viaRoot) {
            options.add("publish_via_partition_root = true");
        }
        if (generated) {
            options.add("publish_generated_columns = stored");
        }
        String with = options.isEmpty() ? "" : " WITH (" + String.join(", ", options) + ")";
        Optional<State> existing = state(sql, name);
        if (existing.isEmpty()) {
            if (mode == Mode.DISABLED) {
                throw new IllegalStateException("Publication " + name + " does not exist and publication.autocreate.mode is disabled: "
                        + "create it (CREATE PUBLICATION " + quoted + " FOR TABLE ..." + with + "), or let Sluice create it");
            }
            try (Statement s = sql.createStatement()) {
                if (mode == Mode.ALL_TABLES) {
                    s.execute("CREATE PUBLICATION " + quoted + " FOR ALL TABLES" + with);
                    return "created publication " + name + " for all tables" + (viaRoot ? ", partitions through their roots" : "");
                }
                // A publication for no table yet is valid; tables created later join it.
                s.execute("CREATE PUBLICATION " + quoted + (wanted.isEmpty() ? "" : " FOR TABLE " + String.join(", ", wanted.values())) + with);
                return "created publication " + name + " for " + wanted.size() + " tables" + (viaRoot ? ", partitions through their roots" : "");
            }
        }
        List<String> done = new ArrayList<>();
        if (mode != Mode.DISABLED && existing.get().viaRoot() != viaRoot) {
            try (Statement s = sql.createStatement()) {
                s.execute("ALTER PUBLICATION " + quoted + " SET (publish_via_partition_root = " + viaRoot + ")");
            }
            done.add("set publish_via_partition_root = " + viaRoot + " on publication " + name);
        }
        if (mode != Mode.DISABLED && generated && !existing.get().storedGenerated()) {
            try (Statement s = sql.createStatement()) {
                s.execute("ALTER PUBLICATION " + quoted + " SET (publish_generated_columns = stored)");
            }
            done.add("set publish_generated_columns = stored on publication " + name);
        }
        if (existing.get().allTables()) {
            return String.join("; ", done);
        }
        Set<String> published = publishedNames(sql, name);
        List<String> missing = new ArrayList<>();
        wanted.forEach((table, quotedTable) -> {
            if (!published.contains(table)) {
                missing.add(quotedTable);
            }
        });
        if (missing.isEmpty()) {
            return String.join("; ", done);
        }
        if (mode == Mode.DISABLED) {
            throw new IllegalStateException("Publication " + name + " does not publish " + missing.size() + " selected table(s): "
                    + String.join(", ", missing.stream().limit(10).toList())
                    + ". Add them (ALTER PUBLICATION " + quoted + " ADD TABLE ...), or leave them out with table.exclude.list");
        }
        try (Statement s = sql.createStatement()) {
            s.execute("ALTER PUBLICATION " + quoted + " ADD TABLE " + String.join(", ", missing));
        }
        done.add("added " + missing.size() + " tables to publication " + name);
        return String.join("; ", done);
    }

    /**
     * Whether partitions are to be published through their root: {@code wanted}, unless the
     * publication exists saying otherwise and Sluice may not change it ({@link Mode#DISABLED}) or
     * the pipeline's snapshot was taken its way (its rows on the sinks are named so; a new
     * snapshot takes the setting).
     */
    public static boolean viaRootInUse(Connection sql, String name, Mode mode, boolean wanted, boolean snapshotDone) throws SQLException {
        Optional<State> existing = state(sql, name);
        boolean fixed = mode == Mode.DISABLED || snapshotDone;
        return existing.isPresent() && fixed ? existing.get().viaRoot() : wanted;
    }

    /** The one warning that names the selected tables streaming cannot follow. */
    public static String unloggedWarning(List<String> unlogged) {
        return unlogged.size() + " selected table(s) are UNLOGGED: " + String.join(", ", unlogged.subList(0, Math.min(10, unlogged.size())))
                + (unlogged.size() > 10 ? ", ..." : "") + ". Their changes are not written to the WAL, so they cannot be streamed: the "
                + "snapshot copies them, and later changes do not reach the target. ALTER TABLE ... SET LOGGED and a new snapshot "
                + "(--fresh) streams them too, or leave them out with table.exclude.list.";
    }

    /** What pg_publication says of an existing publication. */
    private record State(boolean allTables, boolean viaRoot, boolean storedGenerated) {
    }

    /** Empty when the publication does not exist. */
    private static Optional<State> state(Connection sql, String name) throws SQLException {
        String generated = sql.getMetaData().getDatabaseMajorVersion() >= 18 ? "pubgencols = 's'" : "false";
        try (PreparedStatement s = sql.prepareStatement("SELECT puballtables, pubviaroot, " + generated
                + " FROM pg_catalog.pg_publication WHERE pubname = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(new State(rs.getBoolean(1), rs.getBoolean(2), rs.getBoolean(3))) : Optional.empty();
            }
        }
    }

    /** The tables the publication lists, as schema.table: the roots of partitions it publishes through them. */
    private static Set<String> publishedNames(Connection sql, String name) throws SQLException {
        Set<String> names = new LinkedHashSet<>();
        try (PreparedStatement s = sql.prepareStatement("SELECT schemaname, tablename FROM pg_catalog.pg_publication_tables WHERE pubname = ?")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1) + "." + rs.getString(2));
                }
            }
        }
        return names;
    }
}
