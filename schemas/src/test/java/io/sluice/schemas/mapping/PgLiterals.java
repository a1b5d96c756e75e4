package io.sluice.schemas.mapping;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * Generators of PostgreSQL input literals, one per type, reaching the edges of each type's
 * domain: extreme and special numbers, BC and far-future dates, every Unicode plane, quotes
 * and backslashes inside composite literals.
 */
final class PgLiterals {

    /** PostgreSQL's first date and timestamp: 4714-11-24 BC, ISO year -4713. */
    static final long MIN_DATE_DAY = LocalDate.of(-4713, 11, 24).toEpochDay();
    static final long MAX_DATE_DAY = LocalDate.of(5_874_897, 12, 31).toEpochDay();
    /** PostgreSQL's last timestamp's day: past the year 292277, microseconds since 1970 leave 64 bits. */
    static final long MAX_TIMESTAMP_DAY = LocalDate.of(294_276, 12, 31).toEpochDay();
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    /** Debezium's infinity numbers, and the instants whose microseconds since 1970 (wrapped) they are. */
    private static final long DEBEZIUM_INFINITY = 9_223_372_036_825_200_000L;
    private static final long DEBEZIUM_MINUS_INFINITY = -9_223_372_036_832_400_000L;

    private PgLiterals() {
    }

    static Arbitrary<String> int2() {
        return Arbitraries.shorts().map(String::valueOf);
    }

    static Arbitrary<String> int4() {
        return Arbitraries.integers().map(String::valueOf);
    }

    static Arbitrary<String> int8() {
        return Arbitraries.longs().map(String::valueOf);
    }

    static Arbitrary<String> float4() {
        return Arbitraries.frequencyOf(
                weighted(6, Arbitraries.integers().map(Float::intBitsToFloat).filter(f -> !Float.isNaN(f)).map(f -> Float.toString(f))),
                weighted(3, Arbitraries.floats().between(-1e6f, 1e6f).map(f -> Float.toString(f))),
                weighted(1, Arbitraries.of("NaN", "Infinity", "-Infinity", "-0", "1.4e-45", "3.4028235e38")));
    }

    static Arbitrary<String> float8() {
        return Arbitraries.frequencyOf(
                weighted(6, Arbitraries.longs().map(Double::longBitsToDouble).filter(d -> !Double.isNaN(d)).map(d -> Double.toString(d))),
                weighted(3, Arbitraries.doubles().between(-1e9, 1e9).map(d -> Double.toString(d))),
                weighted(1, Arbitraries.of("NaN", "Infinity", "-Infinity", "-0", "4.9e-324", "1.7976931348623157e308")));
    }

    /** Unconstrained numeric: up to 80 digits, scales up to 40, NaN and infinities. */
    static Arbitrary<String> numeric() {
        Arbitrary<String> finite = Combinators.combine(
                Arbitraries.bigIntegers().between(BigInteger.TEN.pow(80).negate(), BigInteger.TEN.pow(80)),
                Arbitraries.integers().between(0, 40))
                .as((unscaled, scale) -> new BigDecimal(unscaled, scale).toPlainString());
        Arbitrary<String> small = Combinators.combine(Arbitraries.longs().between(-100_000, 100_000), Arbitraries.integers().between(0, 6))
                .as((unscaled, scale) -> new BigDecimal(BigInteger.valueOf(unscaled), scale).toPlainString());
        return Arbitraries.frequencyOf(weighted(5, finite), weighted(4, small),
                weighted(1, Arbitraries.of("NaN", "Infinity", "-Infinity", "0", "0.000", "1e-30", "-1e30")));
    }

    /** Values that fit numeric(precision, scale), and NaN. */
    static Arbitrary<String> numeric(int precision, int scale) {
        Arbitrary<String> fitting = Arbitraries.bigIntegers()
                .between(BigInteger.TEN.pow(precision).negate().add(BigInteger.ONE), BigInteger.TEN.pow(precision).subtract(BigInteger.ONE))
                .map(unscaled -> new BigDecimal(unscaled, scale).toPlainString());
        return Arbitraries.frequencyOf(weighted(9, fitting), weighted(1, Arbitraries.just("NaN")));
    }

    static Arbitrary<String> money() {
        return Arbitraries.longs().between(-9_000_000_000_000_000L, 9_000_000_000_000_000L)
                .map(cents -> BigDecimal.valueOf(cents, 2).toPlainString());
    }

    /** Any Unicode text PostgreSQL can store (no NUL, no lone surrogates), from every plane. */
    static Arbitrary<String> text() {
        Arbitrary<Integer> codePoint = Arbitraries.frequencyOf(
                weightedInt(5, Arbitraries.integers().between(0x20, 0x7E)),
                weightedInt(2, Arbitraries.of((int) '"', (int) '\\', (int) '\'', (int) ',', (int) '{', (int) '}', (int) '(', (int) ')',
                        (int) ' ', (int) '\t', (int) '\n')),
                weightedInt(2, Arbitraries.integers().between(0x80, 0xD7FF)),
                weightedInt(1, Arbitraries.integers().between(0xE000, 0x10FFFF).filter(c -> c <= 0xFFFD || c >= 0x10000)));
        return codePoint.list().ofMaxSize(30).map(points -> points.stream()
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString());
    }

    static Arbitrary<String> asciiWord() {
        return Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(12);
    }

    static Arbitrary<String> bytea() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(b -> "\\x" + HexFormat.of().formatHex(b));
    }

    static Arbitrary<String> bool() {
        return Arbitraries.of("true", "false");
    }

    static Arbitrary<String> date() {
        return Arbitraries.frequencyOf(
                weighted(8, Arbitraries.longs().between(MIN_DATE_DAY, MAX_DATE_DAY).map(d -> date(LocalDate.ofEpochDay(d)))),
                weighted(3, Arbitraries.longs().between(LocalDate.of(1900, 1, 1).toEpochDay(), LocalDate.of(2100, 1, 1).toEpochDay())
                        .map(d -> date(LocalDate.ofEpochDay(d)))),
                weighted(1, Arbitraries.of("infinity", "-infinity", "0001-01-01 BC", "1970-01-01", "2000-01-01", "4714-11-24 BC",
                        "5874897-12-31")));
    }

    static Arbitrary<String> time() {
        return Arbitraries.frequencyOf(
                weighted(9, Arbitraries.longs().between(0, 86_400_000_000L).map(PgLiterals::time)),
                weighted(1, Arbitraries.of("24:00:00", "00:00:00", "23:59:59.999999")));
    }

    static Arbitrary<String> timetz() {
        return Combinators.combine(time(), Arbitraries.integers().between(-15 * 3600 - 3599, 15 * 3600 + 3599))
                .as((t, offset) -> t + ZoneOffset.ofTotalSeconds(offset).getId().replace("Z", "+00:00"));
    }

    static Arbitrary<String> timestamp() {
        return Arbitraries.frequencyOf(
                weighted(8, Combinators.combine(Arbitraries.longs().between(MIN_DATE_DAY, MAX_TIMESTAMP_DAY),
                        Arbitraries.longs().between(0, 86_400_000_000L - 1)).as(PgLiterals::timestamp)),
                weighted(3, Combinators.combine(Arbitraries.longs().between(-25_000, 50_000),
                        Arbitraries.longs().between(0, 86_400_000_000L - 1)).as(PgLiterals::timestamp)),
                weighted(2, Arbitraries.of("infinity", "-infinity", "1970-01-01 00:00:00", "2000-01-01 00:00:00", "4714-11-24 00:00:00 BC",
                        "294276-12-31 23:59:59.999999", timestampOfPg(Long.MAX_VALUE - PG_EPOCH_MICROS),
                        timestampOfPg(Long.MAX_VALUE - PG_EPOCH_MICROS + 1), timestampOfPg(DEBEZIUM_INFINITY - PG_EPOCH_MICROS),
                        timestampOfPg(DEBEZIUM_MINUS_INFINITY - PG_EPOCH_MICROS))));
    }

    /** The literal of a timestamp given as PostgreSQL's microseconds since 2000 (whatever its Unix number). */
    static String timestampOfPg(long pgMicros) {
        return timestamp(Math.floorDiv(pgMicros, 86_400_000_000L) + 10_957, Math.floorMod(pgMicros, 86_400_000_000L));
    }

    static Arbitrary<String> timestamptz() {
        Arbitrary<String> offset = Arbitraries.frequencyOf(weighted(5, Arbitraries.integers().between(-14, 14).map(h -> String.format("%+03d", h))),
                weighted(1, Arbitraries.of("+15:59:59", "-15:59:59", "+05:30", "-00:00:01")));
        // The first and last days take no offset that would move them out of PostgreSQL's range.
        return Combinators.combine(timestamp(), offset)
                .as((ts, o) -> ts.contains("infinity") ? ts
                        : insertOffset(ts, ts.startsWith("294276-") || ts.startsWith("4714-") ? "+00" : o));
    }

    static Arbitrary<String> interval() {
        return Arbitraries.frequencyOf(weighted(8, typicalInterval()), weighted(2, Arbitraries.of(
                "178956970 years 7 mons", "-178956970 years -8 mons", "2147483647 days", "-2147483648 days",
                "2562047788:00:54.775807", "-2562047788:00:54.775807", "0", "1 mon -1 days 1 second",
                "178956970 years 7 mons 2147483647 days 2562047788:00:54.775807")));
    }

    private static Arbitrary<String> typicalInterval() {
        return Combinators.combine(
                Arbitraries.integers().between(-2_000_000, 2_000_000),
                Arbitraries.integers().between(-2_000_000, 2_000_000),
                Arbitraries.longs().between(-3_000_000_000_000_000L, 3_000_000_000_000_000L))
                .as((months, days, micros) -> {
                    long sign = micros < 0 ? -1 : 1;
                    long abs = Math.abs(micros);
                    return months + " mons " + days + " days " + sign * (abs / 3_600_000_000L) + " hours "
                            + sign * (abs / 1_000_000L % 3600) + " seconds " + sign * (abs % 1_000_000L) + " microseconds";
                });
    }

    static Arbitrary<String> uuid() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as((a, b) -> new UUID(a, b).toString());
    }

    static Arbitrary<String> json() {
        return jsonValue(3).map(v -> v.replace(",", ", "));
    }

    static Arbitrary<String> jsonb() {
        return jsonValue(3);
    }

    private static Arbitrary<String> jsonValue(int depth) {
        Arbitrary<String> scalar = Arbitraries.oneOf(
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.doubles().between(-1e6, 1e6).map(d -> BigDecimal.valueOf(d).toPlainString()),
                text().map(PgLiterals::jsonString),
                Arbitraries.of("true", "false", "null"));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<String> array = jsonValue(depth - 1).list().ofMaxSize(4).map(l -> "[" + String.join(",", l) + "]");
        Arbitrary<String> object = Arbitraries.maps(asciiWord(), jsonValue(depth - 1)).ofMaxSize(4)
                .map(m -> m.entrySet().stream().map(e -> jsonString(e.getKey()) + ":" + e.getValue())
                        .collect(Collectors.joining(",", "{", "}")));
        return Arbitraries.frequencyOf(weighted(3, scalar), weighted(1, array), weighted(1, object));
    }

    private static String jsonString(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static Arbitrary<String> xml() {
        return Combinators.combine(asciiWord(), asciiWord(), text())
                .as((tag, attr, body) -> "<" + tag + " " + attr + "=\"" + xmlEscape(body) + "\">" + xmlEscape(body) + "<i/></" + tag + ">");
    }

    private static String xmlEscape(String s) {
        StringBuilder out = new StringBuilder();
        s.codePoints().filter(c -> c == 0x9 || c == 0xA || c >= 0x20 && c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD || c >= 0x10000)
                .forEach(c -> {
                    switch (c) {
                        case '<' -> out.append("&lt;");
                        case '>' -> out.append("&gt;");
                        case '&' -> out.append("&amp;");
                        case '"' -> out.append("&quot;");
                        default -> out.appendCodePoint(c);
                    }
                });
        return out.toString();
    }

    static Arbitrary<String> inet() {
        return Arbitraries.oneOf(
                Combinators.combine(Arbitraries.bytes().array(byte[].class).ofSize(4), Arbitraries.integers().between(0, 32))
                        .as((b, bits) -> ipv4(b) + (bits == 32 ? "" : "/" + bits)),
                Combinators.combine(ipv6Bytes(), Arbitraries.integers().between(0, 128))
                        .as((b, bits) -> ipv6(b) + "/" + bits));
    }

    static Arbitrary<String> cidr() {
        return Arbitraries.oneOf(
                Combinators.combine(Arbitraries.bytes().array(byte[].class).ofSize(4), Arbitraries.integers().between(0, 32))
                        .as((b, bits) -> ipv4(mask(b, bits)) + "/" + bits),
                Combinators.combine(ipv6Bytes(), Arbitraries.integers().between(0, 128))
                        .as((b, bits) -> ipv6(mask(b, bits)) + "/" + bits));
    }

    private static Arbitrary<byte[]> ipv6Bytes() {
        // Zero runs exercise the "::" compression; 0xffff at group 5 the IPv4-mapped form.
        return Arbitraries.integers().between(0, 0xFFFF).injectDuplicates(0.3).list().ofSize(8).map(groups -> {
            byte[] b = new byte[16];
            for (int i = 0; i < 8; i++) {
                int g = groups.get(i) % 3 == 0 ? 0 : groups.get(i);
                b[2 * i] = (byte) (g >>> 8);
                b[2 * i + 1] = (byte) g;
            }
            return b;
        });
    }

    private static byte[] mask(byte[] address, int bits) {
        byte[] b = address.clone();
        for (int i = 0; i < b.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - 8 * i));
            b[i] &= (byte) (0xFF << (8 - keep));
        }
        return b;
    }

    private static String ipv4(byte[] b) {
        return (b[0] & 0xFF) + "." + (b[1] & 0xFF) + "." + (b[2] & 0xFF) + "." + (b[3] & 0xFF);
    }

    private static String ipv6(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            s.append(i == 0 ? "" : ":").append(Integer.toHexString((b[2 * i] & 0xFF) << 8 | (b[2 * i + 1] & 0xFF)));
        }
        return s.toString();
    }

    static Arbitrary<String> macaddr(int bytes) {
        return Arbitraries.bytes().array(byte[].class).ofSize(bytes).map(b -> {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < b.length; i++) {
                s.append(i == 0 ? "" : ":").append(HexFormat.of().toHexDigits(b[i]));
            }
            return s.toString();
        });
    }

    static Arbitrary<String> bits(int minLength, int maxLength) {
        return Arbitraries.strings().withChars('0', '1').ofMinLength(minLength).ofMaxLength(maxLength);
    }

    static Arbitrary<String> tsvector() {
        Arbitrary<String> lexeme = Arbitraries.oneOf(asciiWord(), asciiWord().map(w -> w + "'s"), asciiWord().map(w -> w + "\\x"),
                text().filter(t -> !t.isBlank()));
        Arbitrary<String> position = Combinators.combine(Arbitraries.integers().between(1, 16383), Arbitraries.of("", "A", "B", "C", "D"))
                .as((p, w) -> p + w);
        Arbitrary<String> entry = Combinators.combine(lexeme, position.list().ofMaxSize(3))
                .as((l, ps) -> "'" + l.replace("\\", "\\\\").replace("'", "''") + "'" + (ps.isEmpty() ? "" : ":" + String.join(",", ps)));
        return entry.list().ofMaxSize(6).map(l -> String.join(" ", l));
    }

    static Arbitrary<String> finiteDouble() {
        return Arbitraries.oneOf(Arbitraries.doubles().between(-1e6, 1e6).ofScale(3), Arbitraries.longs()
                .map(Double::longBitsToDouble).filter(d -> !Double.isNaN(d) && !Double.isInfinite(d)))
                .map(d -> Double.toString(d));
    }

    static Arbitrary<String> point() {
        return Combinators.combine(finiteDouble(), finiteDouble()).as((x, y) -> "(" + x + "," + y + ")");
    }

    static Arbitrary<String> line() {
        return Combinators.combine(finiteDouble(), finiteDouble(), finiteDouble())
                // PostgreSQL rejects a line whose A and B are both within 1e-6 of zero.
                .as((a, b, c) -> "{" + (Math.abs(Double.parseDouble(a)) < 1e-5 && Math.abs(Double.parseDouble(b)) < 1e-5 ? "1" : a)
                        + "," + b + "," + c + "}");
    }

    static Arbitrary<String> lseg() {
        return Combinators.combine(point(), point()).as((a, b) -> "[" + a + "," + b + "]");
    }

    static Arbitrary<String> box() {
        return Combinators.combine(point(), point()).as((a, b) -> a + "," + b);
    }

    static Arbitrary<String> path() {
        return Combinators.combine(point().list().ofMinSize(1).ofMaxSize(5), Arbitraries.of(true, false))
                .as((ps, closed) -> (closed ? "(" : "[") + String.join(",", ps) + (closed ? ")" : "]"));
    }

    static Arbitrary<String> polygon() {
        return point().list().ofMinSize(1).ofMaxSize(5).map(ps -> "(" + String.join(",", ps) + ")");
    }

    static Arbitrary<String> circle() {
        return Combinators.combine(point(), Arbitraries.doubles().between(0, 1e9).map(d -> Double.toString(d)))
                .as((c, r) -> "<" + c + "," + r + ">");
    }

    /**
     * A range over an ordered domain: two points drawn from it, put in order, formatted as
     * bounds that are each inclusive, exclusive or unbounded; sometimes {@code empty}.
     */
    static Arbitrary<String> range(Arbitrary<Long> domain, java.util.function.LongFunction<String> format) {
        Arbitrary<String> ranged = Combinators.combine(domain.injectNull(0.15), domain.injectNull(0.15),
                Arbitraries.of("[", "("), Arbitraries.of("]", ")"))
                .as((a, b, open, close) -> {
                    Long lo = a;
                    Long hi = b;
                    if (lo != null && hi != null && lo > hi) {
                        lo = b;
                        hi = a;
                    }
                    return open + quoteBound(lo == null ? null : format.apply(lo)) + ","
                            + quoteBound(hi == null ? null : format.apply(hi)) + close;
                });
        return Arbitraries.frequencyOf(weighted(9, ranged), weighted(1, Arbitraries.just("empty")));
    }

    static String timestamptzOfPg(long pgMicros) {
        return insertOffset(timestampOfPg(pgMicros), "+00");
    }

    /** PostgreSQL's first timestamp and one past its last, as its microseconds since 2000. */
    static final long PG_MIN_MICROS = (MIN_DATE_DAY - 10_957) * 86_400_000_000L;
    static final long PG_END_MICROS = (MAX_TIMESTAMP_DAY + 1 - 10_957) * 86_400_000_000L;

    static Arbitrary<String> multirange(Arbitrary<String> range) {
        return range.filter(r -> !r.equals("empty")).list().ofMaxSize(4).map(rs -> "{" + String.join(",", rs) + "}");
    }

    private static String quoteBound(String bound) {
        return bound == null ? "" : '"' + bound.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    static Arbitrary<String> hstore() {
        Arbitrary<String> key = text();
        return Arbitraries.maps(key, text().injectNull(0.2)).ofMaxSize(5).map(PgLiterals::hstoreLiteral);
    }

    private static String hstoreLiteral(Map<String, String> map) {
        return map.entrySet().stream()
                .map(e -> quoteHstore(e.getKey()) + "=>" + (e.getValue() == null ? "NULL" : quoteHstore(e.getValue())))
                .collect(Collectors.joining(", "));
    }

    private static String quoteHstore(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** A composite literal from field literals (null for NULL). */
    static String record(List<String> fields) {
        return fields.stream().map(f -> f == null ? "" : '"' + f.replace("\\", "\\\\").replace("\"", "\"\"") + '"')
                .collect(Collectors.joining(",", "(", ")"));
    }

    static String date(LocalDate d) {
        int year = d.getYear();
        String ymd = String.format("%04d-%02d-%02d", year <= 0 ? 1 - year : year, d.getMonthValue(), d.getDayOfMonth());
        return year <= 0 ? ymd + " BC" : ymd;
    }

    static String time(long micros) {
        return String.format("%02d:%02d:%02d.%06d", micros / 3_600_000_000L, micros / 60_000_000L % 60,
                micros / 1_000_000L % 60, micros % 1_000_000L);
    }

    private static String timestamp(long day, long micros) {
        LocalDateTime t = LocalDate.ofEpochDay(day).atStartOfDay();
        String date = date(t.toLocalDate());
        String clock = time(micros);
        return date.endsWith(" BC") ? date.substring(0, date.length() - 3) + " " + clock + " BC" : date + " " + clock;
    }

    private static String insertOffset(String timestamp, String offset) {
        return timestamp.endsWith(" BC") ? timestamp.substring(0, timestamp.length() - 3) + offset + " BC" : timestamp + offset;
    }

    private static Tuple2<Integer, Arbitrary<? extends String>> weighted(int weight, Arbitrary<String> arbitrary) {
        return Tuple.of(weight, arbitrary);
    }

    private static Tuple2<Integer, Arbitrary<? extends Integer>> weightedInt(int weight, Arbitrary<Integer> arbitrary) {
        return Tuple.of(weight, arbitrary);
    }
}
