package io.sluice.transforms.transformer;

import java.math.BigDecimal;

import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;

/** Whole numbers in the Java type and range of a Connect integer schema. */
final class Numbers {

    private Numbers() {
    }

    static long min(Schema.Type type) {
        return switch (type) {
            case INT8 -> Byte.MIN_VALUE;
            case INT16 -> Short.MIN_VALUE;
            case INT32 -> Integer.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
    }

    static long max(Schema.Type type) {
        return switch (type) {
            case INT8 -> Byte.MAX_VALUE;
            case INT16 -> Short.MAX_VALUE;
            case INT32 -> Integer.MAX_VALUE;
            default -> Long.MAX_VALUE;
        };
    }

    static Object box(long value, Schema.Type type) {
        return switch (type) {
            case INT8 -> (byte) value;
            case INT16 -> (short) value;
            case INT32 -> (int) value;
            case INT64 -> value;
            case FLOAT32 -> (float) value;
            case FLOAT64 -> (double) value;
            default -> throw new IllegalArgumentException("Not a number type: " + type);
        };
    }

    static long clamp(long value, Schema.Type type) {
        return Math.max(min(type), Math.min(max(type), value));
    }

    /** The scale a Decimal schema fixes. */
    static int scale(Schema schema) {
        return Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD));
    }

    /**
     * The largest magnitude a column takes, from its declared precision and scale; null when
     * none is declared.
     */
    static BigDecimal largest(Schema schema, int scale) {
        if (schema.parameters() == null) {
            return null;
        }
        String precision = schema.parameters().getOrDefault("connect.decimal.precision", schema.parameters().get("precision"));
        if (precision == null) {
            return null;
        }
        int p = Integer.parseInt(precision);
        return BigDecimal.ONE.movePointRight(p - scale).subtract(BigDecimal.ONE.movePointLeft(scale));
    }
}
