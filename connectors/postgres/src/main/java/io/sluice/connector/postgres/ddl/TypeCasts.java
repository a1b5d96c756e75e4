package io.sluice.connector.postgres.ddl;

import java.util.Map;
import java.util.Set;

/**
 * Which column type changes a target can repeat on its own rows with a plain cast and get
 * what the source got. A cast qualifies when its result depends only on the value: not on
 * session settings (time zone, DateStyle, float output digits, lc_monetary), which may differ
 * between the source's session and the sink's. Everything else (and any {@code USING}
 * expression) is copied from the source instead.
 */
final class TypeCasts {

    private static final Set<String> CHARACTERS = Set.of("text", "varchar", "bpchar", "name");

    /** Types whose text form depends on nothing but the value. */
    private static final Set<String> PLAIN_TEXT = Set.of("int2", "int4", "int8", "numeric", "bool", "uuid", "text", "varchar", "bpchar",
            "name", "jsonb", "json", "inet", "cidr", "macaddr");

    /** Widenings that keep every value exactly. */
    private static final Map<String, Set<String>> WIDER = Map.of(
            "int2", Set.of("int4", "int8", "numeric", "float4", "float8"),
            "int4", Set.of("int8", "numeric", "float8"),
            "int8", Set.of("numeric"),
            "float4", Set.of("float8"),
            "json", Set.of("jsonb"),
            "cidr", Set.of("inet"));

    private TypeCasts() {
    }

    /** @param from the old type's name ({@code pg_type.typname}) @param to the new one's */
    static boolean repeatable(String from, String to) {
        if (from.equals(to)) {
            return true; // only the modifier changed: length, precision, scale
        }
        if (CHARACTERS.contains(to)) {
            return PLAIN_TEXT.contains(from);
        }
        return WIDER.getOrDefault(from, Set.of()).contains(to);
    }
}
