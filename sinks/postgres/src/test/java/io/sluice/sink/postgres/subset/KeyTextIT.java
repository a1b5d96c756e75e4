package io.sluice.sink.postgres.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HexFormat;

import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Invariant: a key value's text, cast on a real PostgreSQL to its column's type (as the subset's
 * lookups cast it), is that same value: integers of every width to their limits, decimals of any
 * scale and size, text with quotes, backslashes and characters beyond ASCII (empty too), bytes,
 * and dates, times and timestamps across PostgreSQL's whole range (BC years, years past 9999).
 */
class KeyTextIT {

    private static TestDatabase db;
    private static Connection c;

    @BeforeContainer
    static void start() throws Exception {
        db = TestDatabases.create(KeyTextIT.class);
        c = db.connect();
    }

    @AfterContainer
    static void stop() throws Exception {
        if (c != null) {
            c.close();
        }
        if (db != null) {
            TestDatabases.drop(db);
        }
    }

    @Property(tries = 300)
    void integers(@ForAll long value) throws Exception {
        assertThat(cast(KeyText.of(value, Schema.INT64_SCHEMA, "t", "c"), "bigint")).isEqualTo(Long.toString(value));
        assertThat(cast(KeyText.of((int) value, Schema.INT32_SCHEMA, "t", "c"), "int")).isEqualTo(Integer.toString((int) value));
        assertThat(cast(KeyText.of((short) value, Schema.INT16_SCHEMA, "t", "c"), "smallint")).isEqualTo(Short.toString((short) value));
    }

    @Property(tries = 300)
    void decimals(@ForAll("unscaled") BigInteger unscaled, @ForAll("scales") int scale) throws Exception {
        BigDecimal value = new BigDecimal(unscaled, scale);
        assertThat(cast(KeyText.of(value, null, "t", "c"), "numeric")).isEqualTo(value.toPlainString());
    }

    @Property(tries = 300)
    void texts(@ForAll("texts") String value) throws Exception {
        assertThat(cast(KeyText.of(value, Schema.STRING_SCHEMA, "t", "c"), "text")).isEqualTo(value);
    }

    @Property(tries = 200)
    void bytes(@ForAll byte[] value) throws Exception {
        assertThat(query("SELECT encode(?::bytea, 'hex')", KeyText.of(value, Schema.BYTES_SCHEMA, "t", "c")))
                .isEqualTo(HexFormat.of().formatHex(value));
    }

    @Property(tries = 300)
    void dates(@ForAll("days") long epochDay) throws Exception {
        java.util.Date value = new java.util.Date(epochDay * 86_400_000L);
        assertThat(query("SELECT (?::date - date '1970-01-01')::text", KeyText.of(value, Date.SCHEMA, "t", "c")))
                .isEqualTo(Long.toString(epochDay));
    }

    @Property(tries = 300)
    void timestamps(@ForAll("millis") long millis) throws Exception {
        java.util.Date value = new java.util.Date(millis);
        assertThat(query("SELECT floor(extract(epoch FROM ?::timestamptz) * 1000)::bigint::text",
                KeyText.of(value, Timestamp.SCHEMA, "t", "c"))).isEqualTo(Long.toString(millis));
    }

    @Property(tries = 200)
    void times(@ForAll("millisOfDay") int millis) throws Exception {
        java.util.Date value = new java.util.Date(millis);
        assertThat(query("SELECT floor(extract(epoch FROM ?::time) * 1000)::bigint::text", KeyText.of(value, Time.SCHEMA, "t", "c")))
                .isEqualTo(Integer.toString(millis));
    }

    @Example
    void aStructIsRefusedNamingItsColumn() {
        Schema schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
        assertThatThrownBy(() -> KeyText.of(new Struct(schema).put("a", 1), schema, "\"public\".\"orders\"", "point"))
                .isInstanceOf(ConnectException.class).hasMessageContaining("\"public\".\"orders\"").hasMessageContaining("point");
    }

    @Provide
    Arbitrary<BigInteger> unscaled() {
        return Arbitraries.bigIntegers().between(BigInteger.TEN.pow(40).negate(), BigInteger.TEN.pow(40));
    }

    @Provide
    Arbitrary<Integer> scales() {
        return Arbitraries.integers().between(-20, 30);
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.strings().all().excludeChars('\0').ofMaxLength(40)
                .filter(s -> s.chars().noneMatch(ch -> Character.isSurrogate((char) ch))).edgeCases(e -> e.add("").add("'").add("\\").add("a'b\\c\"d").add("ünïcødé 😀"));
    }

    @Provide
    Arbitrary<Long> days() {
        return Arbitraries.longs().between(LocalDate.of(-4712, 1, 1).toEpochDay(), LocalDate.of(294_275, 12, 31).toEpochDay())
                .edgeCases(e -> e.add(0L).add(LocalDate.of(0, 12, 31).toEpochDay()).add(LocalDate.of(1, 1, 1).toEpochDay())
                        .add(LocalDate.of(9999, 12, 31).toEpochDay()).add(LocalDate.of(10_000, 1, 1).toEpochDay()));
    }

    @Provide
    Arbitrary<Long> millis() {
        return Arbitraries.longs().between(LocalDate.of(-4712, 1, 1).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli(),
                LocalDate.of(294_275, 12, 31).atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli());
    }

    @Provide
    Arbitrary<Integer> millisOfDay() {
        return Arbitraries.integers().between(0, 86_399_999);
    }

    private static String cast(String text, String type) throws Exception {
        return query("SELECT (?::" + type + ")::text", text);
    }

    private static String query(String sql, String text) throws Exception {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, text);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
