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

    /** 64 bits for {@code value}, enough to seed a fake's choices; cheaper than {@link #bytes} where the seeds allow. */
    default long seed(String purpose, String value) {
        return ByteBuffer.wrap(bytes(purpose, value)).getLong();
    }

    /** A stream of choices for {@code value}: as deterministic as its seed. */
    default SplittableRandom random(String purpose, String value) {
        return new SplittableRandom(seed(purpose, value));
    }
}
