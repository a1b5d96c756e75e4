package io.sluice.connector.postgres.selection;

import java.util.Map;

/**
 * The roots of a staging subset: {@code subset.<schema>.<table>} = a SQL condition over the
 * table's columns. The snapshot copies the rows of the roots that meet it and, through foreign
 * keys, the rows tied to them (see {@code subset.SubsetClosure}). The table part is a pattern
 * like {@code table.include.list}'s; a partition takes its root's.
 */
public final class SubsetRoots {

    /** The prefix of the keys. */
    public static final String PREFIX = "subset.";

    /** None: no subset. */
    public static final SubsetRoots NONE = new SubsetRoots(null);

    private final TableKeys<String> roots;

    private SubsetRoots(TableKeys<String> roots) {
        this.roots = roots;
    }

    /**
     * The roots among a configuration's keys.
     *
     * @throws IllegalArgumentException when a key names no table or its condition is empty or holds a ';', saying which
     */
    public static SubsetRoots of(Map<String, ?> config) {
        TableKeys<String> keys = TableKeys.conditions(PREFIX, config, PREFIX + "public.customers = \"region = 'eu'\"",
                "a subset's condition is one condition, not statements");
        return keys.isEmpty() ? NONE : new SubsetRoots(keys);
    }

    public boolean isEmpty() {
        return roots == null;
    }

    /** The keys, as configured, by their table pattern. */
    public Map<TablePattern, String> keys() {
        return roots == null ? Map.of() : roots.keys();
    }

    /** The condition a table is a root with (only its own name is matched); null when it is none. */
    public String forTable(String schema, String name) {
        return roots == null ? null : roots.forTable(schema, name, null);
    }

    /** The key that makes a table a root, for messages; null when none does. */
    public String keyFor(String schema, String name) {
        return roots == null ? null : roots.keyFor(schema, name, null);
    }
}
