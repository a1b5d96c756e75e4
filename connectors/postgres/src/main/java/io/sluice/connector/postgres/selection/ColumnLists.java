package io.sluice.connector.postgres.selection;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The column lists of a pipeline: {@code table.columns.<schema>.<table>} = the columns of the
 * table that flow, comma-separated (a name in double quotes taken as it is, else as PostgreSQL
 * folds it: lower case). The key columns always flow with them. The table part is a pattern as in
 * {@link RowFilters}; a partition takes its root's list.
 */
public final class ColumnLists {

    /** The prefix of the keys. */
    public static final String PREFIX = "table.columns.";

    /** None: every column flows. */
    public static final ColumnLists NONE = new ColumnLists(null);

    private final TableKeys<List<String>> lists;

    private ColumnLists(TableKeys<List<String>> lists) {
        this.lists = lists;
    }

    /**
     * The lists among a configuration's keys.
     *
     * @throws IllegalArgumentException when a key names no table, or its list is empty or malformed, saying which
     */
    public static ColumnLists of(Map<String, ?> config) {
        TableKeys<List<String>> keys = TableKeys.of(PREFIX, config, PREFIX + "public.customers = \"id, region, created_at\"",
                (key, text) -> names(text));
        return keys.isEmpty() ? NONE : new ColumnLists(keys);
    }

    /** The column names of a list, as stored: quoted ones as written, others folded to lower case. */
    static List<String> names(String text) {
        List<String> names = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : ',';
            if (quoted) {
                if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    current.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else if (i == text.length()) {
                    throw new IllegalArgumentException("has an unclosed quote: " + text);
                } else {
                    current.append(c);
                }
            } else if (c == '"') {
                if (wasQuoted || !current.toString().isBlank()) {
                    throw new IllegalArgumentException("has a name that is partly quoted: " + text + " (quote a name whole)");
                }
                current.setLength(0); // the blanks before the quote
                quoted = true;
                wasQuoted = true;
            } else if (c == ',') {
                String name = wasQuoted ? current.toString() : current.toString().strip().toLowerCase(java.util.Locale.ROOT);
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("has an empty column name: give the columns comma-separated, e.g. id, region");
                }
                if (names.contains(name)) {
                    throw new IllegalArgumentException("names " + name + " twice");
                }
                names.add(name);
                current.setLength(0);
                wasQuoted = false;
            } else if (!wasQuoted) {
                current.append(c);
            } else if (!Character.isWhitespace(c)) {
                throw new IllegalArgumentException("has text after a quoted name: " + text);
            }
        }
        return List.copyOf(names);
    }

    public boolean isEmpty() {
        return lists == null;
    }

    /** The keys, as configured, by their table pattern. */
    public Map<TablePattern, String> keys() {
        return lists == null ? Map.of() : lists.keys();
    }

    /** The lists, by their table pattern. */
    public Map<TablePattern, List<String>> lists() {
        return lists == null ? Map.of() : lists.values();
    }

    /** The columns listed for a table (a partition: its own list, else its root's); null when every column flows. */
    public List<String> forTable(String schema, String name, String root) {
        return lists == null ? null : lists.forTable(schema, name, root);
    }

    /** The key that gives a table its list, for messages; null when none does. */
    public String keyFor(String schema, String name, String root) {
        return lists == null ? null : lists.keyFor(schema, name, root);
    }
}
