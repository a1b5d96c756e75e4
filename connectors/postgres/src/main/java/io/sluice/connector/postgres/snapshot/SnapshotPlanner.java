package io.sluice.connector.postgres.snapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.sluice.connector.postgres.selection.SelectedSchemas;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.types.TypeCatalog;

/**
 * Plans the snapshot of each table: its record shapes and its split into page ranges of about
 * {@code batchBytes}. Pages per range come from the table's page count and its whole size
 * (heap, TOAST and maps), so a range reads about the same bytes whether rows are narrow or hold
 * large TOASTed values. Runs inside the snapshot transaction, so the catalog it reads is the one
 * the rows belong to.
 *
 * <p>It also estimates how much work a table's indexes are to build on the target, relative to
 * copying its rows, from their access methods. Measured on PostgreSQL 15: a btree costs about a
 * third of copying its table, a GIN index on jsonb about twice, a BRIN index next to nothing.
 */
public final class SnapshotPlanner {

    private static final String SIZES = """
            SELECT pg_catalog.pg_relation_size(c.oid) / current_setting('block_size')::bigint,
                   pg_catalog.pg_table_size(c.oid),
                   GREATEST(c.reltuples, 0)::bigint,
                   (SELECT COALESCE(sum(CASE a.amname WHEN 'btree' THEN 35 WHEN 'hash' THEN 35 WHEN 'brin' THEN 5
                                                      WHEN 'gin' THEN 200 ELSE 100 END), 0)
                      FROM pg_catalog.pg_index x
                      JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
                      JOIN pg_catalog.pg_am a ON a.oid = i.relam
                     WHERE x.indrelid = c.oid)
              FROM pg_catalog.pg_class c WHERE c.oid = ?""";

    private final String topicPrefix;
    private final TypeMapper mapper;
    private final long batchBytes;

    private final boolean viaRoot;

    /** @param viaRoot whether a partition's records take its root's name and shape */
    public SnapshotPlanner(String topicPrefix, TypeMapper mapper, long batchBytes, boolean viaRoot) {
        this.topicPrefix = topicPrefix;
        this.mapper = mapper;
        this.batchBytes = batchBytes;
        this.viaRoot = viaRoot;
    }

    /**
     * @param stored each table's stored source offset (null when none): a resumed snapshot keeps
     *               the split it started with, so finished ranges still mean the same pages
     */
    public List<TablePlan> plan(Connection snapshot, List<SelectedTable> tables, Function<SelectedTable, Map<String, Object>> stored)
            throws SQLException {
        TypeCatalog catalog = new TypeCatalog(snapshot);
        List<TablePlan> plans = new ArrayList<>();
        Map<String, TableSchema> roots = new java.util.HashMap<>();
        try (PreparedStatement sizes = snapshot.prepareStatement(SIZES)) {
            for (SelectedTable table : tables) {
                TableSchema schema = viaRoot && table.root() != null
                        ? roots.computeIfAbsent(table.root(), r -> rootSchema(table, catalog, snapshot))
                        : SelectedSchemas.of(table, catalog, mapper, topicPrefix, snapshot);
                sizes.setLong(1, table.oid());
                long pages;
                long bytes;
                long rows;
                int indexWork;
                try (ResultSet rs = sizes.executeQuery()) {
                    rs.next();
                    pages = rs.getLong(1);
                    bytes = rs.getLong(2);
                    rows = rs.getLong(3);
                    indexWork = rs.getInt(4);
                }
                Map<String, Object> offset = stored.apply(table);
                long pagesPerRange;
                int rangeCount;
                if (offset != null && offset.get(TableProgress.PAGES_PER_RANGE) instanceof Number p
                        && offset.get(TableProgress.RANGES) instanceof Number r) {
                    pagesPerRange = p.longValue();
                    rangeCount = r.intValue();
                } else if (table.subset() != null) {
                    // One read: each read of a subset's table runs the subset's whole query, and takes few rows.
                    pagesPerRange = Math.max(1, pages);
                    rangeCount = 1;
                } else {
                    pagesPerRange = TablePlan.pagesPerRange(pages, bytes, batchBytes);
                    rangeCount = TablePlan.rangeCount(pages, pagesPerRange);
                }
                plans.add(new TablePlan(table, schema, pages, bytes, rows, pagesPerRange, rangeCount, indexWork));
            }
        }
        return plans;
    }

    /** The record shapes of a partition's root, which all its partitions' rows take. */
    private TableSchema rootSchema(SelectedTable partition, TypeCatalog catalog, Connection snapshot) {
        SelectedTable root = new SelectedTable(partition.rootSchema(), partition.rootName(), 0, null, partition.logged(),
                partition.rowFilter(), partition.columns());
        try {
            return SelectedSchemas.of(root, catalog, mapper, topicPrefix, snapshot);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the columns of " + partition.root() + ", the root of " + partition.qualifiedName()
                    + ": " + e.getMessage(), e);
        }
    }
}
