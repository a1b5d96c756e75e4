package io.sluice.schemas.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.connect.errors.DataException;

/** Small conversions shared by the codecs. */
final class Values {

    private Values() {
    }

    static String utf8(ByteBuffer in) {
        if (in.hasArray()) {
            return new String(in.array(), in.arrayOffset() + in.position(), in.remaining(), StandardCharsets.UTF_8);
        }
        byte[] bytes = new byte[in.remaining()];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static <T> T as(Object value, Class<T> type, String what) {
        if (!type.isInstance(value)) {
            throw new DataException("Expected a " + type.getSimpleName() + " for " + what + ", got "
                    + (value == null ? "null" : value.getClass().getSimpleName() + " " + value));
        }
        return type.cast(value);
    }

    static long integral(Object value, long min, long max, String what) {
        if (!(value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long)) {
            throw new DataException("Expected an integer for " + what + ", got " + (value == null ? "null" : value.getClass().getSimpleName()));
        }
        long v = ((Number) value).longValue();
        if (v < min || v > max) {
            throw new DataException("Value " + v + " is out of range for " + what);
        }
        return v;
    }
}
