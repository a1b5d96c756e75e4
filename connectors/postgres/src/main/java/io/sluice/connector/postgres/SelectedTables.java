package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import io.sluice.connector.postgres.selection.SelectedTable;

/** The tables a pipeline selects on its source, as the command sees them (for {@code sluice verify}). */
public final class SelectedTables {

    /**
     * A selected table.
     *
     * @param rowFilter its row filter ({@code table.filter.*}), or null
     * @param columns   its column list ({@code table.columns.*}), or null for every column
     */
    public record Table(String schema, String name, String rowFilter, List<String> columns) {
    }

    private SelectedTables() {
    }

    /** The tables the configuration selects, as the source has them now. */
    public static List<Table> of(PostgresSourceConfig config, Connection source) throws SQLException {
        return config.tableSelector().select(source, source.getCatalog()).stream()
                .map((SelectedTable t) -> new Table(t.schema(), t.name(), t.rowFilter(), t.columns())).toList();
    }
}
