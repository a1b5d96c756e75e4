package io.sluice.connector.postgres.selection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Keys that take one value per table, {@code <prefix><schema>.<table>}: the table part a pattern
 * like {@code table.include.list}'s, a partition taking its root's value. Each table takes one
 * value at most: a table two keys match is refused, naming both.
 *
 * @param <T> the value, parsed from the key's text
 */
final class TableKeys<T> {

    private final Map<TablePattern, T> values;
    private final Map<TablePattern, String> keys;

    private TableKeys(Map<TablePattern, T> values, Map<TablePattern, String> keys) {
        this.values = values;
        this.keys = keys;
    }

    /**
     * Keys whose values are SQL conditions over their table's columns. A condition goes into
     * statements Sluice runs: one holding a ';' could end one and start another, and is refused.
     *
     * @param refusal why a ';' is refused, after "holds a ';': "
     */
    static TableKeys<String> conditions(String prefix, Map<String, ?> config, String example, String refusal) {
        return of(prefix, config, example, (key, condition) -> {
            if (condition.indexOf(';') >= 0) {
                throw new IllegalArgumentException("holds a ';': " + refusal);
            }
            return condition;
        });
    }

    /**
     * The keys with the prefix among a configuration's.
     *
     * @param parse the value of a key from its text (stripped, never empty); throws {@link IllegalArgumentException} saying
     *              what is wrong, which is reported after the key's name
     * @throws IllegalArgumentException naming every key that names no table or whose value is refused
     */
    static <T> TableKeys<T> of(String prefix, Map<String, ?> config, String example, BiFunction<String, String, T> parse) {
        Map<TablePattern, T> values = new LinkedHashMap<>();
        Map<TablePattern, String> keys = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        config.forEach((key, value) -> {
            if (!key.startsWith(prefix)) {
                return;
            }
            String text = value == null ? "" : value.toString().strip();
            TablePattern table;
            try {
                table = TablePattern.parse(key.substring(prefix.length()));
            } catch (IllegalArgumentException e) {
                problems.add(key + " must name a table after " + prefix + " (" + example + "): " + e.getMessage());
                return;
            }
            if (text.isEmpty()) {
                problems.add(key + " is empty: give it a value, or remove the key");
                return;
            }
            try {
                values.put(table, parse.apply(key, text));
                keys.put(table, key);
            } catch (IllegalArgumentException e) {
                problems.add(key + " " + e.getMessage());
            }
        });
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return new TableKeys<>(values, keys);
    }

    boolean isEmpty() {
        return values.isEmpty();
    }

    Map<TablePattern, String> keys() {
        return keys;
    }

    /** The values, by their table pattern. */
    Map<TablePattern, T> values() {
        return java.util.Collections.unmodifiableMap(values);
    }

    /**
     * The value for a table (a partition: its own, else its root's); null when none.
     *
     * @param root the partition's root as {@code schema.table}; null for a table that is no partition
     * @throws IllegalArgumentException when two keys with different values match the table
     */
    T forTable(String schema, String name, String root) {
        T found = null;
        String foundKey = null;
        for (Map.Entry<TablePattern, T> v : values.entrySet()) {
            if (!matches(v.getKey(), schema, name, root)) {
                continue;
            }
            if (found != null && !found.equals(v.getValue())) {
                throw new IllegalArgumentException(schema + "." + name + (root == null ? "" : " (a partition of " + root + ")")
                        + " is matched by " + foundKey + " and " + keys.get(v.getKey()) + ": a table takes one; name it in one key");
            }
            found = v.getValue();
            foundKey = keys.get(v.getKey());
        }
        return found;
    }

    /** The key that gives a table its value, for messages; null when none does. */
    String keyFor(String schema, String name, String root) {
        for (Map.Entry<TablePattern, String> k : keys.entrySet()) {
            if (matches(k.getKey(), schema, name, root)) {
                return k.getValue();
            }
        }
        return null;
    }

    private static boolean matches(TablePattern pattern, String schema, String name, String root) {
        return pattern.matches(schema, name) || root != null
                && pattern.matches(root.substring(0, root.indexOf('.')), root.substring(root.indexOf('.') + 1));
    }
}
