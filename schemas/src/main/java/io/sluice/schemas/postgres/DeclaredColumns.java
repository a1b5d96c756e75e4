package io.sluice.schemas.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A table's columns as its catalog declares them, in column order: each one's type as
 * {@code format_type} spells it (with its modifiers, so a value's text cast to it reads as the
 * column would hold it) and whether that type is collatable. Dropped columns are left out.
 */
public record DeclaredColumns(Map<String, String> types, Map<String, Boolean> collatable) {

    /** @param table the table, quoted and qualified (as {@code regclass} reads a name) */
    public static DeclaredColumns of(Connection c, String table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(QUERY.replace("?", "?::regclass"))) {
            s.setString(1, table);
            return read(s);
        }
    }

    /** The table by its OID. */
    public static DeclaredColumns of(Connection c, long oid) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(QUERY)) {
            s.setLong(1, oid);
            return read(s);
        }
    }

    private static final String QUERY = "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), t.typcollation <> 0 "
            + "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
            + "WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum";

    private static DeclaredColumns read(PreparedStatement s) throws SQLException {
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, Boolean> collatable = new LinkedHashMap<>();
        try (ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                types.put(rs.getString(1), rs.getString(2));
                collatable.put(rs.getString(1), rs.getBoolean(3));
            }
        }
        return new DeclaredColumns(java.util.Collections.unmodifiableMap(types), java.util.Collections.unmodifiableMap(collatable));
    }

    /** The declared type of a column; null when the table has no such column. */
    public String type(String column) {
        return types.get(column);
    }
}
