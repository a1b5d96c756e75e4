package io.sluice.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The numeric wire format without a server: decoding what was encoded gives back the same decimal, scale included. */
class NumericWireProperties {

    @Property
    void decodingInvertsEncoding(@ForAll BigInteger unscaled, @ForAll @IntRange(min = -20, max = 60) int scale) {
        BigDecimal value = new BigDecimal(unscaled, scale);
        WireBuffer out = new WireBuffer();
        NumericWire.encode(value, out);
        Object decoded = NumericWire.decode(ByteBuffer.wrap(out.toByteArray()));
        // Negative scales are written with display scale 0, as PostgreSQL would store them.
        BigDecimal expected = scale < 0 ? value.setScale(0) : value;
        assertThat(decoded).isEqualTo(expected);
    }

    @Property
    void digitsAreBase10000AndTrimmed(@ForAll BigInteger unscaled, @ForAll @IntRange(min = 0, max = 30) int scale) {
        WireBuffer out = new WireBuffer();
        NumericWire.encode(new BigDecimal(unscaled, scale), out);
        ByteBuffer in = ByteBuffer.wrap(out.toByteArray());
        int ndigits = in.getShort();
        in.getShort();
        in.getShort();
        in.getShort();
        for (int i = 0; i < ndigits; i++) {
            int digit = in.getShort();
            assertThat(digit).isBetween(0, 9999);
            if (i == 0 || i == ndigits - 1) {
                assertThat(digit).isNotZero();
            }
        }
    }
}
