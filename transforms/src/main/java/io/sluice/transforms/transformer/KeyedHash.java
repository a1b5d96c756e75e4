package io.sluice.transforms.transformer;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HexFormat;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code hash}: replaces a value with its keyed hash, deterministic under one secret and
 * unrelated under another; the original cannot be recovered or guessed from it without the
 * secret. Hex and base64 may be cut to a length that fits the column. Integers are drawn from
 * a range: with n distinct values in a range of N, about n²/2N of them collide, so integer keys
 * want a wide range (a bigint's default range makes that nil; an integer's does not for
 * millions of rows).
 */
public final class KeyedHash implements Transformer {

    private static final String PURPOSE = "hash";

    private final Seeds seeds;
    private final HashFormat format;
    private final int length;
    private final Long min;
    private final Long max;

    /**
     * @param format null to choose by the column: integer for numbers, uuid for uuid columns, hex for text
     * @param length characters kept of hex and base64 (0 for all)
     * @param min    the smallest integer written, or null for the column type's
     * @param max    the largest, or null for the column type's
     */
    public KeyedHash(Seeds seeds, HashFormat format, int length, Long min, Long max) {
        if (min != null && max != null && max < min) {
            throw new IllegalArgumentException("hash: the range is empty, min " + min + " > max " + max);
        }
        this.seeds = seeds;
        this.format = format;
        this.length = length;
        this.min = min;
        this.max = max;
    }

    static KeyedHash from(Params p, Seeds seeds) {
        HashFormat format = p.has("format") ? p.choice("format", HashFormat.HEX) : null;
        int length = p.integer("length", 0, 8, 64);
        Long min = p.has("min") ? p.number("min", 0, Long.MIN_VALUE, Long.MAX_VALUE) : null;
        Long max = p.has("max") ? p.number("max", 0, Long.MIN_VALUE, Long.MAX_VALUE) : null;
        return new KeyedHash(seeds, format, length, min, max);
    }

    /** The hash of a value as text in this hash's format (hex when none was chosen). */
    public String text(String value) {
        if (value == null) {
            return null;
        }
        return textOf(value, format == null ? HashFormat.HEX : format, min != null ? min : Long.MIN_VALUE, max != null ? max : Long.MAX_VALUE);
    }

    /** The hash of a value as a number within this hash's range (a long's when none was given). */
    public Long number(String value) {
        return value == null ? null
                : number(seeds.bytes(PURPOSE, value), min != null ? min : Long.MIN_VALUE, max != null ? max : Long.MAX_VALUE);
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        ColumnType type = ColumnType.of(schema);
        HashFormat chosen = format != null ? format : switch (type) {
            case INTEGER, NUMERIC_TEXT, DECIMAL -> HashFormat.INTEGER;
            case UUID -> HashFormat.UUID;
            default -> HashFormat.HEX;
        };
        String name = "hash(format=" + chosen.name().toLowerCase(java.util.Locale.ROOT) + ")";
        switch (type) {
            case TEXT -> {
                long lo = min != null ? min : Long.MIN_VALUE;
                long hi = max != null ? max : Long.MAX_VALUE;
                return (value, row) -> textOf(ValueText.of(value), chosen, lo, hi);
            }
            case UUID -> {
                if (chosen != HashFormat.UUID) {
                    throw Fit.misfit(name, schema, "text that is not a UUID");
                }
                return (value, row) -> text(seeds.bytes(PURPOSE, ValueText.of(value)), chosen, 0, 0);
            }
            case BYTES -> {
                return (value, row) -> seeds.bytes(PURPOSE, ValueText.of(value));
            }
            case INTEGER, NUMERIC_TEXT, DECIMAL -> {
                if (chosen != HashFormat.INTEGER) {
                    throw Fit.misfit(name, schema, "text");
                }
                long lo = min != null ? min : type == ColumnType.INTEGER ? Numbers.min(schema.type()) : Long.MIN_VALUE;
                long hi = max != null ? max : type == ColumnType.INTEGER ? Numbers.max(schema.type()) : Long.MAX_VALUE;
                if (type == ColumnType.INTEGER && (lo < Numbers.min(schema.type()) || hi > Numbers.max(schema.type()))) {
                    throw new IllegalArgumentException("hash: the range [" + lo + ", " + hi + "] does not fit a column of type "
                            + schema.type() + " (" + Numbers.min(schema.type()) + " to " + Numbers.max(schema.type()) + ")");
                }
                return switch (type) {
                    case INTEGER -> (value, row) -> Numbers.box(number(seeds.bytes(PURPOSE, ValueText.of(value)), lo, hi), schema.type());
                    case NUMERIC_TEXT -> (value, row) -> Long.toString(number(seeds.bytes(PURPOSE, ValueText.of(value)), lo, hi));
                    default -> (value, row) -> BigDecimal.valueOf(number(seeds.bytes(PURPOSE, ValueText.of(value)), lo, hi))
                            .setScale(Numbers.scale(schema));
                };
            }
            default -> throw Fit.misfit(name, schema, "text, a uuid, bytes or a number");
        }
    }

    /**
     * The hash of a value as text. Hex and base64 are random text, so a short original turns up in
     * one now and then ("lVr" in "ddlvrnhwid-m", found by TransformerProperties): it is hashed
     * again with a count, as fakes are drawn again, so the output stays the same for the same value.
     */
    private String textOf(String value, HashFormat f, long lo, long hi) {
        String out = text(seeds.bytes(PURPOSE, value), f, lo, hi);
        if (f == HashFormat.HEX || f == HashFormat.BASE64) {
            for (int attempt = 1; attempt <= 8 && Fake.containsIgnoringCase(out, value.strip()); attempt++) {
                out = text(seeds.bytes(PURPOSE, value + '\0' + attempt), f, lo, hi);
            }
        }
        return out;
    }

    private String text(byte[] d, HashFormat f, long lo, long hi) {
        String out = switch (f) {
            case HEX -> HexFormat.of().formatHex(d);
            case BASE64 -> Base64.getUrlEncoder().withoutPadding().encodeToString(d);
            case UUID -> uuid(d).toString();
            case INTEGER -> Long.toString(number(d, lo, hi));
        };
        return length > 0 && (f == HashFormat.HEX || f == HashFormat.BASE64) ? out.substring(0, Math.min(length, out.length())) : out;
    }

    private static long number(byte[] d, long lo, long hi) {
        // Reduced modulo the range from all 256 bits: the bias is at most 2^64 / 2^256.
        BigInteger span = BigInteger.valueOf(hi).subtract(BigInteger.valueOf(lo)).add(BigInteger.ONE);
        return new BigInteger(1, d).mod(span).add(BigInteger.valueOf(lo)).longValueExact();
    }

    private static java.util.UUID uuid(byte[] d) {
        ByteBuffer b = ByteBuffer.wrap(d, 0, 16);
        long high = b.getLong();
        long low = b.getLong();
        high = (high & ~0xF000L) | 0x8000L; // version 8
        low = (low & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // the RFC variant
        return new java.util.UUID(high, low);
    }

    @Override
    public boolean costly() {
        return true; // computes an HMAC-SHA-256 per value
    }
}
