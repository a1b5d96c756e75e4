package io.sluice.runtime.verify;

import java.util.Collection;
import java.util.List;
import java.util.StringJoiner;

import io.sluice.schemas.naming.Identifiers;

/**
 * Keys as SQL: the condition that a table's row has none of them (to take keys the stream
 * changed out of both sides' sums), written out as literals so it sits in any statement.
 */
final class KeySet {

    private KeySet() {
    }

    /**
     * {@code NOT EXISTS (...)} over the rows whose key is one of {@code keys} (texts in key order,
     * each cast to its column's type); null when there are none.
     */
    static String notAmong(List<String> key, List<String> types, Collection<List<String>> keys) {
        if (keys.isEmpty()) {
            return null;
        }
        StringJoiner arrays = new StringJoiner(", ");
        StringJoiner names = new StringJoiner(", ");
        StringJoiner match = new StringJoiner(" AND ");
        for (int i = 0; i < key.size(); i++) {
            StringJoiner elements = new StringJoiner(",", "{", "}");
            for (List<String> k : keys) {
                elements.add('"' + k.get(i).replace("\\", "\\\\").replace("\"", "\\\"") + '"');
            }
            arrays.add(Identifiers.literal(elements.toString()) + "::text[]");
            names.add("a" + i);
            match.add(Identifiers.quote(key.get(i)) + " = x.a" + i + "::" + types.get(i));
        }
        return "NOT EXISTS (SELECT 1 FROM unnest(" + arrays + ") AS x(" + names + ") WHERE " + match + ")";
    }

    /**
     * A key's name in the report: its texts in parentheses, as PostgreSQL prints a row (a value
     * that is empty or holds a space, comma, parenthesis, quote or backslash in double quotes).
     */
    static String name(List<String> key) {
        StringJoiner out = new StringJoiner(",", "(", ")");
        for (String v : key) {
            boolean quote = v.isEmpty() || v.chars().anyMatch(c -> c == '"' || c == '\\' || c == '(' || c == ')' || c == ','
                    || Character.isWhitespace(c));
            out.add(quote ? '"' + v.replace("\\", "\\\\").replace("\"", "\"\"") + '"' : v);
        }
        return out.toString();
    }
}
