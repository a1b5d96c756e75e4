package io.sluice.connector.postgres.selection;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A {@code schema.table} pattern: {@code *} matches any run of characters, {@code ?} one
 * character, and a part in double quotes is taken literally (so names holding dots, commas or
 * wildcard characters can be named). Matching is case-sensitive, as stored names are.
 */
public final class TablePattern {

    /** Separates schema and table in the names {@link #postgresRegex()} is matched against. */
    public static final char SEPARATOR = '\u0001';

    private final String text;
    private final Pattern schema;
    private final Pattern table;
    private final String postgresRegex;

    private TablePattern(String text, Pattern schema, Pattern table, String postgresRegex) {
        this.text = text;
        this.schema = schema;
        this.table = table;
        this.postgresRegex = postgresRegex;
    }

    public static TablePattern parse(String text) {
        List<String> parts = new ArrayList<>();
        List<Boolean> quoted = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inQuotes = false;
        boolean currentQuoted = false;
        String s = text.strip();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') {
                if (inQuotes && i + 1 < s.length() && s.charAt(i + 1) == '"') {
                    current.append('"');
                    i++;
                } else {
                    inQuotes = !inQuotes;
                    currentQuoted = true;
                }
            } else if (c == '.' && !inQuotes) {
                parts.add(current.toString());
                quoted.add(currentQuoted);
                current.setLength(0);
                currentQuoted = false;
            } else {
                current.append(c);
            }
        }
        if (inQuotes) {
            throw new IllegalArgumentException("Unclosed quote in table pattern " + text);
        }
        parts.add(current.toString());
        quoted.add(currentQuoted);
        if (parts.size() != 2 || parts.get(0).isEmpty() || parts.get(1).isEmpty()) {
            throw new IllegalArgumentException("Table pattern " + text + " must be schema.table, e.g. public.orders, public.* or *.audit_*");
        }
        return new TablePattern(text, compile(parts.get(0), quoted.get(0)), compile(parts.get(1), quoted.get(1)),
                "^" + posix(parts.get(0), quoted.get(0)) + SEPARATOR + posix(parts.get(1), quoted.get(1)) + "$");
    }

    /** The glob as a PostgreSQL (ARE) regular expression, for the DDL triggers that match new tables inside the server. */
    private static String posix(String glob, boolean literal) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toCharArray()) {
            if (!literal && (c == '*' || c == '?')) {
                regex.append(c == '*' ? ".*" : ".");
            } else if ("\\^$.|?*+()[]{}".indexOf(c) >= 0) {
                regex.append('\\').append(c);
            } else {
                regex.append(c);
            }
        }
        return regex.toString();
    }

    private static Pattern compile(String glob, boolean literal) {
        if (literal) {
            return Pattern.compile(Pattern.quote(glob));
        }
        StringBuilder regex = new StringBuilder();
        StringBuilder literalRun = new StringBuilder();
        for (char c : glob.toCharArray()) {
            if (c == '*' || c == '?') {
                if (literalRun.length() > 0) {
                    regex.append(Pattern.quote(literalRun.toString()));
                    literalRun.setLength(0);
                }
                regex.append(c == '*' ? ".*" : ".");
            } else {
                literalRun.append(c);
            }
        }
        if (literalRun.length() > 0) {
            regex.append(Pattern.quote(literalRun.toString()));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    public boolean matches(String schemaName, String tableName) {
        return schema.matcher(schemaName).matches() && table.matcher(tableName).matches();
    }

    /**
     * An anchored PostgreSQL regular expression that matches {@code schema + SEPARATOR + table}
     * exactly when {@link #matches} does.
     */
    public String postgresRegex() {
        return postgresRegex;
    }

    @Override
    public String toString() {
        return text;
    }
}
