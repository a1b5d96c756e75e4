package io.sluice.connector.postgres.selection;

/**
 * A table whose rows are read: an ordinary table or a leaf partition.
 *
 * @param schema the schema
 * @param name   the table
 * @param oid    its oid in the source database
 * @param root   for a partition, the partitioned table at the top of its tree ({@code schema.table}); else null
 */
public record SelectedTable(String schema, String name, long oid, String root) {

    public String qualifiedName() {
        return schema + "." + name;
    }
}
