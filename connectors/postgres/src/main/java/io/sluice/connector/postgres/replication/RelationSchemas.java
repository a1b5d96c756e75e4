package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.TypeCatalog;

/**
 * Turns pgoutput Relation messages into record shapes. The message gives names, type oids,
 * modifiers and replica-identity flags; nullability, generated columns and the declared type
 * text come from the catalog as it is now (a column the catalog no longer has is taken as
 * nullable). The record key is the table's primary key, else its replica identity index, as in
 * the snapshot, so snapshot and stream events of a row share one key.
 */
final class RelationSchemas {

    private static final String COLUMNS = """
            SELECT a.attname, a.attnotnull, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attndims
              FROM pg_catalog.pg_attribute a
             WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped""";

    private final Connection catalog;
    private final String topicPrefix;
    private final TypeMapper mapper;
    private final BiPredicate<String, String> selected;

    /**
     * @param catalog  a normal (not replication) connection to the source database
     * @param selected whether a table (schema, name) is in the selection
     */
    RelationSchemas(Connection catalog, String topicPrefix, TypeMapper mapper, BiPredicate<String, String> selected) {
        this.catalog = catalog;
        this.topicPrefix = topicPrefix;
        this.mapper = mapper;
        this.selected = selected;
    }

    StreamTable resolve(PgOutputMessage.Relation relation) {
        String schema = relation.namespace().isEmpty() ? "pg_catalog" : relation.namespace();
        if (!selected.test(schema, relation.name())) {
            return new StreamTable(relation, false, null, List.of());
        }
        String table = schema + "." + relation.name();
        try {
            Map<String, Object[]> known = new HashMap<>();
            try (PreparedStatement s = catalog.prepareStatement(COLUMNS)) {
                s.setLong(1, Integer.toUnsignedLong(relation.oid()));
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        known.put(rs.getString(1), new Object[] {rs.getBoolean(2), rs.getString(3), rs.getInt(4)});
                    }
                }
            }
            // A new catalog view per Relation message: the message follows DDL, which may have changed types too.
            TypeCatalog types = new TypeCatalog(catalog);
            List<ColumnMapping> columns = new ArrayList<>();
            List<String> messageKey = new ArrayList<>();
            for (PgOutputMessage.Column c : relation.columns()) {
                Object[] k = known.get(c.name());
                var type = types.type(c.typeOid());
                boolean nullable = k == null || !(Boolean) k[0];
                String declared = k == null ? type.displayName() : (String) k[1];
                int dimensions = k == null ? 0 : (Integer) k[2];
                columns.add(mapper.map(new PgColumn(table, c.name(), type, c.typeModifier(), dimensions, nullable, declared, false)));
                if (c.key()) {
                    messageKey.add(c.name());
                }
            }
            List<String> key = keyColumns(types, schema, relation.name(), messageKey, columns);
            return new StreamTable(relation, true, TableSchema.of(topicPrefix, schema, relation.name(), columns, key), columns);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the catalog entry of " + table + " for its change events: " + e.getMessage(), e);
        }
    }

    private static List<String> keyColumns(TypeCatalog types, String schema, String table, List<String> messageKey,
                                           List<ColumnMapping> columns) {
        List<String> key;
        try {
            key = types.keyColumns(schema, table);
        } catch (RuntimeException e) {
            // The table is gone from the catalog (dropped after this change): its replica identity is all we know.
            key = messageKey;
        }
        List<String> names = columns.stream().map(ColumnMapping::name).toList();
        return names.containsAll(key) ? key : List.of();
    }
}
