package io.sluice.transforms.transformer;

import java.math.BigDecimal;
import java.util.HexFormat;

/**
 * The text a value is keyed by. It depends on the value alone, not on the column or table, so
 * one value gives one output wherever it is (a customer id in two tables stays joinable).
 */
final class ValueText {

    private ValueText() {
    }

    static String of(Object value) {
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof byte[] b) {
            return HexFormat.of().formatHex(b);
        }
        if (value instanceof java.nio.ByteBuffer b) {
            byte[] copy = new byte[b.remaining()];
            b.duplicate().get(copy);
            return HexFormat.of().formatHex(copy);
        }
        if (value instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (value instanceof java.util.Date d) {
            return Long.toString(d.getTime());
        }
        return String.valueOf(value);
    }
}
