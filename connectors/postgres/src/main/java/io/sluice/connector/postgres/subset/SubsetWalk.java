package io.sluice.connector.postgres.subset;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.schemas.naming.Identifiers;

/**
 * The rows a subset keeps, found round by round in the snapshot's transaction: each round asks
 * every foreign key, in one query, for the children of the rows first kept going down in the
 * round before and for the parents of the rows first kept in it (semi-naive: no row is asked
 * about twice per direction), the values passed as arrays the server joins by hash. The same
 * rule as {@link SubsetClosure}'s recursive query, which asks per row; this asks per set.
 */
final class SubsetWalk {

    /** A kept row: where it is, and the values of the columns its table's foreign keys use, as text. */
    private static final class Row {
        final String ctid;
        final long tableoid;
        final Map<String, String> values;
        boolean down;
        boolean upQueued;

        Row(String ctid, long tableoid, Map<String, String> values) {
            this.ctid = ctid;
            this.tableoid = tableoid;
            this.values = values;
        }
    }

    private final Map<String, String> roots;
    private final List<ForeignKey> keys;
    private final Map<String, Set<String>> columns;
    /** Per table (quoted, qualified), its kept rows by tableoid/ctid. */
    private final Map<String, Map<String, Row>> kept = new HashMap<>();
    private final long limit;
    private long count;

    /** @param limit the most rows to keep in memory; past it {@link #walk} gives up (returns false) */
    SubsetWalk(Map<String, String> roots, List<ForeignKey> keys, long limit) {
        this.roots = roots;
        this.keys = keys;
        this.limit = limit;
        this.columns = ForeignKey.columnsByTable(keys);
    }

    /** Finds the kept rows; false when there are more than the limit (nothing is kept then). */
    boolean walk(Connection c) throws SQLException {
        Map<String, List<Row>> down = new HashMap<>();
        Map<String, List<Row>> up = new HashMap<>();
        for (Map.Entry<String, String> root : roots.entrySet()) {
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery(select(root.getKey()) + " WHERE (" + root.getValue() + ")")) {
                if (!take(root.getKey(), rs, true, down, up)) {
                    return false;
                }
            }
        }
        while (!down.isEmpty() || !up.isEmpty()) {
            Map<String, List<Row>> nextDown = new HashMap<>();
            Map<String, List<Row>> nextUp = new HashMap<>();
            for (ForeignKey k : keys) {
                List<Row> parents = down.getOrDefault(k.parent(), List.of());
                if (!parents.isEmpty() && !take(k.child(), lookup(c, k.child(), k.childColumns(), k.childTypes(), parents, k.parentColumns()),
                        true, nextDown, nextUp)) {
                    return false;
                }
                List<Row> children = up.getOrDefault(k.child(), List.of());
                if (!children.isEmpty() && !take(k.parent(), lookup(c, k.parent(), k.parentColumns(), k.parentTypes(), children,
                        k.childColumns()), false, nextDown, nextUp)) {
                    return false;
                }
            }
            down = nextDown;
            up = nextUp;
        }
        return true;
    }

    /** The kept rows' ctids of a table, per tableoid (a partitioned table's rows lie in its partitions). */
    Map<Long, List<String>> ctids(String table) {
        Map<Long, List<String>> out = new HashMap<>();
        kept.getOrDefault(table, Map.of()).values().forEach(r -> out.computeIfAbsent(r.tableoid, o -> new ArrayList<>()).add(r.ctid));
        return out;
    }

    /** The rows of {@code table} whose columns equal those of some of {@code from}, by one join against arrays of their values. */
    private ResultSet lookup(Connection c, String table, List<String> cols, List<String> types, List<Row> from, List<String> fromCols)
            throws SQLException {
        Set<List<String>> values = new LinkedHashSet<>();
        for (Row r : from) {
            List<String> v = new ArrayList<>(fromCols.size());
            for (String col : fromCols) {
                v.add(r.values.get(col));
            }
            if (!v.contains(null)) {
                values.add(v);
            }
        }
        StringBuilder sql = new StringBuilder(select(table)).append(" WHERE (");
        StringBuilder pick = new StringBuilder();
        StringBuilder arrays = new StringBuilder();
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < cols.size(); i++) {
            String sep = i == 0 ? "" : ", ";
            sql.append(sep).append("y.").append(Identifiers.quote(cols.get(i)));
            pick.append(sep).append("v.c").append(i).append("::").append(types.get(i));
            arrays.append(sep).append("?::text[]");
            names.append(sep).append("c").append(i);
        }
        sql.append(") IN (SELECT ").append(pick).append(" FROM unnest(").append(arrays).append(") AS v(").append(names).append("))");
        PreparedStatement s = c.prepareStatement(sql.toString());
        for (int i = 0; i < cols.size(); i++) {
            Object[] column = new Object[values.size()];
            int j = 0;
            for (List<String> v : values) {
                column[j++] = v.get(i);
            }
            s.setArray(i + 1, c.createArrayOf("text", column));
        }
        s.closeOnCompletion();
        return s.executeQuery();
    }

    /** Keeps the rows read; those kept anew go to the next round's lists. False past the limit. */
    private boolean take(String table, ResultSet rs, boolean goingDown, Map<String, List<Row>> down, Map<String, List<Row>> up)
            throws SQLException {
        try (rs) {
            Map<String, Row> rows = kept.computeIfAbsent(table, t -> new HashMap<>());
            Set<String> cols = columns.getOrDefault(table, Set.of());
            while (rs.next()) {
                String id = rs.getLong(2) + "/" + rs.getString(1);
                Row row = rows.get(id);
                if (row == null) {
                    Map<String, String> values = new HashMap<>();
                    int i = 3;
                    for (String col : cols) {
                        values.put(col, rs.getString(i++));
                    }
                    row = new Row(rs.getString(1), rs.getLong(2), values);
                    rows.put(id, row);
                    if (++count > limit) {
                        return false;
                    }
                }
                if (goingDown && !row.down) {
                    row.down = true;
                    down.computeIfAbsent(table, t -> new ArrayList<>()).add(row);
                }
                if (!row.upQueued) {
                    row.upQueued = true;
                    up.computeIfAbsent(table, t -> new ArrayList<>()).add(row);
                }
            }
        }
        return true;
    }

    /** What a row is read as: ctid, tableoid, then its foreign-key columns as text. */
    private String select(String table) {
        StringBuilder sql = new StringBuilder("SELECT y.ctid::text, y.tableoid::bigint");
        for (String col : columns.getOrDefault(table, Set.of())) {
            sql.append(", y.").append(Identifiers.quote(col)).append("::text");
        }
        return sql.append(" FROM ").append(table).append(" y").toString();
    }
}
