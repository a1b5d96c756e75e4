package io.sluice.transforms.anonymize;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Replaces a value with its keyed hash: deterministic under one secret, unrelated under
 * another, and the original cannot be recovered or guessed from it without the secret.
 */
public final class KeyedHash {

    private static final String PURPOSE = "hash";

    private final KeyedDigest digest;
    private final HashFormat format;
    private final long min;
    private final long max;

    /**
     * @param min the smallest number written, for {@link HashFormat#INTEGER}
     * @param max the largest, at least {@code min}
     */
    public KeyedHash(KeyedDigest digest, HashFormat format, long min, long max) {
        if (format == HashFormat.INTEGER && max < min) {
            throw new IllegalArgumentException("The range of a keyed hash to integers is empty: min " + min + " > max " + max);
        }
        this.digest = digest;
        this.format = format;
        this.min = min;
        this.max = max;
    }

    /** The hash of the value as text; null stays null. */
    public String text(String value) {
        if (value == null) {
            return null;
        }
        byte[] d = digest.digest(PURPOSE, value);
        return switch (format) {
            case HEX -> HexFormat.of().formatHex(d);
            case BASE64 -> Base64.getUrlEncoder().withoutPadding().encodeToString(d);
            case UUID -> uuid(d).toString();
            case INTEGER -> Long.toString(number(d));
        };
    }

    /** The hash of the value as a number in [min, max]; null stays null. */
    public Long number(String value) {
        return value == null ? null : number(digest.digest(PURPOSE, value));
    }

    private long number(byte[] d) {
        // Reduced modulo the range from all 256 bits: the bias is at most 2^64 / 2^256.
        BigInteger span = BigInteger.valueOf(max).subtract(BigInteger.valueOf(min)).add(BigInteger.ONE);
        return new BigInteger(1, d).mod(span).add(BigInteger.valueOf(min)).longValueExact();
    }

    private static java.util.UUID uuid(byte[] d) {
        ByteBuffer b = ByteBuffer.wrap(d.clone(), 0, 16);
        long high = b.getLong();
        long low = b.getLong();
        high = (high & ~0xF000L) | 0x8000L; // version 8
        low = (low & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // the RFC variant
        return new java.util.UUID(high, low);
    }
}
