package io.sluice.runtime;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.testing.postgres.TestDatabase;

/**
 * A plain model of the staging subset's rule for streamed changes, over SubsetIT's shop: the
 * source's rows, and the rows the target holds. A change keeps its row when it is a customer of
 * the region, or the target has the row, or the target has the row it references through a
 * downward foreign key (to customers or orders); a kept row brings up every row it references,
 * transitively, as the source has them then. A delete takes the row away. The statements that
 * make each change on the source are made with it.
 */
final class SubsetStreamModel {

    /** Key columns per table; the keyless audit table is told apart by all its columns. */
    static final Map<String, List<String>> KEYS = Map.of("regions", List.of("code"), "categories", List.of("id"), "products",
            List.of("id"), "customers", List.of("id"), "orders", List.of("id"), "order_lines", List.of("order_id", "line"), "audit",
            List.of("customer_id", "note"));
    /** Tables whose rows come down from the root: a key to one of them brings its children. */
    private static final Set<String> DOWN = Set.of("customers", "orders", "order_lines", "audit");

    private final String region;
    private final Map<String, List<String>> columns = new LinkedHashMap<>();
    private final Map<String, Map<List<String>, Map<String, String>>> source = new LinkedHashMap<>();
    private final Set<String> onTarget = new HashSet<>();

    SubsetStreamModel(String region) {
        this.region = region;
    }

    /** Reads the source's rows, and which of them the target has (after the snapshot). */
    void load(TestDatabase sourceDb, TestDatabase targetDb) throws Exception {
        try (Connection c = sourceDb.connect(); Statement s = c.createStatement()) {
            for (String table : KEYS.keySet()) {
                Map<List<String>, Map<String, String>> rows = new LinkedHashMap<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                    List<String> names = new ArrayList<>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        names.add(rs.getMetaData().getColumnName(i));
                    }
                    columns.put(table, names);
                    while (rs.next()) {
                        Map<String, String> row = new LinkedHashMap<>();
                        for (String n : names) {
                            row.put(n, rs.getString(n));
                        }
                        rows.put(key(table, row), row);
                    }
                }
                source.put(table, rows);
            }
        }
        try (Connection c = targetDb.connect(); Statement s = c.createStatement()) {
            for (String table : KEYS.keySet()) {
                try (ResultSet rs = s.executeQuery("SELECT " + String.join(", ", KEYS.get(table)) + " FROM " + table)) {
                    while (rs.next()) {
                        List<String> key = new ArrayList<>();
                        for (String k : KEYS.get(table)) {
                            key.add(rs.getString(k));
                        }
                        onTarget.add(table + key);
                    }
                }
            }
        }
    }

    Map<List<String>, Map<String, String>> rows(String table) {
        return source.get(table);
    }

    /** Inserts a row (every column named, NULL as null); the statement that does it on the source. */
    String insert(String table, Map<String, String> row) {
        Map<String, String> full = new LinkedHashMap<>();
        for (String c : columns.get(table)) {
            full.put(c, row.get(c));
        }
        source.get(table).put(key(table, full), full);
        if (keeps(table, full)) {
            bring(table, full);
        }
        List<String> values = new ArrayList<>();
        full.values().forEach(v -> values.add(literal(v)));
        return "INSERT INTO " + table + " (" + String.join(", ", full.keySet()) + ") VALUES (" + String.join(", ", values) + ")";
    }

    /** Sets a column of a row (not a key column); the statement. */
    String update(String table, List<String> key, String column, String value) {
        Map<String, String> row = source.get(table).get(key);
        row.put(column, value);
        if (onTarget.contains(table + key) || keeps(table, row)) {
            bring(table, row);
        }
        return "UPDATE " + table + " SET " + column + " = " + literal(value) + " WHERE " + where(table, key);
    }

    /** Sets a key column of a row: the row moves to its new key, on the target too when it was there; the statement. */
    String rekey(String table, List<String> key, String column, String value) {
        Map<String, String> row = source.get(table).remove(key);
        boolean had = onTarget.remove(table + key);
        row.put(column, value);
        source.get(table).put(key(table, row), row);
        if (had || keeps(table, row)) {
            bring(table, row);
        }
        return "UPDATE " + table + " SET " + column + " = " + literal(value) + " WHERE " + where(table, key);
    }

    /** Deletes a row; the statement. */
    String delete(String table, List<String> key) {
        source.get(table).remove(key);
        onTarget.remove(table + key);
        return "DELETE FROM " + table + " WHERE " + where(table, key);
    }

    /** A re-sync of the table: each of its rows read again and judged as a change of it. */
    void resync(String table) {
        for (Map<String, String> row : new ArrayList<>(source.get(table).values())) {
            if (onTarget.contains(table + key(table, row)) || keeps(table, row)) {
                bring(table, row);
            }
        }
    }

    /** The rows the target must hold, as SubsetIT prints them: the source's rows the model has on the target, sorted. */
    List<String> expected(String table) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<List<String>, Map<String, String>> e : source.get(table).entrySet()) {
            if (onTarget.contains(table + e.getKey())) {
                StringBuilder t = new StringBuilder("|");
                e.getValue().values().forEach(v -> t.append(v).append('|'));
                out.add(t.toString());
            }
        }
        out.sort(null);
        return out;
    }

    /** Whether a change's row is kept: a root's row meeting the condition, or one whose downward parent the target has. */
    private boolean keeps(String table, Map<String, String> row) {
        if (table.equals("customers") && region.equals(row.get("region"))) {
            return true;
        }
        for (SubsetIT.Edge e : SubsetIT.EDGES) {
            if (e.child().equals(table) && DOWN.contains(e.parent())) {
                List<String> parent = referenced(row, e);
                if (parent != null && onTarget.contains(e.parent() + parent)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The row goes to the target, and every row it references that the target lacks, transitively. */
    private void bring(String table, Map<String, String> row) {
        onTarget.add(table + key(table, row));
        for (SubsetIT.Edge e : SubsetIT.EDGES) {
            if (!e.child().equals(table)) {
                continue;
            }
            List<String> parentKey = referenced(row, e);
            Map<String, String> parent = parentKey == null ? null : source.get(e.parent()).get(parentKey);
            if (parent != null && !onTarget.contains(e.parent() + parentKey)) {
                bring(e.parent(), parent);
            }
        }
    }

    /** The key of the row {@code row} references through the edge (every edge references its parent's key); null for NULL. */
    private static List<String> referenced(Map<String, String> row, SubsetIT.Edge e) {
        List<String> key = new ArrayList<>();
        for (String c : e.childColumns()) {
            if (row.get(c) == null) {
                return null;
            }
            key.add(row.get(c));
        }
        return key;
    }

    private static List<String> key(String table, Map<String, String> row) {
        List<String> key = new ArrayList<>();
        for (String k : KEYS.get(table)) {
            key.add(row.get(k));
        }
        return key;
    }

    private static String where(String table, List<String> key) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < key.size(); i++) {
            parts.add(KEYS.get(table).get(i) + " = " + literal(key.get(i)));
        }
        return String.join(" AND ", parts);
    }

    private static String literal(String v) {
        return v == null ? "NULL" : "'" + v.replace("'", "''") + "'";
    }
}
