package io.sluice.connector.postgres.subset;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import io.sluice.schemas.postgres.ConstraintColumns;

/**
 * A foreign key between two tables: the child's columns reference the parent's (one of its
 * unique keys), in order, with each column's type as {@code format_type} spells it.
 *
 * @param child  the referencing table, quoted and qualified
 * @param parent the referenced table, quoted and qualified (the child itself for a self-reference)
 */
public record ForeignKey(String name, String child, List<String> childColumns, List<String> childTypes, String parent,
                         List<String> parentColumns, List<String> parentTypes) {

    private static final String AMONG = "SELECT c.conname, " + ConstraintColumns.quotedName("cn", "cc") + ", "
            + ConstraintColumns.names("conkey", "conrelid") + ", " + ConstraintColumns.types("conkey", "conrelid") + ", "
            + ConstraintColumns.quotedName("pn", "pc") + ", " + ConstraintColumns.names("confkey", "confrelid") + ", "
            + ConstraintColumns.types("confkey", "confrelid")
            + " FROM pg_catalog.pg_constraint c"
            + " JOIN pg_catalog.pg_class cc ON cc.oid = c.conrelid JOIN pg_catalog.pg_namespace cn ON cn.oid = cc.relnamespace"
            + " JOIN pg_catalog.pg_class pc ON pc.oid = c.confrelid JOIN pg_catalog.pg_namespace pn ON pn.oid = pc.relnamespace"
            + " WHERE c.contype = 'f' AND c.conparentid = 0 AND c.conrelid = ANY (?) AND c.confrelid = ANY (?)"
            + " ORDER BY 2, 1";

    /**
     * The foreign keys whose two tables are both among {@code tables} (oids), each once: a key a
     * partitioned table declares, not its copies on the partitions.
     */
    public static List<ForeignKey> among(Connection c, Collection<Long> tables) throws SQLException {
        List<ForeignKey> keys = new ArrayList<>();
        Array oids = c.createArrayOf("oid", tables.toArray());
        try (PreparedStatement s = c.prepareStatement(AMONG)) {
            s.setArray(1, oids);
            s.setArray(2, oids);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    keys.add(new ForeignKey(rs.getString(1), rs.getString(2), strings(rs, 3), strings(rs, 4), rs.getString(5), strings(rs, 6),
                            strings(rs, 7)));
                }
            }
        }
        return keys;
    }

    /** Per table (quoted, qualified), the columns the keys use on it, as child or as parent, in the keys' order. */
    static java.util.Map<String, java.util.Set<String>> columnsByTable(List<ForeignKey> keys) {
        java.util.Map<String, java.util.Set<String>> columns = new java.util.LinkedHashMap<>();
        for (ForeignKey k : keys) {
            columns.computeIfAbsent(k.child(), t -> new java.util.LinkedHashSet<>()).addAll(k.childColumns());
            columns.computeIfAbsent(k.parent(), t -> new java.util.LinkedHashSet<>()).addAll(k.parentColumns());
        }
        return columns;
    }

    private static List<String> strings(ResultSet rs, int column) throws SQLException {
        return List.copyOf(Arrays.asList((String[]) rs.getArray(column).getArray()));
    }
}
