package io.sluice.schemas.codec;

import java.util.Map;

/**
 * Session settings under which PostgreSQL's text output is what the codecs parse. Every
 * connection that reads values as text (snapshot readers, the replication connection) sets them.
 */
public final class SessionSettings {

    /** Setting name to value, in the order they should be applied. */
    public static final Map<String, String> REQUIRED = Map.of(
            "DateStyle", "ISO, YMD",
            "IntervalStyle", "iso_8601",
            "TimeZone", "UTC",
            "extra_float_digits", "3",
            "bytea_output", "hex",
            "client_encoding", "UTF8");

    private SessionSettings() {
    }

    /** The settings as {@code SET} statements. */
    public static String[] statements() {
        return REQUIRED.entrySet().stream()
                .map(e -> "SET " + e.getKey() + " = '" + e.getValue() + "'")
                .toArray(String[]::new);
    }

    /** The settings as a libpq/pgjdbc {@code options} startup parameter ({@code -c name=value ...}). */
    public static String startupOptions() {
        StringBuilder options = new StringBuilder();
        REQUIRED.forEach((name, value) -> options.append("-c ").append(name).append('=')
                .append(value.replace(" ", "\\ ")).append(' '));
        return options.toString().trim();
    }
}
