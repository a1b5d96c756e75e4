package io.sluice.transforms.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SipHashTest {

    /** The test vector of the SipHash paper (appendix A): key 00..0f, message 00..0e. */
    @Test
    void matchesThePapersTestVector() {
        byte[] key = new byte[16];
        for (int i = 0; i < 16; i++) {
            key[i] = (byte) i;
        }
        byte[] message = new byte[15];
        for (int i = 0; i < 15; i++) {
            message[i] = (byte) i;
        }
        assertThat(Long.toHexString(new SipHash(key).hash(message))).isEqualTo("a129ca6149be45e5");
    }
}
