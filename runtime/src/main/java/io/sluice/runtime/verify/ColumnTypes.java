package io.sluice.runtime.verify;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's columns' types as {@code format_type} spells them (with their modifiers, so a value's
 * text cast to one reads as the column would hold it), and whether each is collatable.
 */
record ColumnTypes(Map<String, String> types, Map<String, Boolean> collatable) {

    static ColumnTypes of(Connection c, String table) throws SQLException {
        Map<String, String> types = new HashMap<>();
        Map<String, Boolean> collatable = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
                + "t.typcollation <> 0 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
                + "WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped")) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    types.put(rs.getString(1), rs.getString(2));
                    collatable.put(rs.getString(1), rs.getBoolean(3));
                }
            }
        }
        return new ColumnTypes(types, collatable);
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
