package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.replication.Publication;
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

    /**
     * The tables the configuration selects, as the source has them now and as the stream names
     * them: a partitioned table once, as its root, when partitions are published through it.
     */
    public static List<Table> of(PostgresSourceConfig config, Connection source) throws SQLException {
        boolean viaRoot = Publication.viaRootInUse(source, config.publicationName(), config.publicationMode(), config.viaPartitionRoot(),
                true);
        Map<String, Table> published = new LinkedHashMap<>();
        for (SelectedTable t : config.tableSelector().select(source, source.getCatalog())) {
            boolean asRoot = viaRoot && t.root() != null;
            String schema = asRoot ? t.rootSchema() : t.schema();
            String name = asRoot ? t.rootName() : t.name();
            published.putIfAbsent(schema + "." + name, new Table(schema, name, t.rowFilter(), t.columns()));
        }
        return List.copyOf(published.values());
    }
}
