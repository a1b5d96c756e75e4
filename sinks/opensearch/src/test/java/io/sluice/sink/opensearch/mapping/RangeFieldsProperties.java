package io.sluice.sink.opensearch.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.connect.errors.DataException;

/**
 * Ranges as OpenSearch range fields. Invariants: whatever the bounds — equal, a microsecond apart
 * across a millisecond's edge, before 1970, BC, past the year 9999, infinite, unbounded — the
 * range is one OpenSearch takes (read as it reads date bounds: milliseconds, floored, an exclusive
 * bound moved one millisecond in, it never ends before it starts); every finite bound reads back as
 * exactly the source's; inclusiveness is kept unless the range lies within a millisecond; an
 * infinite or missing bound is left out; an empty range is an empty array.
 */
class RangeFieldsProperties {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final LocalDateTime EPOCH = LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC);
    /** From 4713 BC, as PostgreSQL's timestamps, to the last year a long counts in microseconds (OpenSearch's dates reach further). */
    private static final long MIN_MICROS = ChronoUnit.MICROS.between(EPOCH, LocalDateTime.of(-4712, 1, 1, 0, 0));
    private static final long MAX_MICROS = ChronoUnit.MICROS.between(EPOCH, LocalDateTime.of(292276, 12, 31, 23, 59, 59, 999_999_000));

    @Provide
    Arbitrary<Long> micros() {
        long edge = 1_700_000_000_000_000L;
        return Arbitraries.oneOf(Arbitraries.longs().between(MIN_MICROS, MAX_MICROS),
                Arbitraries.longs().between(edge - 3000, edge + 3000), // a few milliseconds, to meet their edges
                Arbitraries.longs().between(-3000, 3000), // around 1970, where flooring and truncating differ
                Arbitraries.of(MIN_MICROS, MAX_MICROS, 253_402_300_800_000_000L, -62_135_596_800_000_000L));
    }

    @Property(tries = 3000)
    void timestampRangesAreTakenAndReadBackExactly(@ForAll("micros") long a, @ForAll("micros") long b,
                                                   @ForAll boolean lowerInclusive, @ForAll boolean upperInclusive,
                                                   @ForAll("ends") String lowerEnd, @ForAll("ends") String upperEnd) throws Exception {
        long lower = Math.min(a, b);
        long upper = Math.max(a, b);
        if (lower == upper && !(lowerInclusive && upperInclusive)) {
            return; // PostgreSQL makes such a range empty: its text is "empty"
        }
        String lowerText = lowerEnd.equals("finite") ? quoted(pgTimestamp(lower)) : lowerEnd.equals("infinite") ? "-infinity" : "";
        String upperText = upperEnd.equals("finite") ? quoted(pgTimestamp(upper)) : upperEnd.equals("infinite") ? "infinity" : "";
        String text = (lowerInclusive && !lowerText.isEmpty() ? "[" : "(") + lowerText + "," + upperText
                + (upperInclusive && !upperText.isEmpty() ? "]" : ")");
        JsonNode range = write("tsrange", text);

        boolean bothFinite = lowerEnd.equals("finite") && upperEnd.equals("finite");
        boolean withinAMilli = bothFinite && (!lowerInclusive || !upperInclusive)
                && Math.floorDiv(lower, 1000) + (lowerInclusive ? 0 : 1) > Math.floorDiv(upper, 1000) - (upperInclusive ? 0 : 1);
        assertBound(range, "gt", lowerEnd, lower, lowerInclusive || withinAMilli, text);
        assertBound(range, "lt", upperEnd, upper, upperInclusive || withinAMilli, text);
        assertThat(range.size()).as(text).isEqualTo((lowerEnd.equals("finite") ? 1 : 0) + (upperEnd.equals("finite") ? 1 : 0));
        if (bothFinite) {
            long from = Math.floorDiv(micros(range.has("gte") ? range.get("gte") : range.get("gt")), 1000) + (range.has("gt") ? 1 : 0);
            long to = Math.floorDiv(micros(range.has("lte") ? range.get("lte") : range.get("lt")), 1000) - (range.has("lt") ? 1 : 0);
            assertThat(from).as("%s written as %s: OpenSearch would refuse it", text, range).isLessThanOrEqualTo(to);
        }
    }

    @Provide
    Arbitrary<String> ends() {
        return Arbitraries.of("finite", "finite", "finite", "infinite", "unbounded");
    }

    @Property(tries = 1000)
    void integerRangesKeepTheirBounds(@ForAll long a, @ForAll long b) throws Exception {
        long lower = Math.min(a, b);
        long upper = Math.max(a, b);
        JsonNode range = write("int8range", "[" + lower + "," + upper + "]");
        assertThat(range.get("gte").longValue()).isEqualTo(lower);
        assertThat(range.get("lte").longValue()).isEqualTo(upper);
        assertThat(range.get("gte").isIntegralNumber()).isTrue();
    }

    @Property(tries = 200)
    void multirangesAreArraysOfRanges(@ForAll("dates") java.util.List<Integer> days) throws Exception {
        java.util.List<Integer> sorted = days.stream().sorted().distinct().toList();
        StringBuilder text = new StringBuilder("{");
        for (int i = 0; i + 1 < sorted.size(); i += 2) {
            text.append(text.length() > 1 ? "," : "").append('[').append(pgDate(sorted.get(i))).append(',').append(pgDate(sorted.get(i + 1)))
                    .append(')');
        }
        JsonNode ranges = write("datemultirange", text.append('}').toString());
        assertThat(ranges.isArray()).isTrue();
        assertThat(ranges.size()).isEqualTo(sorted.size() / 2);
        Iterator<JsonNode> it = ranges.elements();
        for (int i = 0; i + 1 < sorted.size(); i += 2) {
            JsonNode range = it.next();
            assertThat(range.get("gte").asText()).isEqualTo(java.time.LocalDate.ofEpochDay(sorted.get(i)).toString());
            assertThat(range.get("lt").asText()).isEqualTo(java.time.LocalDate.ofEpochDay(sorted.get(i + 1)).toString());
        }
    }

    @Provide
    Arbitrary<java.util.List<Integer>> dates() {
        int min = (int) java.time.LocalDate.of(-4712, 1, 1).toEpochDay();
        int max = (int) java.time.LocalDate.of(99999, 12, 31).toEpochDay();
        return Arbitraries.integers().between(min, max).list().ofMaxSize(8);
    }

    @Property(tries = 10)
    void emptyIsAnEmptyArrayAndNaNStaysAsText(@ForAll boolean multi) throws Exception {
        assertThat(write(multi ? "nummultirange" : "numrange", multi ? "{}" : "empty").toString()).isEqualTo("[]");
        assertThat(write("numrange", "[1.50,NaN]").toString()).isEqualTo("{\"gte\":\"1.50\",\"lte\":\"NaN\"}");
        assertThat(write("numrange", "(-Infinity,Infinity)").toString()).isEqualTo("{}");
    }

    @Property(tries = 10)
    void aMalformedRangeNamesItself(@ForAll boolean multi) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> write(multi ? "int4multirange" : "int4range", "[1,x)"))
                .isInstanceOf(DataException.class).hasMessageContaining("[1,x)");
    }

    private static void assertBound(JsonNode range, String exclusive, String end, long expected, boolean inclusive, String text) {
        String inclusiveName = exclusive + "e";
        if (!end.equals("finite")) {
            assertThat(range.has(exclusive) || range.has(inclusiveName)).as("%s: an open end written as %s", text, range).isFalse();
            return;
        }
        String name = inclusive ? inclusiveName : exclusive;
        assertThat(range.has(name)).as("%s written as %s: %s expected", text, range, name).isTrue();
        assertThat(micros(range.get(name))).as("%s written as %s", text, range).isEqualTo(expected);
    }

    private static JsonNode write(String pgType, String text) throws Exception {
        StringWriter json = new StringWriter();
        try (JsonGenerator out = JSON.getFactory().createGenerator(json)) {
            RangeFields.write(RangeFields.of(pgType), text, out);
        }
        return JSON.readTree(json.toString());
    }

    private static long micros(JsonNode iso) {
        LocalDateTime at = LocalDateTime.parse(iso.asText());
        return ChronoUnit.MICROS.between(EPOCH, at);
    }

    /** A timestamp as PostgreSQL writes it with DateStyle ISO: {@code 2024-05-01 10:15:30.5}, BC years with a suffix. */
    private static String pgTimestamp(long micros) {
        LocalDateTime at = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000), (int) Math.floorMod(micros, 1_000_000) * 1000,
                ZoneOffset.UTC);
        int year = at.getYear();
        String fraction = at.getNano() == 0 ? "" : ("." + String.format("%06d", at.getNano() / 1000)).replaceAll("0+$", "");
        return String.format("%04d-%02d-%02d %02d:%02d:%02d%s%s", year > 0 ? year : 1 - year, at.getMonthValue(), at.getDayOfMonth(),
                at.getHour(), at.getMinute(), at.getSecond(), fraction, year > 0 ? "" : " BC");
    }

    private static String pgDate(int days) {
        java.time.LocalDate d = java.time.LocalDate.ofEpochDay(days);
        int year = d.getYear();
        return String.format("%04d-%02d-%02d%s", year > 0 ? year : 1 - year, d.getMonthValue(), d.getDayOfMonth(), year > 0 ? "" : " BC");
    }

    private static String quoted(String s) {
        return "\"" + s + "\"";
    }
}
