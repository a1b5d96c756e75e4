package io.sluice.connector.postgres.selection;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

import io.sluice.schemas.naming.Identifiers;

/**
 * Whether a row filter is a condition PostgreSQL can evaluate on its table: planned (not run) as
 * the snapshot's reads use it, so a misspelt column or a type mismatch is said before anything is
 * copied, naming the key.
 */
public final class RowFilterSyntax {

    private RowFilterSyntax() {
    }

    /** The problem with a table's filter, empty when PostgreSQL takes it. */
    public static Optional<String> problem(Connection c, SelectedTable table, RowFilters filters) {
        try (Statement s = c.createStatement()) {
            s.execute("EXPLAIN SELECT 1 FROM " + Identifiers.quote(table.schema(), table.name()) + " WHERE " + table.filterClause());
            return Optional.empty();
        } catch (SQLException e) {
            String key = filters.keyFor(table.schema(), table.name(), table.root());
            return Optional.of(key + " = " + table.rowFilter() + " is not a condition on " + table.qualifiedName() + ": "
                    + e.getMessage().replaceFirst("^ERROR: ", "").replace('\n', ' ')
                    + ". Write a SQL boolean expression over the table's columns, as in a WHERE clause");
        }
    }
}
