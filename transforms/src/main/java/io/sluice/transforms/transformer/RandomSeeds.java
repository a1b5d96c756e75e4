package io.sluice.transforms.transformer;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Seeds that ignore the value: every output is a fresh draw, so two rows with one value get
 * unrelated outputs and nothing links them. Nothing of the value goes in, so nothing of it can
 * come out.
 */
public final class RandomSeeds implements Seeds {

    @Override
    public byte[] bytes(String purpose, String value) {
        byte[] b = new byte[32];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    @Override
    public long seed(String purpose, String value) {
        return ThreadLocalRandom.current().nextLong();
    }

    @Override
    public boolean deterministic() {
        return false;
    }
}
