package io.sluice.runtime.verify;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.postgres.DeclaredColumns;

/**
 * A table's columns' types as {@code format_type} spells them (with their modifiers, so a value's
 * text cast to one reads as the column would hold it), and whether each is collatable.
 */
record ColumnTypes(Map<String, String> types, Map<String, Boolean> collatable) {

    static ColumnTypes of(Connection c, String table) throws SQLException {
        DeclaredColumns declared = DeclaredColumns.of(c, table);
        return new ColumnTypes(declared.types(), declared.collatable());
    }

    String type(String column) {
        return types.get(column);
    }

    boolean collatable(String column) {
        return collatable.getOrDefault(column, false);
    }

    /** The types of these columns, in their order. */
    List<String> of(List<String> columns) {
        return columns.stream().map(types::get).toList();
    }
}
