package io.sluice.runtime.verify;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.sluice.connector.postgres.SourceChanges;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.TextArrays;

/**
 * The rows the stream changed between the source's point and the target's position, checked one
 * by one: what the target must hold of each key (its last image, hashed by the source's server
 * as the table's rows are, if the row filter keeps it; nothing, if deleted or filtered out) and
 * what it holds. For a table compared as a whole, the hashes of the rows the changes added and
 * removed.
 */
final class TouchedRows {

    /** Of the touched keys, how many the source has (kept by the row filter) and the target holds. */
    record Found(long expected, long held) {
    }

    /** Rows' count and hash sum. */
    record Delta(long rows, java.math.BigDecimal hash) {
    }

    private TouchedRows() {
    }

    /** Checks each touched key of a keyed table, noting those the target holds wrongly. */
    static Found check(ComparedTable t, ColumnTypes types, WindowChanges.Folded folded, Connection source, Connection target,
                       Differences found) throws SQLException {
        List<WindowChanges.Touched> touched = new ArrayList<>(folded.touched().values());
        fillUnsent(t, types, touched, source);
        Map<List<String>, Long> expected = new HashMap<>();
        List<Map<String, String>> images = new ArrayList<>();
        List<List<String>> imageKeys = new ArrayList<>();
        for (WindowChanges.Touched k : touched) {
            if (k.image() != null) {
                images.add(k.image());
                imageKeys.add(k.key());
            }
        }
        Long[] hashes = hashes(t, types, images, source);
        for (int i = 0; i < images.size(); i++) {
            if (hashes[i] != null) {
                expected.put(imageKeys.get(i), hashes[i]);
            }
        }
        Map<List<String>, Long> held = held(t, types, touched, target);
        for (WindowChanges.Touched k : touched) {
            Long want = expected.get(k.key());
            Long have = held.get(k.key());
            if (want != null && have == null) {
                found.missing(k.key());
            } else if (want == null && have != null) {
                found.extra(k.key());
            } else if (want != null && !want.equals(have)) {
                found.changed(k.key());
            }
        }
        return new Found(expected.size(), held.size());
    }

    /**
     * Count and hash sum of the touched keys' last images (of a table compared as a whole by a key
     * it has on the source), over those the row filter keeps: what joins the sums of its other rows.
     */
    static Delta lastImages(ComparedTable t, ColumnTypes types, WindowChanges.Folded folded, Connection source) throws SQLException {
        List<WindowChanges.Touched> touched = new ArrayList<>(folded.touched().values());
        fillUnsent(t, types, touched, source);
        List<Map<String, String>> images = new ArrayList<>();
        touched.stream().filter(k -> k.image() != null).forEach(k -> images.add(k.image()));
        return sums(t, types, images, source);
    }

    /** Count and hash sum of whole images, over those the row filter keeps. */
    static Delta sums(ComparedTable t, ColumnTypes types, List<Map<String, String>> images, Connection source) throws SQLException {
        long rows = 0;
        java.math.BigDecimal sum = java.math.BigDecimal.ZERO;
        for (Long h : hashes(t, types, images, source)) {
            if (h != null) {
                rows++;
                sum = sum.add(java.math.BigDecimal.valueOf(h));
            }
        }
        return new Delta(rows, sum);
    }

    /**
     * Per image, the hash of its row as the table would hold it (its values cast to the columns'
     * types, so they print as the table's do), or null when the row filter does not keep it.
     */
    private static Long[] hashes(ComparedTable t, ColumnTypes types, List<Map<String, String>> images, Connection source)
            throws SQLException {
        Long[] out = new Long[images.size()];
        if (images.isEmpty()) {
            return out;
        }
        StringJoiner cast = new StringJoiner(", ");
        StringJoiner row = new StringJoiner(", ", "pg_catalog.hashtextextended(ROW(", ")::text, 0)");
        for (int i = 0; i < t.columns().size(); i++) {
            String column = t.columns().get(i);
            cast.add(TextArrays.column(i, types.type(column)) + " AS " + Identifiers.quote(column));
            row.add(Identifiers.quote(column));
        }
        String sql = "SELECT i, " + row + ", " + (t.filter() == null ? "true" : "(" + t.filter() + ")") + " FROM (SELECT x.i, " + cast
                + " FROM " + TextArrays.unnest(t.columns().size(), true) + ") AS r";
        try (PreparedStatement s = source.prepareStatement(sql)) {
            TextArrays.bind(s, t.columns().size(), images, (image, i) -> image.get(t.columns().get(i)));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    if (rs.getBoolean(3)) {
                        out[rs.getInt(1) - 1] = rs.getLong(2);
                    }
                }
            }
        }
        return out;
    }

    /** The hash of each touched key's row on the target, for the keys it holds. */
    private static Map<List<String>, Long> held(ComparedTable t, ColumnTypes types, List<WindowChanges.Touched> touched, Connection target)
            throws SQLException {
        StringJoiner row = new StringJoiner(", ", "pg_catalog.hashtextextended(ROW(", ")::text, 0)");
        t.columns().forEach(c -> row.add("t." + Identifiers.quote(c)));
        return byKey(t.key(), types, touched.stream().map(WindowChanges.Touched::key).toList(), target, t.target(), row.toString(),
                rs -> rs.getLong(1));
    }

    /** Values the stream did not send (unchanged since the point): read from the snapshot's row of the key's origin. */
    private static void fillUnsent(ComparedTable t, ColumnTypes types, List<WindowChanges.Touched> touched, Connection source)
            throws SQLException {
        List<List<String>> origins = new ArrayList<>();
        for (WindowChanges.Touched k : touched) {
            if (k.image() != null && WindowChanges.unsent(k.image())) {
                origins.add(k.origin());
            }
        }
        if (origins.isEmpty()) {
            return;
        }
        StringJoiner values = new StringJoiner(", ");
        t.columns().forEach(c -> values.add("t." + Identifiers.quote(c) + "::text"));
        Map<List<String>, String[]> rows = byKey(t.sourceKey(), types, origins, source, t.source(), values.toString(), rs -> {
            String[] v = new String[t.columns().size()];
            for (int i = 0; i < v.length; i++) {
                v[i] = rs.getString(i + 1);
            }
            return v;
        });
        for (WindowChanges.Touched k : touched) {
            if (k.image() == null || !WindowChanges.unsent(k.image())) {
                continue;
            }
            String[] at = rows.get(k.origin());
            if (at == null) {
                throw new SQLException("Row " + KeySet.name(k.origin()) + " of " + t.name() + " is missing from the source's snapshot, "
                        + "though the stream updated it after the snapshot without sending some of its values");
            }
            for (int i = 0; i < t.columns().size(); i++) {
                if (k.image().get(t.columns().get(i)) == SourceChanges.UNCHANGED) {
                    k.image().put(t.columns().get(i), at[i]);
                }
            }
        }
    }

    /** Reads what {@code select} gives of the rows of {@code table} with these keys, by key. */
    private static <V> Map<List<String>, V> byKey(List<String> keyColumns, ColumnTypes types, List<List<String>> keys, Connection c,
                                                  String table, String select, Reader<V> reader) throws SQLException {
        Map<List<String>, V> out = new HashMap<>();
        if (keys.isEmpty()) {
            return out;
        }
        StringJoiner match = new StringJoiner(" AND ");
        for (int i = 0; i < keyColumns.size(); i++) {
            match.add("t." + Identifiers.quote(keyColumns.get(i)) + " = " + TextArrays.column(i, types.type(keyColumns.get(i))));
        }
        try (PreparedStatement s = c.prepareStatement("SELECT " + select + ", x.i FROM " + TextArrays.unnest(keyColumns.size(), true)
                + " JOIN " + table + " t ON " + match)) {
            TextArrays.bind(s, keyColumns.size(), keys, List::get);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.put(keys.get(rs.getInt(rs.getMetaData().getColumnCount()) - 1), reader.read(rs));
                }
            }
        }
        return out;
    }

    @FunctionalInterface
    private interface Reader<V> {
        V read(ResultSet rs) throws SQLException;
    }
}
