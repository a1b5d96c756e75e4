package io.sluice.connector.postgres.selection;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.MappingOptions;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.TypeCatalog;

/**
 * The record shapes the source would give its selected tables, read from the catalog as it is
 * now: what transforms are checked against before a pipeline starts.
 */
public final class SelectedSchemas {

    private SelectedSchemas() {
    }

    /** The record shapes of the tables the selector picks in {@code database}, topics named under {@code topicPrefix}. */
    public static List<TableSchema> read(Connection connection, TableSelector selector, String database, MappingOptions options,
                                         String topicPrefix) throws SQLException {
        TypeCatalog catalog = new TypeCatalog(connection);
        TypeMapper mapper = new TypeMapper(options);
        List<TableSchema> out = new ArrayList<>();
        for (SelectedTable table : selector.select(connection, database)) {
            out.add(of(table, catalog, mapper, topicPrefix));
        }
        return out;
    }

    /** One table's record shapes, from its columns in the catalog. */
    public static TableSchema of(SelectedTable table, TypeCatalog catalog, TypeMapper mapper, String topicPrefix) throws SQLException {
        List<ColumnMapping> columns = new ArrayList<>();
        for (PgColumn column : catalog.columns(table.schema(), table.name())) {
            columns.add(mapper.map(column));
        }
        return TableSchema.of(topicPrefix, table.schema(), table.name(), columns, catalog.keyColumns(table.schema(), table.name()));
    }
}
