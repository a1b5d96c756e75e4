package io.sluice.sink.postgres.apply;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Row keys coalesce a batch's changes in a hash map: equal key bytes must be equal keys, and
 * runs of consecutive integer keys (serial ids, COPY-encoded as the sink encodes them) must
 * spread over the buckets instead of piling into a few.
 */
class RowKeyProperties {

    /**
     * The fullest bucket a property allows. Even a perfectly random hash fills some bucket with 9
     * keys in about one table in a thousand at HashMap's highest load (0.75), which 150 tries a
     * build would find now and then; 12 or more comes about once in 10^6 tables. The flaws found so
     * far put 9 and 10 keys into a bucket at loads far below that, where a random hash all but
     * never does: the examples below keep those cases, at the tighter limit of 8.
     */
    private static final int RANDOM_LIMIT = 11;

    @Property
    void equalBytesAreEqualKeysWithEqualHashes(@ForAll @Size(max = 40) byte[] bytes) {
        RowKey a = new RowKey(bytes);
        RowKey b = new RowKey(Arrays.copyOf(bytes, bytes.length));
        assertThat(a).isEqualTo(b);
        assertThat(a.hashCode()).isEqualTo(b.hashCode());
    }

    @Property
    void differentBytesAreDifferentKeys(@ForAll @Size(max = 12) byte[] a, @ForAll @Size(max = 12) byte[] b) {
        assertThat(new RowKey(a).equals(new RowKey(b))).isEqualTo(Arrays.equals(a, b));
    }

    @Property(tries = 50)
    void consecutiveIntKeysSpreadOverTheBuckets(@ForAll int first, @ForAll @IntRange(min = 1_000, max = 50_000) int count) {
        assertSpread(count, RANDOM_LIMIT, i -> ByteBuffer.allocate(8).putInt(4).putInt(first + i).array());
    }

    @Property(tries = 50)
    void consecutiveBigintKeysSpreadOverTheBuckets(@ForAll long first, @ForAll @IntRange(min = 1_000, max = 50_000) int count) {
        assertSpread(count, RANDOM_LIMIT, i -> ByteBuffer.allocate(12).putInt(8).putLong(first + i).array());
    }

    @Property(tries = 50)
    void compositeKeysSpreadOverTheBuckets(@ForAll int tenant, @ForAll @IntRange(min = 1_000, max = 50_000) int count) {
        assertSpread(count, RANDOM_LIMIT, i -> ByteBuffer.allocate(16).putInt(4).putInt(tenant + i / 100).putInt(4).putInt(i % 100).array());
    }

    /** The case that put nine keys into one bucket with a hash that mixed each word in with one multiply. */
    @Example
    void aSmallNegativeTenantsKeysSpreadToo() {
        assertSpread(2640, 8, i -> ByteBuffer.allocate(16).putInt(4).putInt(-39 + i / 100).putInt(4).putInt(i % 100).array());
    }

    /** The case that put ten keys into one bucket while HashMap's own spreading undid the hash's last step. */
    @Example
    void aLargeTenantsKeysSpreadToo() {
        assertSpread(1140, 8, i -> ByteBuffer.allocate(16).putInt(4).putInt(2_218_008 + i / 100).putInt(4).putInt(i % 100).array());
    }

    /**
     * Nearly every key has a hash code of its own (keys sharing one share a bucket whatever the
     * table's size), and in a table sized as HashMap sizes it no bucket holds more than a few.
     */
    private static void assertSpread(int count, int limit, java.util.function.IntFunction<byte[]> key) {
        java.util.Set<Integer> hashes = new java.util.HashSet<>();
        int buckets = Integer.highestOneBit((int) (count / 0.75)) << 1;
        int[] load = new int[buckets];
        for (int i = 0; i < count; i++) {
            RowKey k = new RowKey(key.apply(i));
            hashes.add(k.hashCode());
            int h = k.hashCode();
            load[(h ^ (h >>> 16)) & (buckets - 1)]++;
        }
        assertThat(hashes.size()).as("distinct hash codes of %d keys", count).isGreaterThanOrEqualTo(count - count / 1000);
        assertThat(Arrays.stream(load).max().orElseThrow()).as("keys in the fullest bucket").isLessThanOrEqualTo(limit);
    }

}
