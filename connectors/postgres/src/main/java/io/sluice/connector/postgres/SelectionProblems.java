package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import io.sluice.connector.postgres.replication.Publication;
import io.sluice.connector.postgres.replication.PublicationColumns;
import io.sluice.connector.postgres.replication.PublicationFilters;
import io.sluice.connector.postgres.selection.RowFilterSyntax;
import io.sluice.connector.postgres.selection.SelectedTable;

/**
 * What PostgreSQL would refuse of a pipeline's row filters and column lists, for {@code validate}:
 * each filter planned on its table, each list against the table's columns and replica identity,
 * and, when changes stream, each filter tried on a publication made and rolled back. With a
 * publication the user keeps, only whether the server takes them at all.
 */
final class SelectionProblems {

    private SelectionProblems() {
    }

    /**
     * What is wrong with a staging subset: a key that matches no selected table, a condition that
     * is none on its table (planned, not run). In a transaction rolled back after. Whether its
     * changes can be streamed is the target's to say: the PostgreSQL sink judges them in source
     * order (see {@code SubsetRoles}).
     */
    private static java.util.Optional<String> subsetProblem(Connection c, PostgresSourceConfig config, List<SelectedTable> tables)
            throws SQLException {
        io.sluice.connector.postgres.selection.SubsetRoots roots = config.subsetRoots();
        if (roots.isEmpty()) {
            return java.util.Optional.empty();
        }
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            return io.sluice.connector.postgres.subset.SubsetSelection.problem(c, tables, roots);
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
    }

    static List<String> of(Connection c, PostgresSourceConfig config, List<SelectedTable> tables) throws SQLException {
        List<String> problems = new ArrayList<>();
        boolean streaming = config.snapshotMode() != PostgresSourceConfig.SnapshotMode.INITIAL_ONLY;
        PublicationColumns.wanted(c, tables, config.viaPartitionRoot(), config.columnLists(), streaming, problems);
        for (SelectedTable t : tables) {
            if (t.rowFilter() != null) {
                RowFilterSyntax.problem(c, t, config.rowFilters()).ifPresent(problems::add);
            }
        }
        subsetProblem(c, config, tables).ifPresent(problems::add);
        boolean anyKey = !config.rowFilters().isEmpty() || !config.columnLists().isEmpty();
        if (!problems.isEmpty() || !streaming || !anyKey) {
            return problems; // a snapshot alone filters its reads, on any version
        }
        if (config.publicationMode() == Publication.Mode.ALL_TABLES) {
            problems.add("Row filters (table.filter.*) and column lists (table.columns.*) are set on the publication's tables, and "
                    + "publication.autocreate.mode=all_tables makes it FOR ALL TABLES, which takes none: set "
                    + "publication.autocreate.mode=filtered, or remove the keys");
            return problems;
        }
        try {
            var listed = PublicationFilters.listed(tables, config.viaPartitionRoot(), config.rowFilters());
            if (config.publicationMode() != Publication.Mode.DISABLED
                    || c.getMetaData().getDatabaseMajorVersion() < PublicationFilters.FIRST_VERSION) {
                PublicationFilters.check(c, listed, config.viaPartitionRoot(), problems);
            }
        } catch (IllegalStateException e) {
            problems.add(e.getMessage());
        }
        return problems;
    }
}
