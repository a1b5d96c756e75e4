package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.sluice.connector.postgres.selection.RowFilters;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.naming.Identifiers;

/**
 * The row filters of the tables a publication lists ({@code FOR TABLE t WHERE (...)}, PostgreSQL
 * 15 and later), checked before any is set. Each filter is tried on a publication made and
 * rolled back in one transaction: PostgreSQL refuses what a row filter may not hold (user-defined
 * or mutable functions, system columns, aggregates) and gives its own spelling of the condition,
 * which is what {@code pg_publication_tables} shows and so what an existing publication is
 * compared against. The columns it uses (recorded as the publication's dependencies) must be in
 * the table's replica identity: else PostgreSQL would refuse every UPDATE and DELETE of the
 * table's writers once the filter is set.
 */
public final class PublicationFilters {

    /** Row filters in publications came with PostgreSQL 15. */
    public static final int FIRST_VERSION = 15;

    private static final String COLUMNS = """
            SELECT a.attname
              FROM pg_catalog.pg_publication p
              JOIN pg_catalog.pg_publication_rel pr ON pr.prpubid = p.oid
              JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_publication_rel'::regclass AND d.objid = pr.oid
                   AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid = pr.prrelid AND d.refobjsubid > 0
              JOIN pg_catalog.pg_attribute a ON a.attrelid = pr.prrelid AND a.attnum = d.refobjsubid
             WHERE p.pubname = ?
             ORDER BY a.attnum""";

    private static final String IDENTITY = """
            SELECT c.relreplident, coalesce(array_agg(a.attname ORDER BY a.attnum) FILTER (WHERE a.attname IS NOT NULL), '{}')
              FROM pg_catalog.pg_class c
              LEFT JOIN pg_catalog.pg_index i ON i.indrelid = c.oid
                   AND ((c.relreplident = 'd' AND i.indisprimary) OR (c.relreplident = 'i' AND i.indisreplident))
              LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey)
             WHERE c.oid = ?::regclass
             GROUP BY c.relreplident""";

    private PublicationFilters() {
    }

    /**
     * A table as the publication lists it, with the condition wanted for it (null for every row).
     *
     * @param modified the tables (quoted) whose writes the filter is checked on: the table itself, or, for a root that
     *                 partitions are published through, each partition (PostgreSQL checks the replica identity of the
     *                 partition an UPDATE or DELETE modifies)
     */
    public record Listed(String published, String quoted, String condition, String key, List<String> modified) {
    }

    /**
     * The tables the publication lists for the selected tables, each with its filter: a
     * partition as itself, or through its root when partitions are published so (then all its
     * root's partitions must take the root's filter).
     *
     * @throws IllegalStateException when partitions published through their root have filters of their own
     */
    public static Map<String, Listed> listed(List<SelectedTable> selected, boolean viaRoot, RowFilters filters) {
        Map<String, Listed> wanted = new LinkedHashMap<>();
        for (SelectedTable t : selected) {
            if (!t.logged()) {
                continue;
            }
            boolean throughRoot = viaRoot && t.root() != null;
            String published = t.publishedName(viaRoot);
            String quoted = throughRoot ? Identifiers.quote(t.rootSchema(), t.rootName()) : Identifiers.quote(t.schema(), t.name());
            String key = throughRoot ? filters.keyFor(t.rootSchema(), t.rootName(), null) : filters.keyFor(t.schema(), t.name(), t.root());
            String leaf = Identifiers.quote(t.schema(), t.name());
            Listed earlier = wanted.get(published);
            List<String> modified = new ArrayList<>(earlier == null ? List.of() : earlier.modified());
            modified.add(leaf);
            wanted.put(published, new Listed(published, quoted, earlier == null ? t.rowFilter() : earlier.condition(), earlier == null ? key
                    : earlier.key(), modified));
            if (throughRoot && (earlier != null ? !java.util.Objects.equals(earlier.condition(), t.rowFilter())
                    : !java.util.Objects.equals(t.rowFilter(), filters.forTable(t.rootSchema(), t.rootName(), null)))) {
                throw new IllegalStateException("Partition " + t.qualifiedName() + " has a row filter of its own, but partitions are "
                        + "published through their root " + t.root() + " (publish.via.partition.root), which takes one filter for all: "
                        + "filter the root (table.filter." + t.root() + "), or publish partitions as themselves");
            }
        }
        return wanted;
    }

    /**
     * PostgreSQL's spelling of each filter, by published table; every problem (a filter it
     * refuses, a column outside the replica identity) goes to {@code problems}, naming the key.
     * Runs in a transaction that is rolled back: nothing stays.
     */
    public static Map<String, String> check(Connection c, Map<String, Listed> wanted, boolean viaRoot, List<String> problems)
            throws SQLException {
        Map<String, String> spelled = new LinkedHashMap<>();
        List<Listed> filtered = wanted.values().stream().filter(l -> l.condition() != null).toList();
        if (filtered.isEmpty()) {
            return spelled;
        }
        int version = c.getMetaData().getDatabaseMajorVersion();
        if (version < FIRST_VERSION) {
            Set<String> keys = new LinkedHashSet<>();
            filtered.forEach(l -> keys.add(l.key()));
            problems.add(String.join(", ", keys) + ": row filters need PostgreSQL " + FIRST_VERSION + " or later (they are set on the "
                    + "publication, so that changes are filtered as they are decoded); the source runs " + version
                    + ". Remove the key(s), or upgrade the source");
            return spelled;
        }
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            for (Listed l : filtered) {
                String name = "sluice_filter_check_" + UUID.randomUUID().toString().replace("-", "");
                Savepoint before = c.setSavepoint();
                try {
                    s.execute("CREATE PUBLICATION " + Identifiers.quote(name) + " FOR TABLE " + l.quoted() + " WHERE (" + l.condition()
                            + ")" + (viaRoot ? " WITH (publish_via_partition_root = true)" : ""));
                } catch (SQLException e) {
                    c.rollback(before);
                    problems.add(l.key() + " = " + l.condition() + ": PostgreSQL refuses it as a row filter of " + l.published() + " ("
                            + e.getMessage().replaceFirst("^ERROR: ", "").replace('\n', ' ') + "). A row filter may use the table's "
                            + "columns, operators and immutable built-in functions, no user-defined function");
                    continue;
                }
                spelled.put(l.published(), spelling(c, name));
                Set<String> outside = new LinkedHashSet<>();
                List<String> lacking = new ArrayList<>();
                for (String modified : l.modified()) {
                    List<String> columns = outsideIdentity(c, name, modified);
                    if (!columns.isEmpty()) {
                        outside.addAll(columns);
                        lacking.add(modified);
                    }
                }
                if (!lacking.isEmpty()) {
                    // One message per key, naming each table to change (a root's partitions are each checked by PostgreSQL).
                    problems.add(l.key() + " uses " + String.join(", ", outside) + ", not in the replica identity of "
                            + String.join(", ", lacking.stream().limit(10).toList()) + (lacking.size() > 10 ? ", ..." : "")
                            + ": with that filter PostgreSQL would refuse every UPDATE and DELETE on " + (lacking.size() == 1 ? "the table"
                            : "them") + ". Filter on the primary key's columns only, or run ALTER TABLE " + lacking.get(0)
                            + " REPLICA IDENTITY FULL" + (lacking.size() > 1 ? " (and the same for each)" : "")
                            + " (changes then carry the whole old row)");
                }
            }
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
        return spelled;
    }

    private static String spelling(Connection c, String publication) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT rowfilter FROM pg_catalog.pg_publication_tables WHERE pubname = ?")) {
            s.setString(1, publication);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** The columns the publication's filter uses that the table's replica identity does not hold. */
    private static List<String> outsideIdentity(Connection c, String publication, String quotedTable) throws SQLException {
        List<String> used = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(COLUMNS)) {
            s.setString(1, publication);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    used.add(rs.getString(1));
                }
            }
        }
        try (PreparedStatement s = c.prepareStatement(IDENTITY)) {
            s.setString(1, quotedTable);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next() || "f".equals(rs.getString(1))) {
                    return List.of();
                }
                List<String> identity = List.of((String[]) rs.getArray(2).getArray());
                return used.stream().filter(u -> !identity.contains(u)).toList();
            }
        }
    }

    /**
     * PostgreSQL's spelling of a condition on a table without making a publication (which takes
     * the table's owner): as a constraint of an empty temporary copy of the table, whose
     * expression PostgreSQL spells as it spells a publication's row filter. Null when it cannot
     * (the condition is not one a constraint may hold); nothing stays.
     */
    public static String spelledAlone(Connection c, Listed l) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        String copy = "sluice_filter_" + UUID.randomUUID().toString().replace("-", "");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TEMPORARY TABLE " + copy + " (LIKE " + l.quoted() + ")");
            s.execute("ALTER TABLE " + copy + " ADD CONSTRAINT spelled CHECK (" + l.condition() + ") NOT VALID");
            try (ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_get_expr(conbin, conrelid) FROM pg_catalog.pg_constraint "
                    + "WHERE conrelid = '" + copy + "'::regclass AND conname = 'spelled'")) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            return null;
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
    }

    /** The row filter of each table the publication lists, as PostgreSQL spells it (null for none); empty before 15. */
    public static Map<String, String> current(Connection c, String publication) throws SQLException {
        Map<String, String> filters = new LinkedHashMap<>();
        if (c.getMetaData().getDatabaseMajorVersion() < FIRST_VERSION) {
            return filters;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT schemaname, tablename, rowfilter FROM pg_catalog.pg_publication_tables "
                + "WHERE pubname = ?")) {
            s.setString(1, publication);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    filters.put(rs.getString(1) + "." + rs.getString(2), rs.getString(3));
                }
            }
        }
        return filters;
    }
}
