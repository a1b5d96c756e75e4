package io.sluice.transforms.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.BigRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.StringLength;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;

import io.sluice.schemas.codec.Timestamps;
import io.sluice.schemas.mapping.LogicalTypes;

/**
 * Each format-preserving transformer writes what its format demands: emails that parse, with
 * the domain kept when asked; IBANs and card numbers with valid check digits, their country,
 * length and separators kept; phone numbers of the original's shape; dates moved within the
 * range, never by zero, within the year or to the same weekday when asked; numbers moved
 * within the percentage or drawn within the range, with their scale.
 */
class FormatProperties {

    private static final Schema TEXT = Schema.OPTIONAL_STRING_SCHEMA;
    private static final String ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
    private static final String EMAIL = ATOM + "(\\." + ATOM + ")*@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+";

    @Property
    void emailsParseAndKeepTheDomainWhenAsked(@ForAll @AlphaChars @StringLength(min = 1, max = 30) String local,
                                             @ForAll @AlphaChars @StringLength(min = 1, max = 20) String host) {
        String email = local + "@" + host + ".example.org";
        String fake = (String) Secrets.apply(Secrets.ONE, "email", TEXT, email);
        assertThat(fake).matches(EMAIL).endsWith("@example.com");
        String kept = (String) Secrets.apply(Secrets.ONE, "email(keep_domain=true)", TEXT, email);
        assertThat(kept).matches(EMAIL).endsWith("@" + host.toLowerCase() + ".example.org");
        assertThat(kept.substring(0, kept.indexOf('@'))).isNotEqualTo(local.toLowerCase());
        // Whatever follows an @ that is no domain name is not kept: it may be data.
        assertThat((String) Secrets.apply(Secrets.ONE, "email(keep_domain=true)", TEXT, local + "@" + host + " secret"))
                .endsWith("@example.com");
    }

    @Property
    void ibansHaveValidCheckDigitsAndKeepCountryLengthAndGrouping(@ForAll @NumericChars @StringLength(min = 10, max = 24) String digits,
                                                                  @ForAll boolean spaced) {
        String compact = "FR" + CheckDigits.iban("FR", digits) + digits;
        String input = spaced ? compact.replaceAll("(.{4})", "$1 ").strip() : compact;
        String fake = (String) Secrets.apply(Secrets.ONE, "iban", TEXT, input);
        String fakeCompact = fake.replace(" ", "");
        assertThat(CheckDigits.ibanValid(fakeCompact)).as(fake).isTrue();
        assertThat(fakeCompact).startsWith("FR").hasSize(compact.length()).isNotEqualTo(compact);
        assertThat(fake.contains(" ")).isEqualTo(spaced);
        String other = (String) Secrets.apply(Secrets.ONE, "iban(country=GB)", TEXT, "not an iban");
        assertThat(CheckDigits.ibanValid(other.replace(" ", ""))).isTrue();
        assertThat(other.replace(" ", "")).matches("GB[0-9]{2}[A-Z]{4}[0-9]{14}");
    }

    @Property
    void cardNumbersPassLuhnAndKeepLengthPrefixAndSeparators(@ForAll @NumericChars @StringLength(min = 12, max = 19) String digits,
                                                              @ForAll @IntRange(max = 6) int keep) {
        String number = digits.substring(0, digits.length() - 1) + CheckDigits.luhn(digits.substring(0, digits.length() - 1));
        String grouped = number.replaceAll("(.{4})", "$1-");
        grouped = grouped.endsWith("-") ? grouped.substring(0, grouped.length() - 1) : grouped;
        String fake = (String) Secrets.apply(Secrets.ONE, "credit_card(keep_prefix=" + keep + ")", TEXT, grouped);
        assertThat(fake.replaceAll("[0-9]", "#")).isEqualTo(grouped.replaceAll("[0-9]", "#"));
        String fakeDigits = fake.replace("-", "");
        assertThat(CheckDigits.luhnValid(fakeDigits)).as(fake).isTrue();
        assertThat(fakeDigits).startsWith(number.substring(0, keep)).isNotEqualTo(number);
    }

    @Property
    void phonesKeepTheirShape(@ForAll @NumericChars @StringLength(min = 6, max = 14) String digits, @ForAll @IntRange(max = 3) int keep) {
        String phone = "+" + digits.substring(0, 2) + " (" + digits.substring(2, 4) + ") " + digits.substring(4);
        String fake = (String) Secrets.apply(Secrets.ONE, "phone(keep_prefix=" + keep + ")", TEXT, phone);
        assertThat(fake.replaceAll("[0-9]", "#")).isEqualTo(phone.replaceAll("[0-9]", "#"));
        assertThat(fake.replaceAll("[^0-9]", "")).startsWith(digits.substring(0, keep));
        assertThat(fake).isNotEqualTo(phone);
        assertThat((String) Secrets.apply(Secrets.ONE, "phone(pattern=\"(###) ###-####\")", TEXT, phone)).matches("\\(\\d{3}\\) \\d{3}-\\d{4}");
    }

    @Property
    void datesMoveWithinTheRangeNeverByZero(@ForAll @IntRange(min = -200_000, max = 200_000) int day, @ForAll @IntRange(min = 7, max = 400) int max,
                                            @ForAll boolean keepYear, @ForAll boolean keepWeekday) {
        Schema date = SchemaBuilder.int32().optional().name(LogicalTypes.DATE).build();
        String expression = "date_shift(max_days=" + max + ", keep_year=" + keepYear + ", keep_weekday=" + keepWeekday + ")";
        int moved = (Integer) Secrets.apply(Secrets.ONE, expression, date, day);
        LocalDate from = LocalDate.ofEpochDay(day);
        LocalDate to = LocalDate.ofEpochDay(moved);
        assertThat(Math.abs(moved - day)).isBetween(1, max);
        if (keepYear) {
            assertThat(to.getYear()).isEqualTo(from.getYear());
        }
        if (keepWeekday) {
            assertThat(to.getDayOfWeek()).isEqualTo(from.getDayOfWeek());
        }
    }

    @Property
    void timestampsKeepTheirTimeOfDay(@ForAll @LongRange(min = -5_000_000_000_000_000L, max = 5_000_000_000_000_000L) long micros) {
        Schema ts = SchemaBuilder.int64().optional().name(LogicalTypes.MICRO_TIMESTAMP).build();
        long moved = (Long) Secrets.apply(Secrets.ONE, "date_shift(max_days=10)", ts, micros);
        assertThat(Math.floorMod(moved, 86_400_000_000L)).isEqualTo(Math.floorMod(micros, 86_400_000_000L));
        assertThat(Math.abs(moved - micros) / 86_400_000_000L).isBetween(1L, 10L);
        Schema zoned = SchemaBuilder.string().optional().name(LogicalTypes.ZONED_TIMESTAMP).build();
        Instant instant = Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
        Instant shifted = Instant.parse((String) Secrets.apply(Secrets.ONE, "date_shift(max_days=10)", zoned, instant.toString()));
        assertThat(shifted.atOffset(ZoneOffset.UTC).toLocalTime()).isEqualTo(instant.atOffset(ZoneOffset.UTC).toLocalTime());
        assertThat(Secrets.apply(Secrets.ONE, "date_shift", ts, Timestamps.POSITIVE_INFINITY)).as("infinity stays")
                .isEqualTo(Timestamps.POSITIVE_INFINITY);
        assertThat(Secrets.apply(Secrets.ONE, "date_shift", ts, Timestamps.NEGATIVE_INFINITY)).as("-infinity stays")
                .isEqualTo(Timestamps.NEGATIVE_INFINITY);
    }

    @Property
    void noiseStaysWithinThePercentageAndKeepsTheScale(@ForAll @BigRange(min = "-1000000", max = "1000000") BigDecimal value,
                                                       @ForAll @IntRange(max = 4) int scale, @ForAll @IntRange(min = 1, max = 50) int percent) {
        BigDecimal v = value.setScale(scale, java.math.RoundingMode.HALF_EVEN);
        Schema numeric = SchemaBuilder.string().optional().name(LogicalTypes.NUMERIC).build();
        BigDecimal out = new BigDecimal((String) Secrets.apply(Secrets.ONE, "noise(percent=" + percent + ")", numeric, v.toPlainString()));
        assertThat(out.scale()).isEqualTo(scale);
        BigDecimal allowed = v.abs().multiply(BigDecimal.valueOf(percent)).movePointLeft(2).add(BigDecimal.ONE.movePointLeft(scale));
        assertThat(out.subtract(v).abs()).isLessThanOrEqualTo(allowed);
        Schema decimal = Decimal.builder(2).optional().parameter("connect.decimal.precision", "9").build();
        BigDecimal d = (BigDecimal) Secrets.apply(Secrets.ONE, "noise(percent=" + percent + ")", decimal, v.setScale(2, java.math.RoundingMode.HALF_EVEN));
        assertThat(d.scale()).isEqualTo(2);
        assertThat(d.abs()).as("numeric(9,2) holds at most 9999999.99").isLessThanOrEqualTo(new BigDecimal("9999999.99"));
        short s = (Short) Secrets.apply(Secrets.ONE, "noise(percent=" + percent + ")", Schema.OPTIONAL_INT16_SCHEMA, (short) 32000);
        assertThat((int) s).isBetween(32000 - 320 * percent - 1, (int) Short.MAX_VALUE);
    }

    @Property
    void rangesDrawWithinTheirBoundsWithTheOriginalScale(@ForAll @BigRange(min = "-1000", max = "1000") BigDecimal value,
                                                         @ForAll @IntRange(max = 3) int scale) {
        Schema numeric = SchemaBuilder.string().optional().name(LogicalTypes.NUMERIC).build();
        String in = value.setScale(scale, java.math.RoundingMode.HALF_EVEN).toPlainString();
        BigDecimal out = new BigDecimal((String) Secrets.apply(Secrets.ONE, "number_range(min=20000, max=90000.5)", numeric, in));
        assertThat(out).isBetween(new BigDecimal("20000"), new BigDecimal("90000.5"));
        assertThat(out.scale()).isEqualTo(scale);
        int i = (Integer) Secrets.apply(Secrets.ONE, "number_range(min=18, max=99)", Schema.OPTIONAL_INT32_SCHEMA, value.intValue());
        assertThat(i).isBetween(18, 99);
    }

    @Property
    void namesComeFromTheListsInTheOriginalsCase(@ForAll @AlphaChars @StringLength(min = 2, max = 20) String name) {
        String fake = (String) Secrets.apply(Secrets.ONE, "first_name", TEXT, name.toUpperCase());
        assertThat(fake).isEqualTo(fake.toUpperCase()).isNotEqualToIgnoringCase(name);
        String full = (String) Secrets.apply(Secrets.ONE, "full_name", TEXT, name);
        assertThat(full).matches("[A-Za-z]+ [A-Za-z]+");
        // A name on the list does not come back as itself.
        assertThat((String) Secrets.apply(Secrets.ONE, "city", TEXT, "Berlin")).isNotEqualTo("Berlin");
    }
}
