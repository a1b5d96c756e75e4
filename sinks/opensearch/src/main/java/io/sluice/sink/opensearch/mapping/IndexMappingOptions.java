package io.sluice.sink.opensearch.mapping;

import java.util.Arrays;
import java.util.Locale;

/**
 * The choices the user makes about mappings: the indexes' dynamic setting and how numeric and
 * json columns are mapped.
 *
 * @param dynamic {@code strict}, {@code true} or {@code false}
 */
public record IndexMappingOptions(String dynamic, NumericMapping numeric, JsonMapping json) {

    public static final IndexMappingOptions DEFAULTS = new IndexMappingOptions("strict", NumericMapping.SCALED_FLOAT, JsonMapping.FLAT_OBJECT);

    /** How a numeric column is mapped; its _source value is the exact decimal text in every mode. */
    public enum NumericMapping {
        SCALED_FLOAT, DOUBLE, KEYWORD;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static String[] keys() {
            return Arrays.stream(values()).map(NumericMapping::key).toArray(String[]::new);
        }

        public static NumericMapping of(String key) {
            return valueOf(key.toUpperCase(Locale.ROOT));
        }
    }

    /** How a json or jsonb column is mapped. */
    public enum JsonMapping {
        FLAT_OBJECT, OBJECT, KEYWORD, TEXT;

        /** Whether values are written as their JSON text rather than as objects. */
        public boolean asText() {
            return this == KEYWORD || this == TEXT;
        }

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static String[] keys() {
            return Arrays.stream(values()).map(JsonMapping::key).toArray(String[]::new);
        }

        public static JsonMapping of(String key) {
            return valueOf(key.toUpperCase(Locale.ROOT));
        }
    }
}
