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

import io.sluice.connector.postgres.selection.ColumnLists;
import io.sluice.connector.postgres.selection.RowFilters;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.naming.Identifiers;

/**
 * The publication that tells pgoutput which tables to decode. Sluice manages it: created for
 * the selected tables (or for all tables), and when it exists, tables the selection gained are
 * added to it. It publishes leaf partitions as themselves, the way the PostgreSQL sink rebuilds the
 * tree, or through their root ({@code publish_via_partition_root}), as one table to other sinks.
 */
public final class Publication {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Publication.class);

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
     * the publication lists; a publication Sluice manages is altered to say so. Each table is
     * listed with its row filter ({@link PublicationFilters}); a filter changed since is set anew
     * on a publication Sluice manages, and must be the same on one it does not.
     *
     * @return what was done, for the log; empty when nothing
     * @throws IllegalStateException when the publication cannot be made to match, saying what to do
     */
    public static String ensure(Connection sql, String name, Mode mode, List<SelectedTable> selected, boolean viaRoot,
                                RowFilters filters, ColumnLists lists) throws SQLException {
        String quoted = Identifiers.quote(name);
        Map<String, PublicationFilters.Listed> wanted = PublicationFilters.listed(selected, viaRoot, filters);
        List<String> problems = new ArrayList<>();
        Map<String, List<String>> columns = PublicationColumns.wanted(sql, selected, viaRoot, lists, true, problems);
        boolean anyFilter = wanted.values().stream().anyMatch(l -> l.condition() != null) || !lists.isEmpty();
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
        if (anyFilter && (mode == Mode.ALL_TABLES || existing.map(State::allTables).orElse(false))) {
            throw new IllegalStateException("Row filters (table.filter.*) and column lists (table.columns.*) are set on the "
                    + "publication's tables, and publication " + name + " is FOR ALL TABLES, which takes none: set "
                    + "publication.autocreate.mode=filtered (and drop the publication if it exists: Sluice makes it again for the "
                    + "selected tables), or remove the keys");
        }
        // A publication the user keeps is not tried (that takes the tables' owner), only whether the server takes filters.
        Map<String, String> spelled = anyFilter && (mode != Mode.DISABLED
                || sql.getMetaData().getDatabaseMajorVersion() < PublicationFilters.FIRST_VERSION)
                ? PublicationFilters.check(sql, wanted, viaRoot, problems) : Map.of();
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("; ", problems));
        }
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
                List<String> entries = wanted.values().stream().map(l -> entry(l, columns)).toList();
                // A publication for no table yet is valid; tables created later join it.
                s.execute("CREATE PUBLICATION " + quoted + (entries.isEmpty() ? "" : " FOR TABLE " + String.join(", ", entries)) + with);
                long filtered = wanted.values().stream().filter(l -> l.condition() != null).count();
                return "created publication " + name + " for " + wanted.size() + " tables" + (viaRoot ? ", partitions through their roots" : "")
                        + (filtered > 0 ? ", " + filtered + " of them with a row filter" : "");
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
        Map<String, String> current = PublicationFilters.current(sql, name);
        Map<String, List<String>> currentColumns = PublicationColumns.current(sql, name);
        Set<String> published = current.isEmpty() ? publishedNames(sql, name) : current.keySet();
        List<String> missing = new ArrayList<>();
        List<PublicationFilters.Listed> refiltered = new ArrayList<>();
        for (Map.Entry<String, PublicationFilters.Listed> w : wanted.entrySet()) {
            PublicationFilters.Listed listed = w.getValue();
            if (!published.contains(w.getKey())) {
                missing.add(entry(listed, columns));
                continue;
            }
            String have = current.get(w.getKey());
            String want = spelled.get(w.getKey());
            if (mode == Mode.DISABLED && listed.condition() != null && have != null) {
                want = PublicationFilters.spelledAlone(sql, listed); // the user's publication: spelled without making one
            }
            if (!sameFilter(listed, want, have) || !java.util.Objects.equals(columns.get(w.getKey()), currentColumns.get(w.getKey()))) {
                refiltered.add(listed);
            }
        }
        if (mode == Mode.DISABLED && !refiltered.isEmpty()) {
            throw new IllegalStateException(refiltered.stream().map(l -> "publication " + name + " filters " + l.published() + " by "
                    + (current.get(l.published()) == null ? "nothing" : current.get(l.published())) + ", and "
                    + (l.condition() == null ? "no table.filter key names it" : l.key() + " says " + l.condition())
                    + "; it publishes " + (currentColumns.get(l.published()) == null ? "every column" : currentColumns.get(l.published()))
                    + ", the keys say " + (columns.get(l.published()) == null ? "every column" : columns.get(l.published()))).toList()
                    + ": the snapshot must copy the rows and columns the stream carries. Make them the same: set the keys to the "
                    + "publication's filter (as PostgreSQL spells it) and columns, or change the publication (ALTER PUBLICATION " + quoted
                    + " SET TABLE ...)");
        }
        if (missing.isEmpty() && refiltered.isEmpty()) {
            return String.join("; ", done);
        }
        if (mode == Mode.DISABLED) {
            throw new IllegalStateException("Publication " + name + " does not publish " + missing.size() + " selected table(s): "
                    + String.join(", ", missing.stream().limit(10).toList())
                    + ". Add them (ALTER PUBLICATION " + quoted + " ADD TABLE ...), or leave them out with table.exclude.list");
        }
        boolean autoCommit = sql.getAutoCommit();
        sql.setAutoCommit(false);
        try (Statement s = sql.createStatement()) {
            // In one transaction: the stream sees the table either with its old filter or with its new one, never without it.
            for (PublicationFilters.Listed l : refiltered) {
                s.execute("ALTER PUBLICATION " + quoted + " DROP TABLE " + l.quoted());
                s.execute("ALTER PUBLICATION " + quoted + " ADD TABLE " + entry(l, columns));
            }
            if (!missing.isEmpty()) {
                s.execute("ALTER PUBLICATION " + quoted + " ADD TABLE " + String.join(", ", missing));
            }
            sql.commit();
        } catch (SQLException e) {
            sql.rollback();
            throw e;
        } finally {
            sql.setAutoCommit(autoCommit);
        }
        if (!missing.isEmpty()) {
            done.add("added " + missing.size() + " tables to publication " + name);
        }
        for (PublicationFilters.Listed l : refiltered) {
            LOG.warn("The row filter or column list of {} changed (now {}, {}): set on publication {}. What is already on the target "
                    + "was copied as they were before: rows or columns they left out and the new ones take are missing there, what "
                    + "they took and the new ones leave out stays. Copy the table again (sluice run --fresh) for a target that holds "
                    + "exactly what the new ones take", l.published(), l.condition() == null ? "every row" : l.condition(),
                    columns.get(l.published()) == null ? "every column" : "columns " + columns.get(l.published()), name);
            done.add("set the row filter and column list of " + l.published() + " on publication " + name);
        }
        return String.join("; ", done);
    }

    /** A table as the publication's FOR TABLE / ADD TABLE lists it: with its column list and row filter, if any. */
    private static String entry(PublicationFilters.Listed l, Map<String, List<String>> columns) {
        return l.quoted() + PublicationColumns.clause(columns.get(l.published())) + (l.condition() == null ? "" : " WHERE (" + l.condition() + ")");
    }

    /**
     * Whether the publication filters a table as wanted: compared as PostgreSQL spells both, or
     * else by text, blanks and enclosing parentheses aside.
     */
    private static boolean sameFilter(PublicationFilters.Listed listed, String spelledWanted, String current) {
        if (listed.condition() == null || current == null) {
            return listed.condition() == null && current == null;
        }
        return current.equals(spelledWanted) || plain(listed.condition()).equals(plain(current));
    }

    private static String plain(String condition) {
        String s = condition.replaceAll("\\s+", "");
        while (s.startsWith("(") && s.endsWith(")") && balanced(s.substring(1, s.length() - 1))) {
            s = s.substring(1, s.length() - 1);
        }
        return s;
    }

    private static boolean balanced(String s) {
        int depth = 0;
        for (char c : s.toCharArray()) {
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (depth < 0) {
                return false;
            }
        }
        return depth == 0;
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
