package io.sluice.transforms.transformer;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * Where a transformer's choices come from. Keyed seeds make every choice a function of the value
 * and the secret, so one value gives one output everywhere; random seeds make unrelated choices
 * each time, for users who want no linkage at all.
 */
public interface Seeds {

    /** 32 bytes for {@code value}, under a purpose label that keeps transformers apart. */
    byte[] bytes(String purpose, String value);

    /** Whether the same value always gives the same bytes. */
    boolean deterministic();

    /** A stream of choices for {@code value}: as deterministic as the bytes it is seeded from. */
    default SplittableRandom random(String purpose, String value) {
        return new SplittableRandom(ByteBuffer.wrap(bytes(purpose, value)).getLong());
    }
}
