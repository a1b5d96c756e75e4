package io.sluice.connector.postgres.selection;

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

    /** None: every row flows. */
    public static final RowFilters NONE = new RowFilters(null);

    private final TableKeys<String> filters;

    private RowFilters(TableKeys<String> filters) {
        this.filters = filters;
    }

    /**
     * The filters among a configuration's keys.
     *
     * @throws IllegalArgumentException when a key names no table ({@code schema.table}) or a condition is empty, saying which
     */
    public static RowFilters of(Map<String, ?> config) {
        TableKeys<String> keys = TableKeys.conditions(PREFIX, config, PREFIX + "public.orders = \"amount > 100\"",
                "a row filter is one condition, not statements (a literal with a ';' cannot be filtered on)");
        return keys.isEmpty() ? NONE : new RowFilters(keys);
    }

    public boolean isEmpty() {
        return filters == null;
    }

    /** The keys, as configured, by their table pattern. */
    public Map<TablePattern, String> keys() {
        return filters == null ? Map.of() : filters.keys();
    }

    /** The conditions, by their table pattern. */
    public Map<TablePattern, String> conditions() {
        return filters == null ? Map.of() : filters.values();
    }

    /**
     * The condition for a table (a partition: its own, else its root's); null when none.
     *
     * @param root the partition's root as {@code schema.table}; null for a table that is no partition
     * @throws IllegalArgumentException when two keys match the table
     */
    public String forTable(String schema, String name, String root) {
        return filters == null ? null : filters.forTable(schema, name, root);
    }

    /** The key that gives a table its filter, for messages; null when none does. */
    public String keyFor(String schema, String name, String root) {
        return filters == null ? null : filters.keyFor(schema, name, root);
    }
}
