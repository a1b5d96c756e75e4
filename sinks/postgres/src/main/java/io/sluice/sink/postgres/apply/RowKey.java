package io.sluice.sink.postgres.apply;

import java.util.Arrays;

/**
 * A row's key as the COPY-encoded bytes of its key values (of all its values, for a keyless
 * table), which is how pending changes are coalesced per row.
 *
 * <p>{@link Arrays#hashCode(byte[])} is a poor hash here: a 31-weighted sum of bytes gives
 * neighbouring integer keys (the common case) equal hashes, as a carry into one byte is undone
 * by 31 in the next, so a batch of consecutive ids piles into a few hash buckets. Whole 4-byte
 * words are mixed in as MurmurHash3 mixes them, and the result finished with its avalanche step.
 */
record RowKey(byte[] bytes, int hash) {

    RowKey(byte[] bytes) {
        this(bytes, spread(bytes));
    }

    static int spread(byte[] b) {
        int h = b.length;
        int i = 0;
        for (; i + 4 <= b.length; i += 4) {
            h = mix(h, (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | (b[i + 3] & 0xff));
        }
        if (i < b.length) {
            int tail = 0;
            for (; i < b.length; i++) {
                tail = tail << 8 | (b[i] & 0xff);
            }
            h = mix(h, tail);
        }
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        // HashMap spreads a hash code with h ^ (h >>> 16), which undoes that last step and leaves the bucket (the low bits)
        // a function of the low bits of a product: twelve tenants of 100 keys put ten into one bucket (RowKeyProperties).
        // Applied once more here, HashMap's spreading gives back the whole finalized hash.
        return h ^ (h >>> 16);
    }

    /**
     * MurmurHash3's step for one word: the word is scrambled (multiply, rotate, multiply) before it
     * enters the state. Mixing it in with one multiply was not enough: composite keys of a small
     * negative tenant and a counter piled nine into one bucket (found by RowKeyProperties).
     */
    private static int mix(int h, int word) {
        int k = word * 0xcc9e2d51;
        k = Integer.rotateLeft(k, 15) * 0x1b873593;
        return Integer.rotateLeft(h ^ k, 13) * 5 + 0xe6546b64;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowKey k && hash == k.hash && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "RowKey" + Arrays.toString(bytes);
    }
}
