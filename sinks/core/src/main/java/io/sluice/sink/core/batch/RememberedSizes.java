package io.sluice.sink.core.batch;

import java.util.OptionalLong;

/**
 * Where a sink keeps the batch sizes its tuners last settled on, on its target, so that the next
 * run starts its search there instead of at the configured size: the link to a target changes
 * seldom, and a search that starts far from the best size spends batches at slow sizes.
 * A remembered size is only where a search starts; it is measured like any other.
 */
public interface RememberedSizes {

    /** Nothing is remembered and nothing is kept. */
    RememberedSizes NONE = new RememberedSizes() {
        @Override
        public OptionalLong read(String batches) {
            return OptionalLong.empty();
        }

        @Override
        public void write(String batches, long bytes, double bytesPerSecond) {
        }
    };

    /**
     * The size last tuned to for these batches; empty when none is known. Must not fail: a size
     * that cannot be read is one not known.
     *
     * @param batches which batches ({@code snapshot-copy}, {@code stream-apply})
     */
    OptionalLong read(String batches);

    /**
     * Keeps a size tuned to, without making the caller (a thread writing batches) wait for the
     * target. Must not fail: a size that cannot be kept is searched for again next time.
     */
    void write(String batches, long bytes, double bytesPerSecond);
}
