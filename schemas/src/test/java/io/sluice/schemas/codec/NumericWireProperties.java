package io.sluice.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
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

    @Provide
    Arbitrary<BigDecimal> smallDecimals() {
        Arbitrary<Long> unscaled = Arbitraries.oneOf(Arbitraries.longs().between(-999_999_999_999_999L, 999_999_999_999_999L),
                Arbitraries.longs().between(-99_999, 99_999),
                Arbitraries.of(0L, 1L, -1L, 9_999L, 10_000L, 999_999_999_999_999L, -999_999_999_999_999L, 100_000_000_000_000L,
                        1_000_000_000_000L, 123_400_000_000_000L, 5_000L, -50_000L),
                Arbitraries.longs().between(-99_999_999_999L, 99_999_999_999L).map(n -> n * 10_000));
        Arbitrary<Integer> scale = Arbitraries.oneOf(Arbitraries.integers().between(0, 24), Arbitraries.of(0, 1, 3, 4, 5, 8, 15, 16, 1000));
        return Combinators.combine(unscaled, scale).as(BigDecimal::valueOf);
    }

    /** The arithmetic way for up to 15 digits writes the very bytes the general way writes, and reads them back alike. */
    @Property(tries = 3000)
    void smallDecimalsTakeTheShortWayToTheSameBytes(@ForAll("smallDecimals") BigDecimal value) {
        WireBuffer small = new WireBuffer();
        NumericWire.encodeSmall(value, value.scale(), small);
        WireBuffer general = new WireBuffer();
        NumericWire.encodeDigits(value, value.scale(), general);
        assertThat(small.toByteArray()).isEqualTo(general.toByteArray());

        ByteBuffer in = ByteBuffer.wrap(general.toByteArray());
        Object decoded = NumericWire.decode(in.duplicate());
        int ndigits = in.getShort();
        int weight = in.getShort();
        int sign = in.getShort() & 0xFFFF;
        int dscale = in.getShort();
        BigDecimal throughText = ndigits == 0 ? BigDecimal.ZERO.setScale(dscale) : NumericWire.decodeDigits(in, ndigits, weight, sign, dscale);
        assertThat(decoded).isEqualTo(throughText).isEqualTo(value);
    }
}
