package io.sluice.connector.postgres.selection;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * Chooses the tables to read: ordinary tables and leaf partitions that an include pattern
 * matches (directly, or through a partitioned ancestor) and no exclude pattern matches. System
 * schemas are never chosen, nor the DDL capture's schema {@code sluice_capture}. Partitioned tables hold no rows themselves; their leaves are read.
 */
public final class TableSelector {

    /** Ordinary tables and leaf partitions, each with its partitioned ancestors from the nearest up to the root. */
    private static final String CANDIDATES = """
            SELECT n.nspname, c.relname, c.oid, coalesce(a.schemas, '{}'), coalesce(a.names, '{}'),
                   pg_catalog.has_table_privilege(c.oid, 'SELECT'), current_user, c.relpersistence = 'p'
              FROM pg_catalog.pg_class c
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
              LEFT JOIN LATERAL (
                    SELECT array_agg(an.nspname ORDER BY p.depth) AS schemas, array_agg(ac.relname ORDER BY p.depth) AS names
                      FROM pg_catalog.pg_partition_ancestors(c.oid) WITH ORDINALITY AS p(relid, depth)
                      JOIN pg_catalog.pg_class ac ON ac.oid = p.relid
                      JOIN pg_catalog.pg_namespace an ON an.oid = ac.relnamespace
                     WHERE p.relid <> c.oid) a ON true
             WHERE c.relkind = 'r'
               AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'sluice_capture', 'sluice_signals')
               AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'
             ORDER BY n.nspname, c.relname""";

    private final List<TablePattern> includes;
    private final List<TablePattern> excludes;
    private final RowFilters filters;
    private final ColumnLists columns;

    public TableSelector(List<TablePattern> includes, List<TablePattern> excludes) {
        this(includes, excludes, RowFilters.NONE, ColumnLists.NONE);
    }

    /**
     * @param filters the row filters the selected tables take
     * @param columns the column lists they take
     */
    public TableSelector(List<TablePattern> includes, List<TablePattern> excludes, RowFilters filters, ColumnLists columns) {
        this.includes = List.copyOf(includes);
        this.excludes = List.copyOf(excludes);
        this.filters = filters;
        this.columns = columns;
    }

    /** The column lists the selected tables take. */
    public ColumnLists columns() {
        return columns;
    }

    /** A table's column list, known by name and partition ancestors ({schema, name}, nearest first); null for every column. */
    public List<String> columnsOf(String schema, String name, List<String[]> ancestors) {
        String root = ancestors.isEmpty() ? null : ancestors.get(ancestors.size() - 1)[0] + "." + ancestors.get(ancestors.size() - 1)[1];
        try {
            return columns.forTable(schema, name, root);
        } catch (IllegalArgumentException e) {
            return null; // two keys: refused at start
        }
    }

    /** The row filters the selected tables take. */
    public RowFilters filters() {
        return filters;
    }

    /** The selected tables, ordered by schema and name; fails when none is selected. */
    public List<SelectedTable> select(Connection connection, String database) throws SQLException {
        List<SelectedTable> selected = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        String user = null;
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(CANDIDATES)) {
            while (rs.next()) {
                String schema = rs.getString(1);
                String name = rs.getString(2);
                String[] ancestorSchemas = (String[]) rs.getArray(4).getArray();
                String[] ancestorNames = (String[]) rs.getArray(5).getArray();
                seen.add(schema + "." + name);
                boolean included = matches(includes, schema, name, ancestorSchemas, ancestorNames);
                boolean excluded = matches(excludes, schema, name, ancestorSchemas, ancestorNames);
                user = rs.getString(7);
                if (included && !excluded && !rs.getBoolean(6)) {
                    unreadable.add(schema + "." + name);
                }
                if (included && !excluded) {
                    int top = ancestorNames.length - 1;
                    String root = top < 0 ? null : ancestorSchemas[top] + "." + ancestorNames[top];
                    String filter;
                    List<String> listed;
                    try {
                        filter = filters.forTable(schema, name, root);
                        listed = columns.forTable(schema, name, root);
                    } catch (IllegalArgumentException e) {
                        throw new ConnectException(e.getMessage());
                    }
                    selected.add(new SelectedTable(schema, name, rs.getLong(3), root, rs.getBoolean(8), filter, listed));
                }
            }
        }
        if (!unreadable.isEmpty()) {
            String list = String.join(", ", unreadable.subList(0, Math.min(10, unreadable.size()))) + (unreadable.size() > 10 ? ", ..." : "");
            throw new ConnectException("User " + user + " lacks SELECT on " + unreadable.size() + " selected table(s) of " + database + ": "
                    + list + ". Grant it (GRANT SELECT ON " + unreadable.get(0) + " TO " + user + "), or leave them out with "
                    + "table.exclude.list");
        }
        if (selected.isEmpty()) {
            throw new ConnectException("No table of database " + database + " matches table.include.list " + includes
                    + (excludes.isEmpty() ? "" : " without matching table.exclude.list " + excludes)
                    + (seen.isEmpty() ? "; the database has no tables the user can see"
                    : "; its tables include " + String.join(", ", seen.subList(0, Math.min(10, seen.size())))
                    + (seen.size() > 10 ? ", ..." : "") + ". Patterns are schema.table with * and ?, case-sensitive"));
        }
        List<String> unmatched = new ArrayList<>();
        Map<TablePattern, String> keys = new java.util.LinkedHashMap<>(filters.keys());
        keys.putAll(columns.keys()); // patterns are told apart by identity: a table named in both keeps both keys
        for (Map.Entry<TablePattern, String> key : keys.entrySet()) {
            if (selected.stream().noneMatch(t -> key.getKey().matches(t.schema(), t.name()) || t.root() != null
                    && key.getKey().matches(t.rootSchema(), t.rootName()))) {
                unmatched.add(key.getValue());
            }
        }
        if (!unmatched.isEmpty()) {
            throw new ConnectException(String.join(", ", unmatched) + (unmatched.size() == 1 ? " matches" : " match")
                    + " no selected table of " + database + " (selected: "
                    + String.join(", ", selected.stream().limit(10).map(SelectedTable::qualifiedName).toList())
                    + (selected.size() > 10 ? ", ..." : "") + "): name a selected table, or add it to table.include.list");
        }
        return selected;
    }

    /**
     * Whether a table of this name, with these partition ancestors ({schema, name}, nearest
     * first), is selected: for tables known only by name, as DDL events name them.
     */
    public boolean selects(String schema, String name, List<String[]> ancestors) {
        if (schema.equals("sluice_capture") || schema.equals("sluice_signals") || schema.equals("pg_catalog")
                || schema.equals("information_schema")) {
            return false;
        }
        String[] schemas = ancestors.stream().map(a -> a[0]).toArray(String[]::new);
        String[] names = ancestors.stream().map(a -> a[1]).toArray(String[]::new);
        return matches(includes, schema, name, schemas, names) && !matches(excludes, schema, name, schemas, names);
    }

    public List<TablePattern> includes() {
        return includes;
    }

    public List<TablePattern> excludes() {
        return excludes;
    }

    private static boolean matches(List<TablePattern> patterns, String schema, String name, String[] ancestorSchemas,
                                   String[] ancestorNames) {
        for (TablePattern p : patterns) {
            if (p.matches(schema, name)) {
                return true;
            }
            for (int i = 0; i < ancestorSchemas.length; i++) {
                if (p.matches(ancestorSchemas[i], ancestorNames[i])) {
                    return true;
                }
            }
        }
        return false;
    }
}
