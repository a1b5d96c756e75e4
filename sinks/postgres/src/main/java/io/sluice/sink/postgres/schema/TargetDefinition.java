package io.sluice.sink.postgres.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sluice.schemas.ddl.ForeignKeys;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.Relations;

/**
 * A target table as its catalog describes it now: columns with their type and default as
 * {@code format_type} and {@code pg_get_expr} write them with only {@code pg_catalog} on the
 * search path (as the source's capture triggers write them, so the two compare as text), and
 * indexes with what follows the table's name in their definition; check and foreign-key
 * constraints by name with their definition (a foreign key's table quoted as an id); the partitioned table it is attached to (quoted),
 * or null. Read inside the transaction
 * that changes the table.
 */
public record TargetDefinition(boolean exists, Map<String, Column> columns, Map<String, Index> indexes, Map<String, String> constraints,
                               String partitionOf) {

    public record Column(String name, String type, boolean notNull, String defaultExpression, boolean generated) {
    }

    /** @param constraintName the constraint the index backs, null for none */
    public record Index(String name, String definition, String constraintName, String constraintDefinition) {
    }

    private static final String COLUMNS = """
            SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
                   pg_catalog.pg_get_expr(d.adbin, d.adrelid), a.attgenerated <> ''
              FROM pg_catalog.pg_attribute a
              LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
             WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped
             ORDER BY a.attnum""";

    /** Check and foreign-key constraints declared on the table itself, as the capture triggers list them. */
    private static final String CONSTRAINTS = """
            SELECT k.conname, pg_catalog.pg_get_constraintdef(k.oid), fn.nspname, f.relname,
                   pg_catalog.quote_ident(fn.nspname) || '.' || pg_catalog.quote_ident(f.relname)
              FROM pg_catalog.pg_constraint k
              LEFT JOIN pg_catalog.pg_class f ON f.oid = k.confrelid
              LEFT JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace
             WHERE k.conrelid = ?::regclass AND k.contype IN ('c', 'f') AND k.conislocal AND k.conparentid = 0""";

    private static final String PARENT = """
            SELECT pn.nspname, p.relname
              FROM pg_catalog.pg_inherits i
              JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid AND c.relispartition
              JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
              JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace
             WHERE i.inhrelid = ?::regclass""";

    private static final String INDEXES = """
            SELECT ic.relname,
                   substr(pg_catalog.pg_get_indexdef(i.indexrelid),
                          strpos(pg_catalog.pg_get_indexdef(i.indexrelid), ' ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname) || ' USING ')
                          + length(quote_ident(n.nspname) || '.' || quote_ident(c.relname)) + 2),
                   k.conname, pg_catalog.pg_get_constraintdef(k.oid)
              FROM pg_catalog.pg_index i
              JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
              JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
              LEFT JOIN pg_catalog.pg_constraint k ON k.conindid = i.indexrelid AND k.conrelid = c.oid AND k.contype IN ('p', 'u', 'x')
             WHERE i.indrelid = ?::regclass""";

    /** Reads the table {@code quoted} (a quoted, qualified name); sets the transaction's search path to pg_catalog. */
    public static TargetDefinition read(Connection c, String quoted) throws SQLException {
        try (var s = c.createStatement()) {
            s.execute("SET LOCAL search_path TO pg_catalog");
        }
        if (!Relations.exists(c, quoted)) {
            return new TargetDefinition(false, Map.of(), Map.of(), Map.of(), null);
        }
        Map<String, Column> columns = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(COLUMNS)) {
            s.setString(1, quoted);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.put(rs.getString(1), new Column(rs.getString(1), rs.getString(2), rs.getBoolean(3), rs.getString(4), rs.getBoolean(5)));
                }
            }
        }
        Map<String, Index> indexes = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(INDEXES)) {
            s.setString(1, quoted);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    indexes.put(rs.getString(1), new Index(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
                }
            }
        }
        Map<String, String> constraints = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement(CONSTRAINTS)) {
            s.setString(1, quoted);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String definition = rs.getString(2);
                    if (rs.getString(3) != null) {
                        definition = ForeignKeys.withReferencedTable(definition, rs.getString(5), Identifiers.quote(rs.getString(3), rs.getString(4)));
                    }
                    constraints.put(rs.getString(1), definition);
                }
            }
        }
        String parent = null;
        try (PreparedStatement s = c.prepareStatement(PARENT)) {
            s.setString(1, quoted);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next()) {
                    parent = Identifiers.quote(rs.getString(1), rs.getString(2));
                }
            }
        }
        return new TargetDefinition(true, columns, indexes, constraints, parent);
    }
}
