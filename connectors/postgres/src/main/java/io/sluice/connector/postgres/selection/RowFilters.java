package io.sluice.connector.postgres.selection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The row filters of a pipeline: {@code table.filter.<schema>.<table>} = a SQL condition over the
 * table's columns, so that only matching rows are copied and only matching changes stream. The
 * table part is a pattern like {@code table.include.list}'s ({@code public.*} filters every table
 * of a schema by a column they share); a partition takes the filter of its root. Each table has
 * one filter at most: a table two keys match is refused, naming both.
 */
public final class RowFilters {

    /** The prefix of the keys. */
    public static final String PREFIX = "table.filter.";

    private final Map<TablePattern, String> filters;
    private final Map<TablePattern, String> keys;

    private RowFilters(Map<TablePattern, String> filters, Map<TablePattern, String> keys) {
        this.filters = filters;
        this.keys = keys;
    }

    /** None: every row flows. */
    public static final RowFilters NONE = new RowFilters(Map.of(), Map.of());

    /**
     * The filters among a configuration's keys.
     *
     * @throws IllegalArgumentException when a key names no table ({@code schema.table}) or a condition is empty, saying which
     */
    public static RowFilters of(Map<String, ?> config) {
        Map<TablePattern, String> filters = new LinkedHashMap<>();
        Map<TablePattern, String> keys = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        config.forEach((key, value) -> {
            if (!key.startsWith(PREFIX)) {
                return;
            }
            String condition = value == null ? "" : value.toString().strip();
            TablePattern table;
            try {
                table = TablePattern.parse(key.substring(PREFIX.length()));
            } catch (IllegalArgumentException e) {
                problems.add(key + " must name a table after " + PREFIX + " (" + PREFIX + "public.orders = \"amount > 100\"): "
                        + e.getMessage());
                return;
            }
            if (condition.isEmpty()) {
                problems.add(key + " is empty: give a SQL condition over the table's columns, or remove the key");
                return;
            }
            if (condition.indexOf(';') >= 0) {
                // The condition goes into statements Sluice runs: it must not be able to end one and start another.
                problems.add(key + " holds a ';': a row filter is one condition, not statements (a literal with a ';' cannot be "
                        + "filtered on)");
                return;
            }
            filters.put(table, condition);
            keys.put(table, key);
        });
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return filters.isEmpty() ? NONE : new RowFilters(filters, keys);
    }

    public boolean isEmpty() {
        return filters.isEmpty();
    }

    /** The keys, as configured, by their table pattern. */
    public Map<TablePattern, String> keys() {
        return keys;
    }

    /** The condition of a key's pattern. */
    public String condition(TablePattern pattern) {
        return filters.get(pattern);
    }

    /**
     * The condition for a table (a partition: its own, else its root's); null when none.
     *
     * @param root the partition's root as {@code schema.table}; null for a table that is no partition
     * @throws IllegalArgumentException when two keys match the table
     */
    public String forTable(String schema, String name, String root) {
        String found = null;
        String foundKey = null;
        for (Map.Entry<TablePattern, String> f : filters.entrySet()) {
            boolean own = f.getKey().matches(schema, name);
            boolean viaRoot = root != null && f.getKey().matches(root.substring(0, root.indexOf('.')), root.substring(root.indexOf('.') + 1));
            if (!own && !viaRoot) {
                continue;
            }
            if (found != null && !found.equals(f.getValue())) {
                throw new IllegalArgumentException(schema + "." + name + (root == null ? "" : " (a partition of " + root + ")")
                        + " is matched by " + foundKey + " and " + keys.get(f.getKey()) + ": a table takes one filter; name it in one key");
            }
            found = f.getValue();
            foundKey = keys.get(f.getKey());
        }
        return found;
    }

    /** The key that gives a table its filter, for messages; null when none does. */
    public String keyFor(String schema, String name, String root) {
        for (Map.Entry<TablePattern, String> f : filters.entrySet()) {
            if (f.getKey().matches(schema, name) || root != null
                    && f.getKey().matches(root.substring(0, root.indexOf('.')), root.substring(root.indexOf('.') + 1))) {
                return keys.get(f.getKey());
            }
        }
        return null;
    }
}
