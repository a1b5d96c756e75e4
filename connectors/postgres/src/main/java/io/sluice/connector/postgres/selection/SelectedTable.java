package io.sluice.connector.postgres.selection;

import java.util.List;

/**
 * A table whose rows are read: an ordinary table or a leaf partition.
 *
 * @param schema the schema
 * @param name   the table
 * @param oid    its oid in the source database
 * @param root   for a partition, the partitioned table at the top of its tree ({@code schema.table}); else null
 * @param logged whether its changes are written to the WAL: an UNLOGGED table's are not, so logical
 *               decoding never sees them; the snapshot copies it, streaming cannot
 * @param rowFilter the SQL condition its rows must meet to flow ({@link RowFilters}); null for every row
 * @param columns   the columns that flow ({@link ColumnLists}; key columns flow with them, whether listed or not); null for all
 * @param subset    the condition a staging subset adds for the snapshot's read ({@link SubsetRoots}); null when it decides nothing
 */
public record SelectedTable(String schema, String name, long oid, String root, boolean logged, String rowFilter, List<String> columns,
                            String subset) {

    public SelectedTable(String schema, String name, long oid, String root, boolean logged, String rowFilter, List<String> columns) {
        this(schema, name, oid, root, logged, rowFilter, columns, null);
    }

    public SelectedTable(String schema, String name, long oid, String root, boolean logged) {
        this(schema, name, oid, root, logged, null, null);
    }

    public SelectedTable(String schema, String name, long oid, String root, boolean logged, String rowFilter) {
        this(schema, name, oid, root, logged, rowFilter, null);
    }

    /** Whether a column flows: listed, or a key column ({@code key}), or every column when there is no list. */
    public boolean flows(String column, List<String> key) {
        return columns == null || columns.contains(column) || key.contains(column);
    }

    /** The row filter (and the subset's condition) as a clause to add to a query's WHERE with AND; empty when every row flows. */
    public String filterClause() {
        String filter = rowFilter == null ? "" : "(" + rowFilter + ")";
        return subset == null ? filter : filter.isEmpty() ? "(" + subset + ")" : filter + " AND (" + subset + ")";
    }

    /** The same table with the subset's condition for its snapshot read. */
    public SelectedTable withSubset(String condition) {
        return new SelectedTable(schema, name, oid, root, logged, rowFilter, columns, condition);
    }

    public String qualifiedName() {
        return schema + "." + name;
    }

    /** The root's schema; null when the table is not a partition. */
    public String rootSchema() {
        return root == null ? null : root.substring(0, root.indexOf('.'));
    }

    /** The root's name; null when the table is not a partition. */
    public String rootName() {
        return root == null ? null : root.substring(root.indexOf('.') + 1);
    }

    /** What the sinks know the table's rows as: its root, when partitions are published through it; else itself. */
    public String publishedName(boolean viaRoot) {
        return viaRoot && root != null ? root : qualifiedName();
    }

    /** The names of the tables that are not WAL-logged (UNLOGGED), which only the snapshot can copy. */
    public static List<String> unlogged(List<SelectedTable> tables) {
        return tables.stream().filter(t -> !t.logged()).map(SelectedTable::qualifiedName).toList();
    }
}
