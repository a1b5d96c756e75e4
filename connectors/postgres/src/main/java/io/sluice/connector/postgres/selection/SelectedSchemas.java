package io.sluice.connector.postgres.selection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
 * now: what the snapshot's rows carry, and what transforms are checked against before a
 * pipeline starts.
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
            out.add(of(table, catalog, mapper, topicPrefix, connection));
        }
        return out;
    }

    /** Generated columns logical replication does not publish: all before 18, virtual ones on 18 (stored ones are, see Publication). */
    private static final String UNPUBLISHED = """
            SELECT a.attname FROM pg_catalog.pg_attribute a
             WHERE a.attrelid = (pg_catalog.quote_ident(?) || '.' || pg_catalog.quote_ident(?))::regclass
               AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated <> ''
               AND (pg_catalog.current_setting('server_version_num')::int < 180000 OR a.attgenerated = 'v')""";

    /**
     * One table's record shapes, from its columns in the catalog: those its changes carry, so
     * that snapshot rows and changes have one shape. A generated column PostgreSQL does not
     * publish (before 18 none is; on 18 virtual ones are not) is left out, but for a key column;
     * so are the columns a column list leaves out.
     */
    public static TableSchema of(SelectedTable table, TypeCatalog catalog, TypeMapper mapper, String topicPrefix, Connection connection)
            throws SQLException {
        List<String> unpublished = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(UNPUBLISHED)) {
            s.setString(1, table.schema());
            s.setString(2, table.name());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    unpublished.add(rs.getString(1));
                }
            }
        }
        List<String> key = catalog.keyColumns(table.schema(), table.name());
        List<ColumnMapping> columns = new ArrayList<>();
        for (PgColumn column : catalog.columns(table.schema(), table.name())) {
            if ((!unpublished.contains(column.name()) || key.contains(column.name())) && table.flows(column.name(), key)) {
                columns.add(mapper.map(column));
            }
        }
        return TableSchema.of(topicPrefix, table.schema(), table.name(), columns, key);
    }
}
