package io.sluice.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The hand-written timestamptz text is java.time's ISO_OFFSET_DATE_TIME exactly: for every
 * instant PostgreSQL stores it writes what the formatter writes, and for any text, well formed or
 * nearly so (fields one past their range, leap days of non-leap years, nine fraction digits and
 * ten, offsets of every form and ±18 hours, lower-case letters, five-digit and signed years), it
 * reads what the formatter reads, or refuses what the formatter refuses.
 */
class IsoInstantsProperties {

    private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_OFFSET_DATE_TIME;
    private static final long PG_EPOCH_SECONDS = TemporalCodecs.PG_EPOCH_DAYS * 86_400L;

    @Provide
    Arbitrary<Long> finiteTimestamps() {
        return new TimestampsProperties().pgTimestamps().filter(pg -> pg != Long.MAX_VALUE && pg != Long.MIN_VALUE);
    }

    @Property(tries = 3000)
    void writesWhatTheFormatterWrites(@ForAll("finiteTimestamps") long pg) {
        long seconds = Math.floorDiv(pg, 1_000_000L) + PG_EPOCH_SECONDS;
        int nanos = (int) Math.floorMod(pg, 1_000_000L) * 1000;
        String expected = java.time.LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC).atOffset(ZoneOffset.UTC).format(ISO);
        assertThat(IsoInstants.format(pg)).isEqualTo(expected);
    }

    @Property(tries = 3000)
    void readsBackWhatItWrites(@ForAll("finiteTimestamps") long pg) {
        assertThat(IsoInstants.parse(IsoInstants.format(pg))).isEqualTo(pg);
    }

    @Provide
    Arbitrary<String> isoLikeTexts() {
        Arbitrary<String> year = Arbitraries.oneOf(Arbitraries.integers().between(0, 9999).map(y -> String.format("%04d", y)),
                Arbitraries.of("0000", "9999", "2000", "1900", "2024", "+10000", "-0001", "+294276", "-4713", "999", "12345", "２０２４"));
        Arbitrary<String> month = Arbitraries.integers().between(0, 13).map(m -> String.format("%02d", m));
        Arbitrary<String> day = Arbitraries.oneOf(Arbitraries.integers().between(0, 32).map(d -> String.format("%02d", d)),
                Arbitraries.of("28", "29", "30", "31"));
        Arbitrary<String> time = Combinators.combine(Arbitraries.integers().between(0, 24), Arbitraries.integers().between(0, 60),
                Arbitraries.integers().between(0, 60), Arbitraries.of("", "", ":", "x"))
                .as((h, m, s, tail) -> String.format("%02d:%02d", h, m) + (tail.equals("x") ? "" : String.format(":%02d", s)));
        Arbitrary<String> fraction = Arbitraries.oneOf(Arbitraries.just(""), Arbitraries.just("."),
                Arbitraries.strings().withChars("0123456789").ofMinLength(1).ofMaxLength(10).map(f -> "." + f),
                Arbitraries.of(".000000", ".999999", ".000000001", ".5", ".1234567890"));
        Arbitrary<String> offset = Arbitraries.oneOf(Arbitraries.of("Z", "z", "+00:00", "-00:00", "+18:00", "-18:00", "+17:59", "+19:00",
                        "+05", "+0530", "+05:30:15", "-03:30:60", "+05:60", "", " Z", "Z "),
                Combinators.combine(Arbitraries.of("+", "-"), Arbitraries.integers().between(0, 19), Arbitraries.integers().between(0, 60))
                        .as((sign, h, m) -> String.format("%s%02d:%02d", sign, h, m)));
        Arbitrary<String> separator = Arbitraries.of("T", "T", "T", "t", " ");
        // Leap days of century years, which only every fourth century has, drawn often enough to be seen.
        Arbitrary<String> leapDays = Arbitraries.of("0000", "0100", "0400", "1600", "1700", "1900", "2000", "2100", "2400", "9900", "2023", "2024")
                .map(y -> y + "-02-29");
        Arbitrary<String> date = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(4, Combinators.combine(year, month, day)
                .as((y, mo, d) -> y + "-" + mo + "-" + d)), net.jqwik.api.Tuple.of(1, leapDays));
        return Combinators.combine(date, separator, time, fraction, offset).as((d, sep, t, f, o) -> d + sep + t + f + o);
    }

    @Property(tries = 5000)
    void readsWhatTheFormatterReads(@ForAll("isoLikeTexts") String text) {
        Object expected;
        try {
            OffsetDateTime t = OffsetDateTime.parse(text, ISO);
            long pg = Math.addExact(Math.multiplyExact(t.toEpochSecond() - PG_EPOCH_SECONDS, 1_000_000L), t.getNano() / 1000);
            expected = pg < Timestamps.PG_MIN || pg >= Timestamps.PG_END ? "refused" : pg;
        } catch (RuntimeException e) {
            expected = "refused";
        }
        Object actual;
        try {
            actual = IsoInstants.parse(text);
        } catch (RuntimeException e) {
            actual = "refused";
        }
        assertThat(actual).as(text).isEqualTo(expected);
    }

    @Example
    void theCommonShapes() {
        assertThat(IsoInstants.parse("2000-01-01T00:00:00Z")).isZero();
        assertThat(IsoInstants.parse("2000-01-01T02:00:00.5+02:00")).isEqualTo(500_000L);
        assertThat(IsoInstants.parse("1999-12-31T23:59:59.9999999Z")).isEqualTo(-1L);
        assertThat(IsoInstants.format(-1L)).isEqualTo("1999-12-31T23:59:59.999999Z");
        assertThat(IsoInstants.format(500_000L)).isEqualTo("2000-01-01T00:00:00.5Z");
    }
}
