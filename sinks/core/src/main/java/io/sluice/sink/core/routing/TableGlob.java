package io.sluice.sink.core.routing;

import java.util.regex.Pattern;

/**
 * A table pattern of a sink's settings: {@code schema.table}, with {@code *} for any run of
 * characters ({@code public.*}, {@code *.audit_*}).
 */
public record TableGlob(String pattern, Pattern regex) {

    public static TableGlob of(String pattern) {
        String[] parts = pattern.split("\\*", -1);
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(parts[i]));
        }
        return new TableGlob(pattern, Pattern.compile(regex.toString()));
    }

    /** Whether the table ({@code schema.table}) matches; never for a table not known (null). */
    public boolean matches(String table) {
        return table != null && regex.matcher(table).matches();
    }

    /** The pattern as a PostgreSQL regular expression matching the whole name ({@code ~} operator). */
    public String postgresRegex() {
        StringBuilder regex = new StringBuilder("^");
        for (char c : pattern.toCharArray()) {
            if (c == '*') {
                regex.append(".*");
            } else if (Character.isLetterOrDigit(c) || c == '_' || c > 127) {
                regex.append(c);
            } else {
                regex.append('\\').append(c); // a backslash before any other character makes it literal
            }
        }
        return regex.append('$').toString();
    }
}
