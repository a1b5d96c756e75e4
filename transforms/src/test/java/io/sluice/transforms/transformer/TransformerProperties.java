package io.sluice.transforms.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.StringLength;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;

import io.sluice.schemas.mapping.LogicalTypes;

/**
 * What every keyed transformer promises, over its column types: the same value under the same
 * secret gives the same output (the transformer knows nothing of the table, so a value in two
 * tables maps alike); another secret gives other outputs; the output is a valid value of the
 * column's schema; NULL stays NULL; and where the transformer hides values, the original does
 * not appear in the output.
 */
class TransformerProperties {

    /** A transformer on a column type, with values to try, and whether its outputs hide the input entirely. */
    record Case(String expression, Schema schema, Arbitrary<?> values, boolean hides) {
        @Override
        public String toString() {
            return expression + " on " + (schema.name() != null ? schema.name() : schema.type());
        }
    }

    record Sample(Case c, List<Object> values) {
    }

    static final Schema TEXT = Schema.OPTIONAL_STRING_SCHEMA;

    static List<Case> cases() {
        Arbitrary<String> words = Arbitraries.strings().alpha().ofMinLength(3).ofMaxLength(20);
        Arbitrary<String> emails = Combinators.combine(words, words).as((a, b) -> a.toLowerCase() + "@" + b.toLowerCase() + ".org");
        Arbitrary<String> phones = Arbitraries.strings().numeric().ofMinLength(8).ofMaxLength(12).map(d -> "+" + d.substring(0, 2) + " " + d.substring(2));
        Arbitrary<String> ibans = Arbitraries.strings().numeric().ofLength(18).map(d -> "DE" + CheckDigits.iban("DE", d) + d);
        Arbitrary<String> cards = Arbitraries.strings().numeric().ofLength(15).map(d -> "4" + d.substring(1) + CheckDigits.luhn("4" + d.substring(1)));
        Schema numeric = SchemaBuilder.string().optional().name(LogicalTypes.NUMERIC).build();
        Schema decimal = Decimal.builder(2).optional().build();
        Schema uuid = SchemaBuilder.string().optional().name(LogicalTypes.UUID).build();
        Schema date = SchemaBuilder.int32().optional().name(LogicalTypes.DATE).build();
        Schema micros = SchemaBuilder.int64().optional().name(LogicalTypes.MICRO_TIMESTAMP).build();
        Schema zoned = SchemaBuilder.string().optional().name(LogicalTypes.ZONED_TIMESTAMP).build();
        Schema json = SchemaBuilder.string().optional().name(LogicalTypes.JSON).build();
        Schema hstore = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).optional().build();
        Schema textArray = SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build();
        Arbitrary<String> numerics = Arbitraries.bigDecimals().between(new BigDecimal("-99999"), new BigDecimal("99999")).ofScale(3)
                .map(BigDecimal::toPlainString);
        return List.of(
                new Case("hash", TEXT, words, true),
                new Case("hash(format=base64, length=12)", TEXT, words, true),
                new Case("hash", Schema.OPTIONAL_INT64_SCHEMA, Arbitraries.longs(), false),
                new Case("hash(min=1, max=1000000)", Schema.OPTIONAL_INT32_SCHEMA, Arbitraries.integers(), false),
                new Case("hash", numeric, numerics, false),
                new Case("uuid", uuid, Arbitraries.create(() -> java.util.UUID.randomUUID().toString()), true),
                new Case("email", TEXT, emails, true),
                new Case("email(keep_domain=true)", TEXT, emails, false),
                new Case("first_name", TEXT, words, true),
                new Case("last_name", TEXT, words, true),
                new Case("full_name", TEXT, words, true),
                new Case("street_address", TEXT, words, true),
                new Case("city", TEXT, words, true),
                new Case("company", TEXT, words, true),
                new Case("phone", TEXT, phones, true),
                new Case("phone(pattern=\"+1 (###) ###-####\")", TEXT, phones, true),
                new Case("iban", TEXT, ibans, true),
                new Case("credit_card", TEXT, cards, true),
                new Case("date_shift", date, Arbitraries.integers().between(-700_000, 2_900_000), false),
                new Case("date_shift(max_days=30, keep_weekday=true)", micros,
                        Arbitraries.longs().between(-6_000_000_000_000_000L, 6_000_000_000_000_000L), false),
                new Case("date_shift(keep_year=true)", zoned,
                        Arbitraries.longs().between(-30_000_000_000L, 30_000_000_000L).map(s -> Instant.ofEpochSecond(s, 123_000).toString()), false),
                // Noise moves a value by a share of itself: one too small for the share to reach the next cent stays as it is.
                new Case("noise(percent=20)", decimal, Arbitraries.bigDecimals().between(new BigDecimal("-1000000"), new BigDecimal("1000000"))
                        .ofScale(2).filter(d -> d.abs().compareTo(BigDecimal.TEN) >= 0), false),
                new Case("noise", Schema.OPTIONAL_FLOAT64_SCHEMA, Arbitraries.doubles().between(-1e9, 1e9).filter(d -> d != 0), false),
                new Case("number_range(min=1000, max=9000)", numeric, numerics, false),
                new Case("json(\"$.email\"=email, \"$.tags[*]\"=mask)", json,
                        Combinators.combine(emails, words).as((e, w) -> "{\"email\":\"" + e + "\",\"tags\":[\"" + w + "\"],\"n\":1}"), false),
                new Case("hstore(email=email)", hstore, emails.map(e -> Map.of("email", e, "plan", "gold")), false),
                new Case("array(each=email)", textArray, emails.list().ofMinSize(1).ofMaxSize(3).map(l -> (Object) l), false));
    }

    @Provide
    Arbitrary<Sample> samples() {
        // Distinct values: a transformer with few outputs (a weekday-keeping shift of at most 30 days has nine) may map one value
        // alike under two secrets by chance, and ten copies of one value would make that one chance the whole sample's.
        return Arbitraries.of(cases()).flatMap(c -> c.values().list().ofSize(10).uniqueElements().map(v -> new Sample(c, new ArrayList<>(v))));
    }

    @Property(tries = 300)
    void deterministicUnderOneSecretDifferentUnderAnother(@ForAll("samples") Sample sample) {
        Case c = sample.c();
        ColumnRewrite one = Secrets.bound(Secrets.ONE, c.expression(), c.schema());
        ColumnRewrite again = Secrets.bound(Secrets.ONE, c.expression(), c.schema());
        ColumnRewrite other = Secrets.bound(Secrets.OTHER, c.expression(), c.schema());
        boolean anyDiffers = false;
        for (Object v : sample.values()) {
            Object out = one.apply(v, ColumnRewrite.NO_ROW);
            assertThat(comparable(again.apply(v, ColumnRewrite.NO_ROW))).as("%s of %s", c, v).isEqualTo(comparable(out));
            anyDiffers |= !Objects.equals(comparable(other.apply(v, ColumnRewrite.NO_ROW)), comparable(out));
        }
        assertThat(anyDiffers).as("%s gives other outputs under another secret", c).isTrue();
    }

    @Property(tries = 300)
    void outputsAreValidValuesOfTheColumn(@ForAll("samples") Sample sample) {
        Case c = sample.c();
        ColumnRewrite rewrite = Secrets.bound(Secrets.ONE, c.expression(), c.schema());
        for (Object v : sample.values()) {
            Object out = rewrite.apply(v, ColumnRewrite.NO_ROW);
            assertThat(out).as("%s of %s", c, v).isNotNull();
            ConnectSchema.validateValue(c.schema(), out);
        }
    }

    @Property(tries = 300)
    void theOriginalNeverAppears(@ForAll("samples") Sample sample) {
        Case c = sample.c();
        Assume.that(c.hides());
        ColumnRewrite rewrite = Secrets.bound(Secrets.ONE, c.expression(), c.schema());
        for (Object v : sample.values()) {
            String out = String.valueOf(rewrite.apply(v, ColumnRewrite.NO_ROW)).toLowerCase();
            assertThat(out).as("%s of %s", c, v).doesNotContain(String.valueOf(v).toLowerCase());
        }
    }

    /** Found by the property above: a short original inside its base64 hash. */
    @Example
    void aShortOriginalDoesNotTurnUpInItsHash() {
        ColumnRewrite rewrite = Secrets.bound(Secrets.ONE, "hash(format=base64, length=12)", Schema.OPTIONAL_STRING_SCHEMA);
        assertThat(String.valueOf(rewrite.apply("lVr", ColumnRewrite.NO_ROW)).toLowerCase()).doesNotContain("lvr");
    }

    @Property(tries = 50)
    void nullStaysNull(@ForAll("samples") Sample sample) {
        ColumnRewrite rewrite = Secrets.bound(Secrets.ONE, sample.c().expression(), sample.c().schema());
        assertThat(rewrite.rewritesNull()).as("%s rewrites null", sample.c()).isFalse();
    }

    @Property(tries = 100)
    void aShortSecretIsRefusedSayingWhatToDo(@ForAll @StringLength(max = 15) String secret) {
        Assume.that(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8).length < 16);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new KeyedDigest(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .hasMessageContaining("at least 16 bytes");
    }

    private static Object comparable(Object o) {
        return o instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : o;
    }
}
