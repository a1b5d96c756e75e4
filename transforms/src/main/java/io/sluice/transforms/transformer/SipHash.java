package io.sluice.transforms.transformer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a pseudorandom function keyed with 128 bits, made
 * for short inputs, about ten times cheaper than HMAC-SHA-256 on a name or a date. It seeds the
 * fakes, which draw a few dozen bits per value; {@code hash} and {@code uuid} keep HMAC-SHA-256.
 */
final class SipHash {

    /** Whole message words in one load rather than eight byte steps. */
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final long k0;
    private final long k1;

    /** @param key 16 bytes */
    SipHash(byte[] key) {
        if (key.length < 16) {
            throw new IllegalArgumentException("SipHash takes a 16-byte key");
        }
        this.k0 = littleEndian(key, 0, 8);
        this.k1 = littleEndian(key, 8, 8);
    }

    long hash(byte[] m) {
        long[] v = {k0 ^ 0x736f6d6570736575L, k1 ^ 0x646f72616e646f6dL, k0 ^ 0x6c7967656e657261L, k1 ^ 0x7465646279746573L};
        int words = m.length / 8;
        for (int i = 0; i < words; i++) {
            compress(v, (long) WORDS.get(m, i * 8));
        }
        compress(v, ((long) m.length << 56) | littleEndian(m, words * 8, m.length - words * 8));
        v[2] ^= 0xff;
        rounds(v, 4);
        return v[0] ^ v[1] ^ v[2] ^ v[3];
    }

    /** Two rounds over one message word. */
    private static void compress(long[] v, long word) {
        v[3] ^= word;
        rounds(v, 2);
        v[0] ^= word;
    }

    private static void rounds(long[] v, int n) {
        for (int r = 0; r < n; r++) {
            v[0] += v[1]; v[1] = Long.rotateLeft(v[1], 13); v[1] ^= v[0]; v[0] = Long.rotateLeft(v[0], 32);
            v[2] += v[3]; v[3] = Long.rotateLeft(v[3], 16); v[3] ^= v[2];
            v[0] += v[3]; v[3] = Long.rotateLeft(v[3], 21); v[3] ^= v[0];
            v[2] += v[1]; v[1] = Long.rotateLeft(v[1], 17); v[1] ^= v[2]; v[2] = Long.rotateLeft(v[2], 32);
        }
    }

    private static long littleEndian(byte[] b, int from, int count) {
        long w = 0;
        for (int i = count - 1; i >= 0; i--) {
            w = (w << 8) | (b[from + i] & 0xFFL);
        }
        return w;
    }
}
