package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.selection.ColumnLists;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.naming.Identifiers;

/**
 * The column lists of the tables a publication lists ({@code FOR TABLE t (a, b)}, PostgreSQL 15
 * and later): each table's listed columns and its key's, in the table's order. Checked before
 * any is set: every listed column must exist, and a table whose replica identity is {@code FULL}
 * cannot have part of its columns listed (PostgreSQL would refuse its writers' UPDATEs and
 * DELETEs: the list must cover the identity).
 */
public final class PublicationColumns {

    private static final String COLUMNS = """
            SELECT a.attname, a.attgenerated <> '', c.relreplident,
                   a.attnum = ANY (coalesce((SELECT i.indkey::int2[] FROM pg_catalog.pg_index i
                                              WHERE i.indrelid = c.oid AND (i.indisprimary OR i.indisreplident)
                                              ORDER BY i.indisprimary DESC LIMIT 1), '{}'))
              FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
             WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped
             ORDER BY a.attnum""";

    private PublicationColumns() {
    }

    /**
     * The columns each published table with a list publishes, by published name; every problem
     * goes to {@code problems}, naming the key.
     *
     * @param streaming whether changes are streamed (then the server must take column lists)
     */
    public static Map<String, List<String>> wanted(Connection c, List<SelectedTable> selected, boolean viaRoot, ColumnLists lists,
                                                   boolean streaming, List<String> problems) throws SQLException {
        Map<String, List<String>> wanted = new LinkedHashMap<>();
        if (lists.isEmpty()) {
            return wanted;
        }
        int version = c.getMetaData().getDatabaseMajorVersion();
        if (streaming && version < PublicationFilters.FIRST_VERSION) {
            problems.add(String.join(", ", lists.keys().values()) + ": column lists need PostgreSQL " + PublicationFilters.FIRST_VERSION
                    + " or later (they are set on the publication); the source runs " + version + ". Remove the key(s), or upgrade");
            return wanted;
        }
        for (SelectedTable t : selected) {
            if (t.columns() == null) {
                continue;
            }
            // A partition's columns are its root's; published through the root or as itself, the list is the same.
            boolean partition = t.root() != null;
            String table = partition ? Identifiers.quote(t.rootSchema(), t.rootName()) : Identifiers.quote(t.schema(), t.name());
            String key = partition ? lists.keyFor(t.rootSchema(), t.rootName(), null) : lists.keyFor(t.schema(), t.name(), null);
            if (key == null) {
                problems.add(lists.keyFor(t.schema(), t.name(), t.root()) + " names partition " + t.qualifiedName() + ": a partition has "
                        + "the columns of its root " + t.root() + ", list them there (table.columns." + t.root() + ")");
                continue;
            }
            List<String> columns = new ArrayList<>();
            List<String> present = new ArrayList<>();
            boolean full = false;
            List<String> generated = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(COLUMNS)) {
                s.setString(1, table);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        String name = rs.getString(1);
                        present.add(name);
                        full = "f".equals(rs.getString(3));
                        if (t.columns().contains(name) || rs.getBoolean(4)) {
                            columns.add(name);
                            if (rs.getBoolean(2) && version < 18) {
                                generated.add(name);
                            }
                        }
                    }
                }
            }
            List<String> missing = t.columns().stream().filter(n -> !present.contains(n)).toList();
            if (!missing.isEmpty()) {
                problems.add(key + " names " + String.join(", ", missing) + ", not a column of " + table + " (its columns: "
                        + String.join(", ", present) + "). Unquoted names are folded to lower case, as PostgreSQL folds them");
                continue;
            }
            if (full && columns.size() < present.size()) {
                problems.add(key + " leaves out columns of " + table + ", whose replica identity is FULL: PostgreSQL would refuse every "
                        + "UPDATE and DELETE on it, as the list does not cover the whole row. List every column, or give the table a "
                        + "primary key and ALTER TABLE " + table + " REPLICA IDENTITY DEFAULT");
                continue;
            }
            if (streaming && !generated.isEmpty()) {
                problems.add(key + " lists generated column(s) " + String.join(", ", generated) + " of " + table + ": before PostgreSQL 18 "
                        + "they cannot be published (the target computes them): leave them out of the list");
                continue;
            }
            wanted.put(t.publishedName(viaRoot), columns);
        }
        return wanted;
    }

    /** The column list of each table the publication lists, by name; null for a table published whole. Empty before 15. */
    public static Map<String, List<String>> current(Connection c, String publication) throws SQLException {
        Map<String, List<String>> lists = new LinkedHashMap<>();
        if (c.getMetaData().getDatabaseMajorVersion() < PublicationFilters.FIRST_VERSION) {
            return lists;
        }
        try (PreparedStatement s = c.prepareStatement("""
                SELECT n.nspname, k.relname, CASE WHEN pr.prattrs IS NULL THEN NULL ELSE
                       array(SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = pr.prrelid
                              AND a.attnum = ANY (pr.prattrs) ORDER BY a.attnum)::text[] END
                  FROM pg_catalog.pg_publication p JOIN pg_catalog.pg_publication_rel pr ON pr.prpubid = p.oid
                  JOIN pg_catalog.pg_class k ON k.oid = pr.prrelid JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace
                 WHERE p.pubname = ?""")) {
            s.setString(1, publication);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    java.sql.Array a = rs.getArray(3);
                    lists.put(rs.getString(1) + "." + rs.getString(2), a == null ? null : List.of((String[]) a.getArray()));
                }
            }
        }
        return lists;
    }

    /** A column list as a publication's entry writes it after the table: {@code " (a, b)"}; empty for a whole table. */
    static String clause(List<String> columns) {
        if (columns == null) {
            return "";
        }
        List<String> quoted = columns.stream().map(Identifiers::quote).toList();
        return " (" + String.join(", ", quoted) + ")";
    }
}
