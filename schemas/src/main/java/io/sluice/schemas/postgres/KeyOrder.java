package io.sluice.schemas.postgres;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the key columns of a table sort by: per column, its collation as provider and locale
 * (the database's when the column uses the default), or the empty string for a type that has
 * none and sorts the same in every database. A key range read on the source in its order means
 * the same range on a target only where both name the same order for every key column; a source
 * and a target on different locales (a {@code C} target of an {@code en_US} source) order text
 * keys otherwise.
 */
public final class KeyOrder {

    /**
     * Per column: '' for no collation; else provider:locale (libc: LC_COLLATE; ICU and the builtin
     * provider: their locale and rules). Read through to_jsonb so that the catalog columns of every
     * version from 14 on (daticulocale, datlocale, colliculocale, colllocale) are found by name.
     */
    private static final String SQL = """
            SELECT a.attname,
                   CASE WHEN a.attcollation = 0 THEN ''
                        WHEN a.attcollation = 100 THEN
                             (SELECT coalesce(j->>'datlocprovider', 'c') || ':' || coalesce(j->>'datcollate', '') || ':'
                                     || coalesce(j->>'datlocale', j->>'daticulocale', '') || ':' || coalesce(j->>'daticurules', '')
                                FROM (SELECT pg_catalog.to_jsonb(d) AS j FROM pg_catalog.pg_database d
                                       WHERE d.datname = pg_catalog.current_database()) x)
                        ELSE (SELECT (j->>'collprovider') || ':' || coalesce(j->>'collcollate', '') || ':'
                                     || coalesce(j->>'colllocale', j->>'colliculocale', '') || ':' || coalesce(j->>'collicurules', '')
                                FROM (SELECT pg_catalog.to_jsonb(c) AS j FROM pg_catalog.pg_collation c WHERE c.oid = a.attcollation) x)
                   END
              FROM pg_catalog.pg_attribute a
             WHERE a.attrelid = pg_catalog.to_regclass(?) AND a.attname = ANY (?) AND NOT a.attisdropped""";

    private KeyOrder() {
    }

    /**
     * What each of the columns sorts by, in the order given.
     *
     * @param quotedTable the table, quoted and qualified
     * @throws SQLException when a column is not found
     */
    public static List<String> of(Connection c, String quotedTable, List<String> columns) throws SQLException {
        Map<String, String> found = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(SQL)) {
            s.setString(1, quotedTable);
            Array names = c.createArrayOf("text", columns.toArray());
            s.setArray(2, names);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getString(1), normalized(rs.getString(2)));
                }
            }
        }
        List<String> out = new ArrayList<>(columns.size());
        for (String column : columns) {
            String order = found.get(column);
            if (order == null) {
                throw new SQLException("Column " + column + " of " + quotedTable + " not found", "42703");
            }
            out.add(order);
        }
        return out;
    }

    /**
     * One spelling per order: case and the codeset's dash do not matter to libc ({@code en_US.UTF-8}
     * is {@code en_US.utf8}), {@code POSIX} is {@code C}, and the builtin provider's {@code C} is libc's.
     */
    static String normalized(String order) {
        if (order == null || order.isEmpty()) {
            return "";
        }
        String[] parts = order.split(":", -1);
        String provider = parts[0];
        String collate = parts.length > 1 ? locale(parts[1]) : "";
        String locale = parts.length > 2 ? locale(parts[2]) : "";
        String rules = parts.length > 3 ? parts[3] : "";
        if (provider.equals("b") && locale.equals("c")) {
            return "c:c";
        }
        if (provider.equals("c") || provider.equals("d")) {
            return "c:" + collate;
        }
        return provider + ":" + locale + (rules.isEmpty() ? "" : ":" + rules);
    }

    private static String locale(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.equals("posix")) {
            return "c";
        }
        int dot = lower.indexOf('.');
        return dot < 0 ? lower : lower.substring(0, dot) + "." + lower.substring(dot + 1).replace("-", "");
    }
}
