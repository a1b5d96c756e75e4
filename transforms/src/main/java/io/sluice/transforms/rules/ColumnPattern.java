package io.sluice.transforms.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which columns a rule is for: {@code schema.table.column}, each part a name or a glob
 * ({@code *} any run of characters, {@code ?} one), a part in double quotes taken literally
 * ({@code public."Order.Lines".note}). Names are matched as PostgreSQL stores them, so
 * unquoted identifiers are lower case.
 */
public record ColumnPattern(String text, Part schema, Part table, Part column) {

    /** One part of the pattern. */
    public record Part(String text, Pattern glob) {

        boolean matches(String name) {
            return glob == null ? text.equals(name) : glob.matcher(name).matches();
        }

        /** 2 for a name, 1 for a glob with letters in it, 0 for a bare {@code *}. */
        int specificity() {
            return glob == null ? 2 : text.chars().allMatch(c -> c == '*') ? 0 : 1;
        }

        public boolean exact() {
            return glob == null;
        }
    }

    public static ColumnPattern parse(String pattern) {
        String text = pattern.strip();
        List<Part> parts = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        boolean glob = false;
        String t = text;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '"') {
                if (quoted && i + 1 < t.length() && t.charAt(i + 1) == '"') {
                    current.append('"');
                    i++;
                } else {
                    quoted = !quoted;
                    wasQuoted = true;
                }
            } else if (c == '.' && !quoted) {
                parts.add(part(current.toString(), glob, wasQuoted, text));
                current.setLength(0);
                glob = false;
                wasQuoted = false;
            } else {
                glob |= !quoted && (c == '*' || c == '?');
                current.append(c);
            }
        }
        if (quoted) {
            throw new IllegalArgumentException("Column pattern '" + text + "' has an unclosed quote");
        }
        parts.add(part(current.toString(), glob, wasQuoted, text));
        if (parts.size() != 3) {
            throw new IllegalArgumentException("Column pattern '" + text + "' must be schema.table.column, like public.customers.email or *.*.email"
                    + " (quote a name with a dot in it: public.\"a.b\".c)");
        }
        return new ColumnPattern(text, parts.get(0), parts.get(1), parts.get(2));
    }

    private static Part part(String text, boolean glob, boolean quoted, String pattern) {
        if (text.isEmpty() && !quoted) {
            throw new IllegalArgumentException("Column pattern '" + pattern + "' has an empty part; write schema.table.column");
        }
        if (!glob) {
            return new Part(text, null);
        }
        StringBuilder regex = new StringBuilder();
        for (char c : text.toCharArray()) {
            regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
        }
        return new Part(text, Pattern.compile(regex.toString(), Pattern.DOTALL));
    }

    public boolean matchesTable(String schemaName, String tableName) {
        return schema.matches(schemaName) && table.matches(tableName);
    }

    public boolean matches(String schemaName, String tableName, String columnName) {
        return matchesTable(schemaName, tableName) && column.matches(columnName);
    }

    /** Whether it names one column: no part is a glob. */
    public boolean exact() {
        return schema.exact() && table.exact() && column.exact();
    }

    /** How narrowly it selects; the column's part counts most, then the table's, then the schema's. */
    int specificity() {
        return column.specificity() * 9 + table.specificity() * 3 + schema.specificity();
    }

    @Override
    public String toString() {
        return text;
    }
}
