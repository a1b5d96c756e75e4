package io.sluice.sink.opensearch;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.TestDatabase;

/**
 * Compares an index with its {@link TypeColumns} table: one document per row and no other, each
 * field of each document equal to what PostgreSQL says it must be, and, field by field, exactly
 * the documents a search should find by it found. Every difference is collected and reported
 * together, so one run shows them all.
 */
final class TypeChecker {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TestDatabase source;
    private final OpenSearchNode node;
    private final String table;
    private final String index;

    TypeChecker(TestDatabase source, OpenSearchNode node, String table, String index) {
        this.source = source;
        this.node = node;
        this.table = table;
        this.index = index;
    }

    /** The differences between the table and the index; empty when they agree. */
    List<String> differences() throws Exception {
        List<String> differences = new ArrayList<>();
        Map<String, JsonNode> expected = expectedDocuments();
        Map<String, JsonNode> documents = IndexDocuments.all(node, index);
        Set<String> extra = new TreeSet<>(documents.keySet());
        extra.removeAll(expected.keySet());
        if (!extra.isEmpty()) {
            differences.add("documents with no row: " + extra);
        }
        for (Map.Entry<String, JsonNode> row : expected.entrySet()) {
            JsonNode doc = documents.get(row.getKey());
            if (doc == null) {
                differences.add("row " + row.getKey() + " has no document");
                continue;
            }
            for (Iterator<Map.Entry<String, JsonNode>> fields = row.getValue().fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                JsonNode actual = doc.get(field.getKey());
                JsonNode want = field.getValue();
                boolean single = TypeColumns.COLUMNS.stream().anyMatch(c -> c.name().equals(field.getKey()) && c.type().equals("real"));
                if (!same(want, actual == null ? com.fasterxml.jackson.databind.node.NullNode.instance : actual, single)) {
                    differences.add("row " + row.getKey() + " field " + field.getKey() + ": expected " + brief(want) + ", document has "
                            + brief(actual));
                }
            }
        }
        for (TypeColumns.Column c : TypeColumns.COLUMNS) {
            Set<String> found = IndexDocuments.ids(node, index, "{\"query\":{\"exists\":{\"field\":\"" + c.name() + "\"}}}");
            Set<String> want = ids("SELECT id FROM " + table + " WHERE " + c.searchableSql());
            if (!found.equals(want)) {
                Set<String> missing = new TreeSet<>(want);
                missing.removeAll(found);
                Set<String> unexpected = new TreeSet<>(found);
                unexpected.removeAll(want);
                differences.add("a search by " + c.name() + " (" + c.type() + ") should find rows " + new TreeSet<>(want) + "; it missed "
                        + missing + " and found " + unexpected);
            }
        }
        return differences;
    }

    private Map<String, JsonNode> expectedDocuments() throws Exception {
        // jsonb_build_object takes at most 100 arguments: objects of 40 fields, joined.
        StringBuilder sql = new StringBuilder("SELECT id, (jsonb_build_object('id', id");
        int n = 0;
        for (TypeColumns.Column c : TypeColumns.COLUMNS) {
            if (++n % 40 == 0) {
                sql.append(") || jsonb_build_object(");
            } else {
                sql.append(", ");
            }
            sql.append('\'').append(c.name()).append("', ").append(c.expectedSql());
        }
        sql.append("))::text FROM ").append(table);
        Map<String, JsonNode> rows = new HashMap<>();
        try (Connection conn = source.connect(); Statement s = conn.createStatement()) {
            s.execute("SET TimeZone = 'UTC'");
            s.execute("SET IntervalStyle = 'iso_8601'");
            s.execute("SET extra_float_digits = 3");
            try (ResultSet rs = s.executeQuery(sql.toString())) {
                while (rs.next()) {
                    rows.put(rs.getString(1), JSON.readTree(rs.getString(2)));
                }
            }
        }
        return rows;
    }

    private Set<String> ids(String sql) throws Exception {
        Set<String> ids = new TreeSet<>();
        try (Connection conn = source.connect(); Statement s = conn.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    /**
     * JSON equality where numbers compare by value (PostgreSQL writes {@code 1e+38}, Java {@code 1.0E38}) and objects
     * ignore key order. Single-precision numbers compare as the float they read as: PostgreSQL and Java each write the
     * shortest text that reads back as the same float, and do not always choose the same ({@code 1e-45}, {@code 1.4E-45}).
     */
    static boolean same(JsonNode a, JsonNode b, boolean single) {
        if (a.isNumber() && b.isNumber()) {
            return single ? Float.parseFloat(a.asText()) == Float.parseFloat(b.asText())
                    : new BigDecimal(a.asText()).compareTo(new BigDecimal(b.asText())) == 0;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!same(a.get(i), b.get(i), single)) {
                    return false;
                }
            }
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (Iterator<String> names = a.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!b.has(name) || !same(a.get(name), b.get(name), single)) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    private static String brief(JsonNode node) {
        String text = String.valueOf(node);
        return text.length() > 120 ? text.substring(0, 120) + "…(" + text.length() + " chars)" : text;
    }
}
