package io.sluice.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.connect.errors.DataException;

/**
 * Every timestamp PostgreSQL stores, its two infinities included, has one {@code MicroTimestamp}
 * value and comes back from it unchanged: the mapping is a bijection onto its image. Values are
 * drawn with weight on the edges: the first and last timestamps, the year 292277 where
 * microseconds since 1970 leave 64 bits, and the instants whose number is an infinity's.
 */
class TimestampsProperties {

    private static final long E = Timestamps.PG_EPOCH_MICROS;
    /** The last PostgreSQL timestamp whose Unix-epoch microseconds fit 64 bits. */
    private static final long LAST_UNWRAPPED = Long.MAX_VALUE - E;

    @Provide
    Arbitrary<Long> pgTimestamps() {
        Arbitrary<Long> anywhere = Arbitraries.longs().between(Timestamps.PG_MIN, Timestamps.PG_END - 1);
        Arbitrary<Long> nearWrap = Arbitraries.longs().between(LAST_UNWRAPPED - 1_000_000, LAST_UNWRAPPED + 1_000_000);
        Arbitrary<Long> nearEnds = Arbitraries.oneOf(Arbitraries.longs().between(Timestamps.PG_MIN, Timestamps.PG_MIN + 1_000_000),
                Arbitraries.longs().between(Timestamps.PG_END - 1_000_000, Timestamps.PG_END - 1));
        Arbitrary<Long> edges = Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE, Timestamps.PG_MIN, Timestamps.PG_END - 1, LAST_UNWRAPPED,
                LAST_UNWRAPPED + 1, Timestamps.POSITIVE_INFINITY - E, Timestamps.NEGATIVE_INFINITY - E, 0L, -E, -1L);
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(4, anywhere), net.jqwik.api.Tuple.of(2, nearWrap),
                net.jqwik.api.Tuple.of(2, nearEnds), net.jqwik.api.Tuple.of(3, edges));
    }

    @Property(tries = 2000)
    void everyPostgresTimestampComesBack(@ForAll("pgTimestamps") long pg) {
        assertThat(Timestamps.toPg(Timestamps.toConnect(pg))).isEqualTo(pg);
    }

    @Property(tries = 2000)
    void binaryDecodeAndEncodeAreInverse(@ForAll("pgTimestamps") long pg) {
        Object value = TemporalCodecs.TIMESTAMP.fromBinary(ByteBuffer.allocate(8).putLong(0, pg));
        WireBuffer out = new WireBuffer();
        TemporalCodecs.TIMESTAMP.toBinary(value, out);
        assertThat(ByteBuffer.wrap(out.toByteArray()).getLong()).isEqualTo(pg);
    }

    @Property(tries = 2000)
    void onlyTheInfinitiesMapToTheInfinityValues(@ForAll("pgTimestamps") long pg) {
        long connect = Timestamps.toConnect(pg);
        boolean infinite = pg == Long.MAX_VALUE || pg == Long.MIN_VALUE;
        assertThat(Timestamps.isInfinite(connect)).isEqualTo(infinite);
    }

    @Property(tries = 2000)
    void finiteValuesUpToTheYear292277AreMicrosecondsSince1970(@ForAll("pgTimestamps") long pg) {
        if (pg == Long.MAX_VALUE || pg == Long.MIN_VALUE || pg > LAST_UNWRAPPED || pg + E == Timestamps.POSITIVE_INFINITY) {
            return;
        }
        assertThat(Timestamps.toConnect(pg)).isEqualTo(pg + E);
    }

    @Property(tries = 2000)
    void textAndBinaryAgreeOnTimestamptz(@ForAll("pgTimestamps") long pg) {
        if (pg == Long.MAX_VALUE || pg == Long.MIN_VALUE) {
            return;
        }
        String iso = (String) TemporalCodecs.TIMESTAMPTZ.fromBinary(ByteBuffer.allocate(8).putLong(0, pg));
        assertThat(TemporalCodecs.pgMicrosOfIso(iso)).isEqualTo(pg);
    }

    @Example
    void infinitiesAreDebeziumsValues() {
        assertThat(TemporalCodecs.TIMESTAMP.fromText("infinity")).isEqualTo(9_223_372_036_825_200_000L);
        assertThat(TemporalCodecs.TIMESTAMP.fromText("-infinity")).isEqualTo(-9_223_372_036_832_400_000L);
    }

    @Example
    void theLastTimestampPostgresStoresParsesAndWraps() {
        Object last = TemporalCodecs.TIMESTAMP.fromText("294276-12-31 23:59:59.999999");
        assertThat(Timestamps.toPg((Long) last)).isEqualTo(Timestamps.PG_END - 1);
        assertThat((Long) last).isNegative();
        assertThat(TemporalCodecs.TIMESTAMPTZ.fromText("294276-12-31 23:59:59.999999+00")).isEqualTo("+294276-12-31T23:59:59.999999Z");
    }

    @Example
    void theFirstTimestampPostgresStoresIsMicrosecondsSince1970() {
        long first = LocalDateTime.of(-4713, 11, 24, 0, 0).toEpochSecond(ZoneOffset.UTC) * 1_000_000L;
        assertThat(TemporalCodecs.TIMESTAMP.fromText("4714-11-24 00:00:00 BC")).isEqualTo(first);
    }

    @Example
    void numbersNoTimestampMapsToAreRefused() {
        assertThatThrownBy(() -> Timestamps.toPg(-1_000_000_000_000_000_000L)).isInstanceOf(DataException.class)
                .hasMessageContaining("outside what PostgreSQL stores");
    }
}
