package io.sluice.sink.postgres.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.schemas.codec.WireBuffer;
import org.junit.jupiter.api.Test;

class EncodeBuffersTest {

    @Test
    void aBufferGivenBackIsTheNextTakenAndComesEmpty() {
        EncodeBuffers buffers = new EncodeBuffers(2);
        WireBuffer first = buffers.take(1 << 20);
        first.writeInt(42);
        buffers.give(first);

        WireBuffer again = buffers.take(1 << 20);

        assertThat(again).isSameAs(first);
        assertThat(again.size()).isZero();
    }

    @Test
    void keepsNoMoreThanItsCount() {
        EncodeBuffers buffers = new EncodeBuffers(2);
        for (int i = 0; i < 5; i++) {
            buffers.give(new WireBuffer(1 << 20));
        }
        assertThat(buffers.kept()).isEqualTo(2);
    }

    @Test
    void dropsSmallBuffersAndOnesAnOversizedRowGrew() {
        EncodeBuffers buffers = new EncodeBuffers(4);
        buffers.give(new WireBuffer(EncodeBuffers.MIN_KEPT - 1));
        buffers.give(new WireBuffer(EncodeBuffers.MAX_KEPT + 1));
        assertThat(buffers.kept()).isZero();

        buffers.give(new WireBuffer(EncodeBuffers.MIN_KEPT));
        buffers.give(new WireBuffer(EncodeBuffers.MAX_KEPT));
        assertThat(buffers.kept()).isEqualTo(2);
    }

    @Test
    void makesANewBufferOfTheAskedSizeWhenNoneIsKept() {
        WireBuffer fresh = new EncodeBuffers(2).take(1 << 20);
        assertThat(fresh.array().length).isEqualTo(1 << 20);
    }
}
