package io.sluice.runtime.verify;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.sluice.schemas.naming.Identifiers;

/**
 * One side of a table's comparison, as SQL on its server: the rows' count and the sum of a
 * 64-bit hash of each row's text (order does not matter, a row twice counts twice), for the whole
 * table or per key range, and each row's key and hash within one range. Both sides read rows
 * with the same session settings, so equal values print equal text.
 */
final class TableSide {

    /** Rows' count and hash sum. */
    record Sums(long rows, BigDecimal hash) {
    }

    private final Connection connection;
    private final String table;
    private final String filter;
    private final String exclude;
    private final String hash;

    /**
     * @param filter  a condition on the rows compared (the source's row filter), or null
     * @param exclude a condition that leaves rows out of the sums (the keys the stream changed, checked apart), or null
     */
    TableSide(Connection connection, String table, List<String> columns, String filter, String exclude) {
        this.connection = connection;
        this.table = table;
        this.filter = filter;
        this.exclude = exclude;
        StringJoiner row = new StringJoiner(", ", "pg_catalog.hashtextextended(ROW(", ")::text, 0)");
        columns.forEach(c -> row.add(Identifiers.quote(c)));
        this.hash = row.toString();
    }

    /** Sets what the text of values depends on, alike on both servers. */
    static void settle(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; "
                    + "SET extra_float_digits = 1; SET bytea_output = 'hex'");
        }
    }

    Sums total() throws SQLException {
        return sums(null);
    }

    /** The sums of the rows meeting {@code range} (null: all). */
    Sums sums(String range) throws SQLException {
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(" + hash + "), 0) FROM " + table + where(range))) {
            rs.next();
            return new Sums(rs.getLong(1), rs.getBigDecimal(2));
        }
    }

    /**
     * Every {@code step}-th value of the key's first column among the rows meeting {@code range},
     * in key order (without repeats): the upper bounds of ranges of about {@code step} rows each.
     */
    List<String> bounds(String column, boolean collatable, long step, String range) throws SQLException {
        String k = Identifiers.quote(column) + (collatable ? " COLLATE \"C\"" : "");
        List<String> out = new ArrayList<>();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT k::text FROM (SELECT " + k + " AS k, row_number() OVER (ORDER BY " + k + ") AS n FROM "
                     + table + where(range) + ") r WHERE n % " + step + " = 0 ORDER BY r.k")) { // r.k: the value, not its text
            while (rs.next()) {
                if (out.isEmpty() || !out.get(out.size() - 1).equals(rs.getString(1))) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /**
     * Per part of {@code range} cut at {@code bounds} (0 before the first bound, i from bound i-1
     * up to bound i, the last from the last bound on), its sums.
     */
    Map<Integer, Sums> ranges(String column, String type, boolean collatable, List<String> bounds, String range) throws SQLException {
        Map<Integer, Sums> out = new HashMap<>();
        String k = Identifiers.quote(column) + (collatable ? " COLLATE \"C\"" : "");
        String bucket = "pg_catalog.width_bucket(" + k + ", ?::text[]::" + type + "[]" + (collatable ? " COLLATE \"C\"" : "") + ")";
        try (PreparedStatement s = connection.prepareStatement("SELECT " + bucket + " AS b, count(*), sum(" + hash + ") FROM " + table
                + where(range) + " GROUP BY 1")) {
            s.setArray(1, connection.createArrayOf("text", bounds.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getInt(1), new Sums(rs.getLong(2), rs.getBigDecimal(3)));
                }
            }
        }
        return out;
    }

    /** The rows meeting {@code range}: each one's key (its columns' text, in key order) and hash. */
    Map<List<String>, Long> rows(List<String> key, String range) throws SQLException {
        StringJoiner k = new StringJoiner(", ");
        key.forEach(c -> k.add(Identifiers.quote(c) + "::text"));
        Map<List<String>, Long> out = new HashMap<>();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT " + hash + ", " + k + " FROM " + table + where(range))) {
            while (rs.next()) {
                List<String> values = new ArrayList<>(key.size());
                for (int i = 0; i < key.size(); i++) {
                    values.add(rs.getString(i + 2));
                }
                out.put(values, rs.getLong(1));
            }
        }
        return out;
    }

    private String where(String more) {
        StringJoiner w = new StringJoiner(" AND ", " WHERE ", "").setEmptyValue("");
        if (filter != null) {
            w.add("(" + filter + ")");
        }
        if (exclude != null) {
            w.add(exclude);
        }
        if (more != null) {
            w.add(more);
        }
        return w.toString();
    }
}
