package io.sluice.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.codec.NumericCodec.NumericMode;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/**
 * Pins each representation to a value known independently of Sluice's code (epoch
 * arithmetic, ISO-8601, Debezium's conventions). The round-trip properties prove that text and
 * binary agree and that writing reproduces the value; these prove the agreed value is the right one.
 */
class RepresentationTest {

    @Test
    void datesAreDaysSinceTheUnixEpoch() {
        assertThat(TemporalCodecs.DATE.fromText("1970-01-01")).isEqualTo(0);
        assertThat(TemporalCodecs.DATE.fromText("2000-01-01")).isEqualTo(10_957);
        assertThat(TemporalCodecs.DATE.fromText("1969-12-31")).isEqualTo(-1);
        // 1 BC is ISO year 0, a leap year: 0000-03-01 is 719,468 days before the epoch.
        assertThat(TemporalCodecs.DATE.fromText("0001-03-01 BC")).isEqualTo(-719_468);
        assertThat(TemporalCodecs.DATE.fromText("infinity")).isEqualTo(Integer.MAX_VALUE);
        assertThat(TemporalCodecs.DATE.fromText("-infinity")).isEqualTo(Integer.MIN_VALUE);
    }

    @Test
    void timestampsAreMicrosecondsSinceTheUnixEpoch() {
        assertThat(TemporalCodecs.TIMESTAMP.fromText("1970-01-01 00:00:01.000002")).isEqualTo(1_000_002L);
        assertThat(TemporalCodecs.TIMESTAMP.fromText("1969-12-31 23:59:59.999999")).isEqualTo(-1L);
        // Debezium's infinity, from pgjdbc's PGStatement.DATE_POSITIVE_INFINITY
        assertThat(TemporalCodecs.TIMESTAMP.fromText("infinity")).isEqualTo(9_223_372_036_825_200_000L);
    }

    @Test
    void timestampsWithTimeZoneAreIsoInstantsInUtc() {
        assertThat(TemporalCodecs.TIMESTAMPTZ.fromText("2024-05-01 12:15:30.5+02")).isEqualTo("2024-05-01T10:15:30.5Z");
        assertThat(TemporalCodecs.TIMESTAMPTZ.fromText("1900-01-01 00:19:32+00:19:32")).isEqualTo("1900-01-01T00:00:00Z");
        assertThat(TemporalCodecs.TIMESTAMPTZ.fromText("0044-03-15 12:00:00+00 BC")).isEqualTo("-0043-03-15T12:00:00Z");
        assertThat(TemporalCodecs.TIMESTAMPTZ.fromText("-infinity")).isEqualTo("-infinity");
    }

    @Test
    void timesKeepMicrosecondsAndTheirOwnOffset() {
        assertThat(TemporalCodecs.TIME.fromText("24:00:00")).isEqualTo(86_400_000_000L);
        assertThat(TemporalCodecs.TIME.fromText("00:00:00.000001")).isEqualTo(1L);
        assertThat(TemporalCodecs.TIMETZ.fromText("10:00:00.123-02")).isEqualTo("10:00:00.123-02:00");
        assertThat(TemporalCodecs.TIMETZ.fromText("24:00:00+05:30:15")).isEqualTo("24:00:00+05:30:15");
        assertThat(TemporalCodecs.TIMETZ.fromText("08:00:00+00")).isEqualTo("08:00:00Z");
    }

    @Test
    void intervalsKeepMonthsDaysAndMicrosecondsApart() {
        assertThat(TemporalCodecs.INTERVAL.fromText("P1Y2M-3DT4H5M6.78S")).isEqualTo("P1Y2M-3DT4H5M6.78S");
        assertThat(TemporalCodecs.INTERVAL.fromText("PT-0.5S")).isEqualTo("PT-0.5S");
        assertThat(TemporalCodecs.INTERVAL.fromText("P1DT-1S")).isEqualTo("P1DT-1S");
        assertThat(TemporalCodecs.INTERVAL.fromText("PT0S")).isEqualTo("PT0S");
        assertThat(Interval.parse("P1Y2M-3DT4H5M6.78S"))
                .isEqualTo(new Interval(14, -3, 4 * 3_600_000_000L + 5 * 60_000_000L + 6_780_000L));
    }

    @Test
    void numericKeepsItsScaleAndSpecialValuesInExactMode() {
        NumericCodec exact = new NumericCodec(NumericMode.EXACT, null);
        assertThat(exact.fromText("1.50")).isEqualTo("1.50");
        assertThat(exact.fromText("NaN")).isEqualTo("NaN");
        assertThat(exact.fromText("-Infinity")).isEqualTo("-Infinity");
        assertThatThrownBy(() -> exact.fromText("1.5x")).isInstanceOf(NumberFormatException.class);
    }

    @Test
    void numericIsADecimalInPreciseModeAndRefusesNaN() {
        NumericCodec precise = new NumericCodec(NumericMode.PRECISE, null);
        assertThat(precise.fromText("1.50")).isEqualTo(new BigDecimal("1.50"));
        assertThatThrownBy(() -> precise.fromText("NaN")).isInstanceOf(DataException.class)
                .hasMessageContaining("exact mode");
    }

    @Test
    void moneyIsADecimalWithTwoFractionDigits() {
        MoneyCodec money = new MoneyCodec();
        assertThat(money.fromText("-$1,234.50")).isEqualTo(new BigDecimal("-1234.50"));
        assertThat(money.fromText("$0.07")).isEqualTo(new BigDecimal("0.07"));
    }

    @Test
    void byteaTextIsHex() {
        assertThat((byte[]) TextCodecs.BYTEA.fromText("\\x00ff10")).containsExactly(0, -1, 16);
    }

    @Test
    void bitOneIsABooleanAndLongerBitStringsAreZerosAndOnes() {
        assertThat(TextCodecs.BIT_BOOLEAN.fromText("1")).isEqualTo(true);
        assertThat(TextCodecs.BITS.fromText("0101")).isEqualTo("0101");
    }

    @Test
    void arraysNestPerDimensionAndKeepNullElements() {
        ArrayCodec matrix = new ArrayCodec(NumberCodecs.INT4, 23, 2, ',');
        assertThat(matrix.fromText("{{1,2},{3,NULL}}")).isEqualTo(List.of(List.of(1, 2), Arrays.asList(3, null)));
        ArrayCodec texts = new ArrayCodec(TextCodecs.TEXT, 25, 1, ',');
        assertThat(texts.fromText("{\"a b\",\"c\\\"d\",\"NULL\",NULL,\"\",\" \"}"))
                .isEqualTo(Arrays.asList("a b", "c\"d", "NULL", null, "", " "));
        assertThat(texts.fromText("{}")).isEqualTo(List.of());
    }

    @Test
    void arraysKeepLowerBoundsBesideTheirElements() {
        ArrayCodec vector = new ArrayCodec(NumberCodecs.INT4, 23, 1, ',');
        Object value = vector.fromText("[0:2]={1,2,3}");
        assertThat(value).isEqualTo(List.of(1, 2, 3)).isInstanceOf(BoundedArray.class);
        assertThat(((BoundedArray) value).lowerBounds()).containsExactly(0);
        assertThat(vector.fromText("[1:3]={1,2,3}")).isNotInstanceOf(BoundedArray.class);
        assertThat(ArrayLiteral.format((BoundedArray) value, ',')).isEqualTo("[0:2]={\"1\",\"2\",\"3\"}");
    }

    @Test
    void arraysRefuseMoreDimensionsThanTheirSchemaHolds() {
        ArrayCodec vector = new ArrayCodec(NumberCodecs.INT4, 23, 1, ',');
        assertThatThrownBy(() -> vector.fromText("{{1,2},{3,4}}")).isInstanceOf(DataException.class)
                .hasMessageContaining("2 dimension(s)").hasMessageContaining("map it as text");
    }

    @Test
    void hstoreIsAMapWithNullableValues() {
        Map<String, String> expected = new java.util.LinkedHashMap<>();
        expected.put("a", "1");
        expected.put("b c", null);
        expected.put("q\"", "x\\y");
        assertThat(new HstoreCodec().fromText("\"a\"=>\"1\", \"b c\"=>NULL, \"q\\\"\"=>\"x\\\\y\"")).isEqualTo(expected);
    }
}
