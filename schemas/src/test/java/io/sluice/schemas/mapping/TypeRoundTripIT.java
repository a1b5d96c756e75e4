package io.sluice.schemas.mapping;

import java.math.BigDecimal;
import java.util.List;
import java.util.Set;

import io.sluice.schemas.codec.NumericCodec.NumericMode;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * For every PostgreSQL type Sluice maps: values written into a real column and read back
 * through Sluice's text and binary decoders decode to the same Connect value, and that value
 * written back with Sluice's binary COPY encoder is the same value to PostgreSQL. Each
 * property covers the scalar column, a one-dimensional array column with NULL elements and a
 * two-dimensional array column (see {@link RoundTrip}).
 */
class TypeRoundTripIT {

    private static final int TRIES = 40;
    private static final MappingOptions EXACT = MappingOptions.DEFAULTS;
    private static final String MOOD_LABELS = "'sad', 'ok', 'happy', 'with space', 'quo\"te', 'back\\slash', 'ünï'";

    private static TestDatabase db;
    private static RoundTrip roundTrip;

    @BeforeContainer
    static void start() throws Exception {
        db = TestDatabases.create(TypeRoundTripIT.class);
        roundTrip = new RoundTrip(db);
        roundTrip.setup("CREATE EXTENSION IF NOT EXISTS hstore");
        roundTrip.setup("CREATE EXTENSION IF NOT EXISTS citext");
        roundTrip.setup("CREATE TYPE rt_mood AS ENUM (" + MOOD_LABELS + ")");
        roundTrip.setup("CREATE DOMAIN rt_positive AS int CHECK (VALUE > 0)");
        roundTrip.setup("CREATE DOMAIN rt_price AS numeric(10,2)");
        roundTrip.setup("CREATE TYPE rt_address AS (street text, number int, tags text[], at timestamptz, price rt_price, mood rt_mood)");
    }

    @AfterContainer
    static void stop() throws Exception {
        if (roundTrip != null) {
            roundTrip.close();
        }
        if (db != null) {
            TestDatabases.drop(db);
        }
    }

    private static Arbitrary<List<String>> rows(Arbitrary<String> literal) {
        return literal.injectNull(0.1).list().ofMinSize(1).ofMaxSize(10);
    }

    private static void check(String type, List<String> values) throws Exception {
        roundTrip.check(type, values, EXACT);
    }

    // --- numbers -----------------------------------------------------------------------------

    @Property(tries = TRIES)
    void smallint(@ForAll("int2") List<String> values) throws Exception {
        check("int2", values);
    }

    @Provide
    Arbitrary<List<String>> int2() {
        return rows(PgLiterals.int2());
    }

    @Property(tries = TRIES)
    void integer(@ForAll("int4") List<String> values) throws Exception {
        check("int4", values);
    }

    @Provide
    Arbitrary<List<String>> int4() {
        return rows(PgLiterals.int4());
    }

    @Property(tries = TRIES)
    void bigint(@ForAll("int8") List<String> values) throws Exception {
        check("int8", values);
    }

    @Provide
    Arbitrary<List<String>> int8() {
        return rows(PgLiterals.int8());
    }

    @Property(tries = TRIES)
    void real(@ForAll("float4") List<String> values) throws Exception {
        check("float4", values);
    }

    @Provide
    Arbitrary<List<String>> float4() {
        return rows(PgLiterals.float4());
    }

    @Property(tries = TRIES)
    void doublePrecision(@ForAll("float8") List<String> values) throws Exception {
        check("float8", values);
    }

    @Provide
    Arbitrary<List<String>> float8() {
        return rows(PgLiterals.float8());
    }

    @Property(tries = TRIES)
    void numericExact(@ForAll("numeric") List<String> values) throws Exception {
        check("numeric", values);
    }

    @Provide
    Arbitrary<List<String>> numeric() {
        return rows(PgLiterals.numeric());
    }

    @Property(tries = TRIES)
    void numericWithScaleExact(@ForAll("numeric12x4") List<String> values) throws Exception {
        check("numeric(12,4)", values);
    }

    @Provide
    Arbitrary<List<String>> numeric12x4() {
        return rows(PgLiterals.numeric(12, 4));
    }

    @Property(tries = TRIES)
    void numericPrecise(@ForAll("finiteNumeric") List<String> values) throws Exception {
        roundTrip.check("numeric", values, EXACT.withNumericMode(NumericMode.PRECISE));
    }

    @Provide
    Arbitrary<List<String>> finiteNumeric() {
        return rows(PgLiterals.numeric().filter(n -> !n.contains("N") && !n.contains("I")));
    }

    @Property(tries = TRIES)
    void numericWithScalePrecise(@ForAll("finiteNumeric12x4") List<String> values) throws Exception {
        roundTrip.check("numeric(12,4)", values, EXACT.withNumericMode(NumericMode.PRECISE));
    }

    @Property(tries = TRIES)
    void numericWithScaleAsDouble(@ForAll("finiteNumeric12x4") List<String> values) throws Exception {
        // Twelve significant digits survive a double, so even this lossy mode must round-trip here.
        roundTrip.check("numeric(12,4)", values, EXACT.withNumericMode(NumericMode.DOUBLE));
    }

    @Provide
    Arbitrary<List<String>> finiteNumeric12x4() {
        return rows(PgLiterals.numeric(12, 4).filter(n -> !n.equals("NaN")));
    }

    @Property(tries = TRIES)
    void money(@ForAll("moneys") List<String> values) throws Exception {
        check("money", values);
    }

    @Provide
    Arbitrary<List<String>> moneys() {
        return rows(PgLiterals.money());
    }

    // --- text and bytes ----------------------------------------------------------------------

    @Property(tries = TRIES)
    void text(@ForAll("texts") List<String> values) throws Exception {
        check("text", values);
    }

    @Provide
    Arbitrary<List<String>> texts() {
        return rows(PgLiterals.text());
    }

    @Property(tries = TRIES)
    void varchar(@ForAll("shortTexts") List<String> values) throws Exception {
        check("varchar(20)", values);
    }

    @Property(tries = TRIES)
    void bpchar(@ForAll("shortTexts") List<String> values) throws Exception {
        check("char(20)", values);
    }

    @Provide
    Arbitrary<List<String>> shortTexts() {
        return rows(PgLiterals.text().filter(t -> t.codePointCount(0, t.length()) <= 20));
    }

    @Property(tries = TRIES)
    void name(@ForAll("names") List<String> values) throws Exception {
        check("name", values);
    }

    @Provide
    Arbitrary<List<String>> names() {
        return rows(PgLiterals.text().filter(t -> t.getBytes(java.nio.charset.StandardCharsets.UTF_8).length < 64));
    }

    @Property(tries = TRIES)
    void singleByteChar(@ForAll("chars") List<String> values) throws Exception {
        check("\"char\"", values);
    }

    @Provide
    Arbitrary<List<String>> chars() {
        // The empty "char" is the zero byte.
        return rows(Arbitraries.oneOf(Arbitraries.chars().range('!', '~').map(String::valueOf),
                Arbitraries.integers().between(128, 255).map(b -> String.format("\\%03o", b)), Arbitraries.of("", " ", "\\001")));
    }

    @Property(tries = TRIES)
    void bytea(@ForAll("byteas") List<String> values) throws Exception {
        check("bytea", values);
    }

    @Provide
    Arbitrary<List<String>> byteas() {
        return rows(PgLiterals.bytea());
    }

    @Property(tries = TRIES)
    void bool(@ForAll("bools") List<String> values) throws Exception {
        check("bool", values);
    }

    @Provide
    Arbitrary<List<String>> bools() {
        return rows(PgLiterals.bool());
    }

    // --- date and time -----------------------------------------------------------------------

    @Property(tries = TRIES)
    void date(@ForAll("dates") List<String> values) throws Exception {
        check("date", values);
    }

    @Provide
    Arbitrary<List<String>> dates() {
        return rows(PgLiterals.date());
    }

    @Property(tries = TRIES)
    void time(@ForAll("times") List<String> values) throws Exception {
        check("time", values);
    }

    @Provide
    Arbitrary<List<String>> times() {
        return rows(PgLiterals.time());
    }

    @Property(tries = TRIES)
    void timetz(@ForAll("timetzs") List<String> values) throws Exception {
        check("timetz", values);
    }

    @Provide
    Arbitrary<List<String>> timetzs() {
        return rows(PgLiterals.timetz());
    }

    @Property(tries = TRIES)
    void timestamp(@ForAll("timestamps") List<String> values) throws Exception {
        check("timestamp", values);
    }

    @Provide
    Arbitrary<List<String>> timestamps() {
        return rows(PgLiterals.timestamp());
    }

    @Property(tries = TRIES)
    void timestamptz(@ForAll("timestamptzs") List<String> values) throws Exception {
        check("timestamptz", values);
    }

    @Provide
    Arbitrary<List<String>> timestamptzs() {
        return rows(PgLiterals.timestamptz());
    }

    @Property(tries = TRIES)
    void interval(@ForAll("intervals") List<String> values) throws Exception {
        check("interval", values);
    }

    @Provide
    Arbitrary<List<String>> intervals() {
        return rows(PgLiterals.interval());
    }

    // --- structured text ---------------------------------------------------------------------

    @Property(tries = TRIES)
    void uuid(@ForAll("uuids") List<String> values) throws Exception {
        check("uuid", values);
    }

    @Provide
    Arbitrary<List<String>> uuids() {
        return rows(PgLiterals.uuid());
    }

    @Property(tries = TRIES)
    void json(@ForAll("jsons") List<String> values) throws Exception {
        check("json", values);
    }

    @Provide
    Arbitrary<List<String>> jsons() {
        return rows(PgLiterals.json());
    }

    @Property(tries = TRIES)
    void jsonb(@ForAll("jsonbs") List<String> values) throws Exception {
        check("jsonb", values);
    }

    @Provide
    Arbitrary<List<String>> jsonbs() {
        return rows(PgLiterals.jsonb());
    }

    @Property(tries = TRIES)
    void xml(@ForAll("xmls") List<String> values) throws Exception {
        check("xml", values);
    }

    @Provide
    Arbitrary<List<String>> xmls() {
        return rows(PgLiterals.xml());
    }

    @Property(tries = TRIES)
    void tsvector(@ForAll("tsvectors") List<String> values) throws Exception {
        check("tsvector", values);
    }

    @Provide
    Arbitrary<List<String>> tsvectors() {
        return rows(PgLiterals.tsvector());
    }

    // --- network and bits --------------------------------------------------------------------

    @Property(tries = TRIES)
    void inet(@ForAll("inets") List<String> values) throws Exception {
        check("inet", values);
    }

    @Provide
    Arbitrary<List<String>> inets() {
        return rows(PgLiterals.inet());
    }

    @Property(tries = TRIES)
    void cidr(@ForAll("cidrs") List<String> values) throws Exception {
        check("cidr", values);
    }

    @Provide
    Arbitrary<List<String>> cidrs() {
        return rows(PgLiterals.cidr());
    }

    @Property(tries = TRIES)
    void macaddr(@ForAll("macaddrs") List<String> values) throws Exception {
        check("macaddr", values);
    }

    @Provide
    Arbitrary<List<String>> macaddrs() {
        return rows(PgLiterals.macaddr(6));
    }

    @Property(tries = TRIES)
    void macaddr8(@ForAll("macaddr8s") List<String> values) throws Exception {
        check("macaddr8", values);
    }

    @Provide
    Arbitrary<List<String>> macaddr8s() {
        return rows(PgLiterals.macaddr(8));
    }

    @Property(tries = TRIES)
    void singleBit(@ForAll("bit1") List<String> values) throws Exception {
        check("bit(1)", values);
    }

    @Provide
    Arbitrary<List<String>> bit1() {
        return rows(PgLiterals.bits(1, 1));
    }

    @Property(tries = TRIES)
    void fixedBits(@ForAll("bit12") List<String> values) throws Exception {
        check("bit(12)", values);
    }

    @Provide
    Arbitrary<List<String>> bit12() {
        return rows(PgLiterals.bits(12, 12));
    }

    @Property(tries = TRIES)
    void varbit(@ForAll("varbits") List<String> values) throws Exception {
        check("varbit(40)", values);
    }

    @Provide
    Arbitrary<List<String>> varbits() {
        return rows(PgLiterals.bits(0, 40));
    }

    // --- geometry ----------------------------------------------------------------------------

    @Property(tries = TRIES)
    void point(@ForAll("points") List<String> values) throws Exception {
        check("point", values);
    }

    @Provide
    Arbitrary<List<String>> points() {
        return rows(PgLiterals.point());
    }

    @Property(tries = TRIES)
    void line(@ForAll("lines") List<String> values) throws Exception {
        check("line", values);
    }

    @Provide
    Arbitrary<List<String>> lines() {
        return rows(PgLiterals.line());
    }

    @Property(tries = TRIES)
    void lseg(@ForAll("lsegs") List<String> values) throws Exception {
        check("lseg", values);
    }

    @Provide
    Arbitrary<List<String>> lsegs() {
        return rows(PgLiterals.lseg());
    }

    @Property(tries = TRIES)
    void box(@ForAll("boxes") List<String> values) throws Exception {
        check("box", values);
    }

    @Provide
    Arbitrary<List<String>> boxes() {
        return rows(PgLiterals.box());
    }

    @Property(tries = TRIES)
    void path(@ForAll("paths") List<String> values) throws Exception {
        check("path", values);
    }

    @Provide
    Arbitrary<List<String>> paths() {
        return rows(PgLiterals.path());
    }

    @Property(tries = TRIES)
    void polygon(@ForAll("polygons") List<String> values) throws Exception {
        check("polygon", values);
    }

    @Provide
    Arbitrary<List<String>> polygons() {
        return rows(PgLiterals.polygon());
    }

    @Property(tries = TRIES)
    void circle(@ForAll("circles") List<String> values) throws Exception {
        check("circle", values);
    }

    @Provide
    Arbitrary<List<String>> circles() {
        return rows(PgLiterals.circle());
    }

    // --- ranges and multiranges --------------------------------------------------------------

    private static Arbitrary<Long> ints() {
        return Arbitraries.longs().between(-2_000_000_000L, 2_000_000_000L);
    }

    private static Arbitrary<Long> longs() {
        return Arbitraries.longs().between(Long.MIN_VALUE / 2, Long.MAX_VALUE / 2);
    }

    private static Arbitrary<Long> days() {
        return Arbitraries.longs().between(PgLiterals.MIN_DATE_DAY, PgLiterals.MAX_DATE_DAY - 2);
    }

    /** PostgreSQL's microseconds since 2000, over its whole range. */
    private static Arbitrary<Long> micros() {
        return Arbitraries.longs().between(PgLiterals.PG_MIN_MICROS, PgLiterals.PG_END_MICROS - 1);
    }

    private static Arbitrary<String> int4range() {
        return PgLiterals.range(ints(), Long::toString);
    }

    private static Arbitrary<String> int8range() {
        return PgLiterals.range(longs(), Long::toString);
    }

    private static Arbitrary<String> numrange() {
        return withSpecialBounds(PgLiterals.range(longs(), l -> BigDecimal.valueOf(l, 5).toPlainString()),
                "[-Infinity,Infinity]", "(0,Infinity)", "[-Infinity,-1.5]");
    }

    private static Arbitrary<String> daterange() {
        return withSpecialBounds(PgLiterals.range(days(), d -> PgLiterals.date(java.time.LocalDate.ofEpochDay(d))),
                "[-infinity,infinity]", "[2000-01-01,infinity)", "(-infinity,\"4714-11-24 BC\"]");
    }

    private static Arbitrary<String> tsrange() {
        return withSpecialBounds(PgLiterals.range(micros(), PgLiterals::timestampOfPg),
                "[-infinity,infinity]", "[\"294276-12-31 23:59:59.999999\",infinity)", "(-infinity,\"4714-11-24 00:00:00 BC\"]");
    }

    private static Arbitrary<String> tstzrange() {
        return withSpecialBounds(PgLiterals.range(micros(), PgLiterals::timestamptzOfPg),
                "[-infinity,infinity]", "[\"294276-12-31 23:59:59.999999+00\",infinity)", "(-infinity,\"2000-01-01 00:00:00+15:59\"]");
    }

    /** Ranges whose bounds are the domain's special values, drawn often enough to show up in every run. */
    private static Arbitrary<String> withSpecialBounds(Arbitrary<String> ranges, String... special) {
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, ranges), net.jqwik.api.Tuple.of(1, Arbitraries.of(special)));
    }

    @Property(tries = TRIES)
    void int4range(@ForAll("int4ranges") List<String> values) throws Exception {
        check("int4range", values);
    }

    @Provide
    Arbitrary<List<String>> int4ranges() {
        return rows(int4range());
    }

    @Property(tries = TRIES)
    void int8range(@ForAll("int8ranges") List<String> values) throws Exception {
        check("int8range", values);
    }

    @Provide
    Arbitrary<List<String>> int8ranges() {
        return rows(int8range());
    }

    @Property(tries = TRIES)
    void numrange(@ForAll("numranges") List<String> values) throws Exception {
        check("numrange", values);
    }

    @Provide
    Arbitrary<List<String>> numranges() {
        return rows(numrange());
    }

    @Property(tries = TRIES)
    void daterange(@ForAll("dateranges") List<String> values) throws Exception {
        check("daterange", values);
    }

    @Provide
    Arbitrary<List<String>> dateranges() {
        return rows(daterange());
    }

    @Property(tries = TRIES)
    void tsrange(@ForAll("tsranges") List<String> values) throws Exception {
        check("tsrange", values);
    }

    @Provide
    Arbitrary<List<String>> tsranges() {
        return rows(tsrange());
    }

    @Property(tries = TRIES)
    void tstzrange(@ForAll("tstzranges") List<String> values) throws Exception {
        check("tstzrange", values);
    }

    @Provide
    Arbitrary<List<String>> tstzranges() {
        return rows(tstzrange());
    }

    @Property(tries = TRIES)
    void int4multirange(@ForAll("int4multiranges") List<String> values) throws Exception {
        check("int4multirange", values);
    }

    @Provide
    Arbitrary<List<String>> int4multiranges() {
        return rows(PgLiterals.multirange(int4range()));
    }

    @Property(tries = TRIES)
    void int8multirange(@ForAll("int8multiranges") List<String> values) throws Exception {
        check("int8multirange", values);
    }

    @Provide
    Arbitrary<List<String>> int8multiranges() {
        return rows(PgLiterals.multirange(int8range()));
    }

    @Property(tries = TRIES)
    void nummultirange(@ForAll("nummultiranges") List<String> values) throws Exception {
        check("nummultirange", values);
    }

    @Provide
    Arbitrary<List<String>> nummultiranges() {
        return rows(PgLiterals.multirange(numrange()));
    }

    @Property(tries = TRIES)
    void datemultirange(@ForAll("datemultiranges") List<String> values) throws Exception {
        check("datemultirange", values);
    }

    @Provide
    Arbitrary<List<String>> datemultiranges() {
        return rows(PgLiterals.multirange(daterange()));
    }

    @Property(tries = TRIES)
    void tsmultirange(@ForAll("tsmultiranges") List<String> values) throws Exception {
        check("tsmultirange", values);
    }

    @Provide
    Arbitrary<List<String>> tsmultiranges() {
        return rows(PgLiterals.multirange(tsrange()));
    }

    @Property(tries = TRIES)
    void tstzmultirange(@ForAll("tstzmultiranges") List<String> values) throws Exception {
        check("tstzmultirange", values);
    }

    @Provide
    Arbitrary<List<String>> tstzmultiranges() {
        return rows(PgLiterals.multirange(tstzrange()));
    }

    // --- user-defined types ------------------------------------------------------------------

    @Property(tries = TRIES)
    void enumeration(@ForAll("moods") List<String> values) throws Exception {
        check("rt_mood", values);
    }

    @Provide
    Arbitrary<List<String>> moods() {
        return rows(Arbitraries.of("sad", "ok", "happy", "with space", "quo\"te", "back\\slash", "ünï"));
    }

    @Property(tries = TRIES)
    void domainOverInteger(@ForAll("positives") List<String> values) throws Exception {
        check("rt_positive", values);
    }

    @Provide
    Arbitrary<List<String>> positives() {
        return rows(Arbitraries.integers().between(1, Integer.MAX_VALUE).map(String::valueOf));
    }

    @Property(tries = TRIES)
    void domainOverNumericWithScale(@ForAll("prices") List<String> values) throws Exception {
        check("rt_price", values);
    }

    @Provide
    Arbitrary<List<String>> prices() {
        return rows(PgLiterals.numeric(10, 2));
    }

    @Property(tries = TRIES)
    void composite(@ForAll("addresses") List<String> values) throws Exception {
        check("rt_address", values);
    }

    @Provide
    Arbitrary<List<String>> addresses() {
        Arbitrary<String> tags = PgLiterals.text().injectNull(0.2).list().ofMaxSize(3).map(l -> RoundTrip.arrayLiteral(l, ','));
        Arbitrary<String> drawn = Combinators.combine(PgLiterals.text().injectNull(0.1), PgLiterals.int4().injectNull(0.1), tags.injectNull(0.1),
                PgLiterals.timestamptz().injectNull(0.1), PgLiterals.numeric(8, 2).injectNull(0.1), moods().map(l -> l.get(0)).injectNull(0.3))
                .as((street, number, tagList, at, price, mood) -> PgLiterals.record(java.util.Arrays.asList(street, number, tagList, at, price, mood)));
        // Every field NULL is a value of its own, not a NULL composite (though ROW(NULL, ...) IS NULL is true in SQL).
        return rows(Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, drawn),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("(,,,,,)", "(\"\",,{},,,)", "(,,\"[0:1]={a,NULL}\",,,)"))));
    }

    @Property(tries = TRIES)
    void hstore(@ForAll("hstores") List<String> values) throws Exception {
        check("hstore", values);
    }

    @Provide
    Arbitrary<List<String>> hstores() {
        return rows(PgLiterals.hstore());
    }

    @Property(tries = TRIES)
    void extensionTypeWithTextBinaryForm(@ForAll("texts") List<String> values) throws Exception {
        check("citext", values);
    }

    // --- system identifiers ------------------------------------------------------------------

    @Property(tries = TRIES)
    void oid(@ForAll("uint32s") List<String> values) throws Exception {
        check("oid", values);
    }

    @Property(tries = TRIES)
    void xid(@ForAll("uint32s") List<String> values) throws Exception {
        check("xid", values);
    }

    @Property(tries = TRIES)
    void cid(@ForAll("uint32s") List<String> values) throws Exception {
        check("cid", values);
    }

    @Provide
    Arbitrary<List<String>> uint32s() {
        return rows(Arbitraries.longs().between(0, 0xFFFFFFFFL).map(String::valueOf));
    }

    @Property(tries = TRIES)
    void xid8(@ForAll("xid8s") List<String> values) throws Exception {
        check("xid8", values);
    }

    @Provide
    Arbitrary<List<String>> xid8s() {
        return rows(Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.longs().map(Long::toUnsignedString)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("0", "9223372036854775807", "9223372036854775808", "18446744073709551615"))));
    }

    @Property(tries = TRIES)
    void tid(@ForAll("tids") List<String> values) throws Exception {
        check("tid", values);
    }

    @Provide
    Arbitrary<List<String>> tids() {
        return rows(Combinators.combine(Arbitraries.longs().between(0, 0xFFFFFFFFL), Arbitraries.integers().between(0, 0xFFFF))
                .as((block, offset) -> "(" + block + "," + offset + ")"));
    }

    @Property(tries = TRIES)
    void pgLsn(@ForAll("lsns") List<String> values) throws Exception {
        check("pg_lsn", values);
    }

    @Provide
    Arbitrary<List<String>> lsns() {
        return rows(Arbitraries.longs().map(l -> Long.toHexString(l >>> 32).toUpperCase() + "/" + Long.toHexString(l & 0xFFFFFFFFL).toUpperCase()));
    }

    // --- arrays that Connect arrays cannot hold ----------------------------------------------

    @Property(tries = TRIES)
    void arraysWithLowerBoundsSurviveAsText(@ForAll("lowerBoundArrays") List<List<String>> rows) throws Exception {
        roundTrip.check("int4", List.of("1"), EXACT); // creates the table pair
        roundTrip.checkRows("rt_int4", rows, EXACT.withTextColumns(Set.of("public.rt_int4.a", "public.rt_int4.m")));
    }

    @Provide
    Arbitrary<List<List<String>>> lowerBoundArrays() {
        Arbitrary<String> oneDim = Combinators.combine(Arbitraries.integers().between(-5, 5), PgLiterals.int4().injectNull(0.2).list().ofMinSize(1).ofMaxSize(4))
                .as((lower, elements) -> "[" + lower + ":" + (lower + elements.size() - 1) + "]=" + RoundTrip.arrayLiteral(elements, ','));
        Arbitrary<String> twoDim = Combinators.combine(Arbitraries.integers().between(-5, 5), Arbitraries.integers().between(-5, 5),
                PgLiterals.int4().list().ofSize(4))
                .as((l1, l2, e) -> "[" + l1 + ":" + (l1 + 1) + "][" + l2 + ":" + (l2 + 1) + "]={" + RoundTrip.arrayLiteral(e.subList(0, 2), ',')
                        + "," + RoundTrip.arrayLiteral(e.subList(2, 4), ',') + "}");
        return Combinators.combine(PgLiterals.int4(), oneDim, twoDim).as((v, a, m) -> List.of(v, a, m)).list().ofMinSize(1).ofMaxSize(6);
    }
}
