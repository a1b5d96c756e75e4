package io.sluice.sink.opensearch.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.codec.Timestamps;
import io.sluice.schemas.mapping.LogicalTypes;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Documents from rows. Invariant: whatever the values — NaN, the infinities, -0.0, the largest
 * and smallest numbers, numerics of any scale, dates and timestamps across PostgreSQL's whole
 * range and its infinities, any text (control characters, four-byte characters), arrays empty or
 * with NULLs — the document is JSON, and each field reads back as exactly the row's value.
 */
class DocumentValuesProperties {

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * PostgreSQL's timestamp range in microseconds from 1970, from 4713 BC; its top (294276 AD) is
     * past a long's range from 1970, so the codecs' range ends just below the infinity they stand for.
     */
    private static final long PG_MIN_MICROS = -210_866_803_200_000_000L;
    private static final long PG_MAX_MICROS = Timestamps.POSITIVE_INFINITY - 1;

    private static final Schema DATE = SchemaBuilder.int32().name(LogicalTypes.DATE).optional().build();
    private static final Schema TIMESTAMP = SchemaBuilder.int64().name(LogicalTypes.MICRO_TIMESTAMP).optional().build();
    private static final Schema ROW = SchemaBuilder.struct().name("row")
            .field("f8", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("f4", Schema.OPTIONAL_FLOAT32_SCHEMA)
            .field("n", Decimal.builder(6).optional().build())
            .field("d", DATE)
            .field("ts", TIMESTAMP)
            .field("t", Schema.OPTIONAL_STRING_SCHEMA)
            .field("arr", SchemaBuilder.array(Schema.OPTIONAL_FLOAT64_SCHEMA).optional().build())
            .build();

    @Provide
    Arbitrary<Double> doubles() {
        return Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0,
                Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_NORMAL));
    }

    @Provide
    Arbitrary<Float> floats() {
        return Arbitraries.oneOf(Arbitraries.floats(), Arbitraries.of(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f,
                Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE));
    }

    @Provide
    Arbitrary<BigDecimal> numerics() {
        return Arbitraries.oneOf(Arbitraries.bigIntegers().between(BigInteger.TEN.pow(40).negate(), BigInteger.TEN.pow(40))
                        .map(i -> new BigDecimal(i, 6)),
                Arbitraries.of(BigDecimal.ZERO.setScale(6), new BigDecimal("-0.000001"), new BigDecimal("99999999999999999999.999999")));
    }

    @Provide
    Arbitrary<Integer> days() {
        int min = (int) LocalDate.of(-4713, 11, 24).toEpochDay();
        int max = (int) LocalDate.of(5874897, 12, 31).toEpochDay();
        return Arbitraries.oneOf(Arbitraries.integers().between(min, max), Arbitraries.of(Integer.MAX_VALUE, Integer.MIN_VALUE, min, max, 0, -1));
    }

    @Provide
    Arbitrary<Long> micros() {
        return Arbitraries.oneOf(Arbitraries.longs().between(PG_MIN_MICROS, PG_MAX_MICROS), Arbitraries.of(Timestamps.POSITIVE_INFINITY,
                Timestamps.NEGATIVE_INFINITY, PG_MIN_MICROS, PG_MAX_MICROS, 0L, -1L, 1L, 253_402_300_800_000_000L));
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(Arbitraries.strings().all().ofMaxLength(50), Arbitraries.of("", "\u0000", "\"\\\n", "😀", "NaN"));
    }

    @Provide
    Arbitrary<List<Double>> arrays() {
        return doubles().injectNull(0.2).list().ofMaxSize(5);
    }

    @Property(tries = 2000)
    void everyValueReadsBackExactly(@ForAll("doubles") Double f8, @ForAll("floats") Float f4, @ForAll("numerics") BigDecimal n,
                                    @ForAll("days") Integer d, @ForAll("micros") Long ts, @ForAll("texts") String t,
                                    @ForAll("arrays") List<Double> arr) throws Exception {
        Struct row = new Struct(ROW).put("f8", f8).put("f4", f4).put("n", n).put("d", d).put("ts", ts).put("t", t).put("arr", arr);
        StringWriter text = new StringWriter();
        try (JsonGenerator out = JSON.getFactory().createGenerator(text)) {
            new DocumentValues(new IndexMappingOptions("strict", IndexMappingOptions.NumericMapping.SCALED_FLOAT,
                    IndexMappingOptions.JsonMapping.FLAT_OBJECT)).write(row, Set.of(), out);
        }
        JsonNode doc = JSON.readTree(text.toString());
        assertDouble(doc.get("f8"), f8);
        assertThat(floatOf(doc.get("f4"))).as(text.toString()).isEqualTo(f4);
        assertThat(new BigDecimal(doc.get("n").asText())).isEqualTo(n);
        assertThat(doc.get("d").asText()).isEqualTo(d == Integer.MAX_VALUE ? "infinity" : d == Integer.MIN_VALUE ? "-infinity"
                : LocalDate.ofEpochDay(d).toString());
        if (ts == Timestamps.POSITIVE_INFINITY || ts == Timestamps.NEGATIVE_INFINITY) {
            assertThat(doc.get("ts").asText()).isEqualTo(ts == Timestamps.POSITIVE_INFINITY ? "infinity" : "-infinity");
        } else {
            LocalDateTime read = LocalDateTime.parse(doc.get("ts").asText());
            assertThat(ChronoUnit.MICROS.between(LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC), read)).as(doc.get("ts").asText()).isEqualTo(ts);
        }
        assertThat(doc.get("t").asText()).isEqualTo(t);
        List<Double> readArr = new ArrayList<>();
        doc.get("arr").forEach(e -> readArr.add(e.isNull() ? null : doubleOf(e)));
        assertThat(readArr).hasSameSizeAs(arr);
        for (int i = 0; i < arr.size(); i++) {
            if (arr.get(i) == null) {
                assertThat(readArr.get(i)).isNull();
            } else {
                assertThat(Double.compare(readArr.get(i), arr.get(i))).as("element %d", i).isZero();
            }
        }
    }

    private static void assertDouble(JsonNode node, double expected) {
        assertThat(Double.compare(doubleOf(node), expected)).as("%s read as %s", expected, node).isZero();
    }

    private static double doubleOf(JsonNode node) {
        return node.isTextual() ? Double.parseDouble(node.asText()) : node.doubleValue();
    }

    private static float floatOf(JsonNode node) {
        return node.isTextual() ? Float.parseFloat(node.asText()) : Float.parseFloat(node.asText());
    }
}
