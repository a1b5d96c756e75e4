package io.sluice.sink.opensearch.mapping;

import java.util.regex.Pattern;

/**
 * A table pattern of the sink's JSON settings: {@code schema.table}, with {@code *} for any run of
 * characters ({@code public.*}, {@code *.audit_*}).
 */
record TableGlob(String pattern, Pattern regex) {

    static TableGlob of(String pattern) {
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
    boolean matches(String table) {
        return table != null && regex.matcher(table).matches();
    }
}
