package io.sluice.connector.postgres.schema;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.ddl.DumpScript;
import io.sluice.schemas.naming.Identifiers;

/**
 * The columns column lists leave out, taken out of the snapshot's schema: the pre-data ends
 * with their tables' {@code DROP COLUMN}s (on a partitioned table's root, which takes them from
 * its partitions), and the post-data loses what depends on them (an index, a key, a check, a
 * foreign key into them, a trigger, a policy, extended statistics), found as PostgreSQL records
 * it ({@code pg_depend}). So a PostgreSQL target's tables get the listed columns only, built
 * with every index and constraint that holds on them.
 */
final class LeftOutColumns {

    private static final String COLUMNS = """
            SELECT a.attname, a.attnum
              FROM pg_catalog.pg_attribute a
             WHERE a.attrelid = ?::oid AND a.attnum > 0 AND NOT a.attisdropped
             ORDER BY a.attnum""";

    /** What depends on columns, named as pg_dump names it in its entries: {schema, name}. */
    private static final String DEPENDENTS = """
            SELECT n.nspname, i.relname
              FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class i ON i.oid = d.objid
              JOIN pg_catalog.pg_namespace n ON n.oid = i.relnamespace
             WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.refclassid = 'pg_catalog.pg_class'::regclass
               AND d.refobjid = ?::oid AND d.refobjsubid = ANY (?)
            UNION
            SELECT n.nspname, t.relname || ' ' || c.conname
              FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_constraint c ON c.oid = d.objid
              JOIN pg_catalog.pg_class t ON t.oid = c.conrelid
              JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
             WHERE d.classid = 'pg_catalog.pg_constraint'::regclass AND d.refclassid = 'pg_catalog.pg_class'::regclass
               AND d.refobjid = ?::oid AND d.refobjsubid = ANY (?)
            UNION
            SELECT n.nspname, t.relname || ' ' || g.tgname
              FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_trigger g ON g.oid = d.objid
              JOIN pg_catalog.pg_class t ON t.oid = g.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
             WHERE d.classid = 'pg_catalog.pg_trigger'::regclass AND d.refclassid = 'pg_catalog.pg_class'::regclass
               AND d.refobjid = ?::oid AND d.refobjsubid = ANY (?)
            UNION
            SELECT n.nspname, t.relname || ' ' || p.polname
              FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_policy p ON p.oid = d.objid
              JOIN pg_catalog.pg_class t ON t.oid = p.polrelid JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
             WHERE d.classid = 'pg_catalog.pg_policy'::regclass AND d.refclassid = 'pg_catalog.pg_class'::regclass
               AND d.refobjid = ?::oid AND d.refobjsubid = ANY (?)
            UNION
            SELECT n.nspname, x.stxname
              FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_statistic_ext x ON x.oid = d.objid
              JOIN pg_catalog.pg_namespace n ON n.oid = x.stxnamespace
             WHERE d.classid = 'pg_catalog.pg_statistic_ext'::regclass AND d.refclassid = 'pg_catalog.pg_class'::regclass
               AND d.refobjid = ?::oid AND d.refobjsubid = ANY (?)""";

    private final Map<String, List<String>> dropped;
    private final Set<String> dependents;

    private LeftOutColumns(Map<String, List<String>> dropped, Set<String> dependents) {
        this.dropped = dropped;
        this.dependents = dependents;
    }

    /**
     * What the selected tables' column lists leave out, read in the snapshot.
     *
     * @param key each table's key columns, which flow whether listed or not
     */
    static LeftOutColumns of(Connection inSnapshot, List<SelectedTable> selected, java.util.function.Function<SelectedTable, List<String>> key)
            throws SQLException {
        Map<String, List<String>> dropped = new LinkedHashMap<>();
        Set<String> dependents = new HashSet<>();
        Set<String> done = new HashSet<>();
        for (SelectedTable t : selected) {
            if (t.columns() == null) {
                continue;
            }
            // A partition's columns are its root's: they are dropped there, for all its partitions at once.
            String table = t.root() != null ? quoteQualified(t.root()) : Identifiers.quote(t.schema(), t.name());
            if (!done.add(table)) {
                continue;
            }
            long oid = oidOf(inSnapshot, table);
            List<String> names = new ArrayList<>();
            List<Integer> numbers = new ArrayList<>();
            List<String> keyColumns = key.apply(t);
            try (PreparedStatement s = inSnapshot.prepareStatement(COLUMNS)) {
                s.setLong(1, oid);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        if (!t.flows(rs.getString(1), keyColumns)) {
                            names.add(rs.getString(1));
                            numbers.add(rs.getInt(2));
                        }
                    }
                }
            }
            if (names.isEmpty()) {
                continue;
            }
            dropped.put(table, names);
            Array attnums = inSnapshot.createArrayOf("int2", numbers.toArray());
            try (PreparedStatement s = inSnapshot.prepareStatement(DEPENDENTS)) {
                for (int i = 0; i < 5; i++) {
                    s.setLong(2 * i + 1, oid);
                    s.setArray(2 * i + 2, attnums);
                }
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        dependents.add(rs.getString(1) + "\0" + rs.getString(2));
                    }
                }
            }
        }
        return new LeftOutColumns(dropped, dependents);
    }

    boolean isEmpty() {
        return dropped.isEmpty();
    }

    /** The pre-data, ending with the columns' drops. */
    String preData(String preData) {
        if (dropped.isEmpty()) {
            return preData;
        }
        StringBuilder s = new StringBuilder(preData == null ? "" : preData).append("\n-- Columns the column lists (table.columns.*) leave out\n");
        // CASCADE: a view over a column left out cannot be made on the copy either.
        dropped.forEach((table, columns) -> columns.forEach(c -> s.append("ALTER TABLE ").append(table).append(" DROP COLUMN ")
                .append(Identifiers.quote(c)).append(" CASCADE;\n")));
        return s.toString();
    }

    /** The post-data without what depends on a column left out. */
    String postData(String postData) {
        if (dependents.isEmpty() || postData == null) {
            return postData;
        }
        return DumpScript.parse(postData).filter(e -> !dependents.contains(e.schema() + "\0" + e.name())).render();
    }

    private static long oidOf(Connection c, String quotedTable) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT ?::regclass::oid::bigint")) {
            s.setString(1, quotedTable);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String quoteQualified(String schemaDotTable) {
        int dot = schemaDotTable.indexOf('.');
        return Identifiers.quote(schemaDotTable.substring(0, dot), schemaDotTable.substring(dot + 1));
    }
}
