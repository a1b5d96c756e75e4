package io.sluice.transforms.transformer;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;

import io.sluice.schemas.codec.Timestamps;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;

/**
 * {@code date_shift}: moves a date or timestamp by a whole number of days, at least one and at
 * most {@code max_days} either way, keeping the time of day. {@code keep_weekday} shifts by
 * whole weeks; {@code keep_year} keeps the date within its year. The shift is seeded by the
 * value, so one birthday moves the same way everywhere. Infinity stays infinity.
 */
public final class DateShift implements Transformer {

    private static final String PURPOSE = "date_shift";

    private final Seeds seeds;
    private final int maxDays;
    private final boolean keepYear;
    private final boolean keepWeekday;

    DateShift(Seeds seeds, int maxDays, boolean keepYear, boolean keepWeekday) {
        if (keepWeekday && maxDays < 7) {
            throw new IllegalArgumentException("date_shift: keep_weekday moves by whole weeks, so max_days must be at least 7, not " + maxDays);
        }
        this.seeds = seeds;
        this.maxDays = maxDays;
        this.keepYear = keepYear;
        this.keepWeekday = keepWeekday;
    }

    static DateShift from(Params p, Seeds seeds) {
        return new DateShift(seeds, p.integer("max_days", 365, 1, 36_500), p.flag("keep_year", false), p.flag("keep_weekday", false));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        String name = schema.name();
        return switch (ColumnType.of(schema)) {
            case DATE -> org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(name)
                    ? (value, row) -> java.util.Date.from(shift(LocalDate.ofInstant(((java.util.Date) value).toInstant(), ZoneOffset.UTC), value)
                            .atStartOfDay(ZoneOffset.UTC).toInstant())
                    : (value, row) -> {
                        int days = (Integer) value;
                        return days == Integer.MAX_VALUE || days == Integer.MIN_VALUE ? value
                                : Math.toIntExact(shift(LocalDate.ofEpochDay(days), value).toEpochDay());
                    };
            case TIMESTAMP -> switch (name) {
                case org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME -> (value, row) -> java.util.Date.from(shift(((java.util.Date) value).toInstant(), value));
                case "io.debezium.time.Timestamp" -> (value, row) -> sentinel((Long) value) || Timestamps.isInfinite((Long) value * 1000) ? value : shift(Instant.ofEpochMilli((Long) value), value).toEpochMilli();
                case "io.debezium.time.NanoTimestamp" -> (value, row) -> sentinel((Long) value) ? value
                        : ChronoUnit.NANOS.between(Instant.EPOCH, shift(Instant.EPOCH.plusNanos((Long) value), value));
                default -> (value, row) -> Timestamps.isInfinite((Long) value) ? value : shiftMicros((Long) value);
            };
            case ZONED_TIMESTAMP -> (value, row) -> {
                String text = (String) value;
                return text.endsWith("infinity") ? text : shift(Instant.parse(text), text).toString();
            };
            default -> throw Fit.misfit("date_shift", schema, "dates and timestamps");
        };
    }

    private static boolean sentinel(long value) {
        return value == Long.MAX_VALUE || value == Long.MIN_VALUE;
    }

    /** A {@code MicroTimestamp}, moved through its own arithmetic: it holds years past 292277 wrapped around. */
    private long shiftMicros(long micros) {
        long day = Timestamps.epochDay(micros);
        long days = shift(LocalDate.ofEpochDay(day), micros).toEpochDay() - day;
        try {
            return Timestamps.plusDays(micros, days);
        } catch (DataException e) {
            // Within max_days of PostgreSQL's first or last day: the other way stays inside.
            return Timestamps.plusDays(micros, -days);
        }
    }

    private Instant shift(Instant instant, Object value) {
        LocalDate day = LocalDate.ofInstant(instant, ZoneOffset.UTC);
        return instant.plus(ChronoUnit.DAYS.between(day, shift(day, value)), ChronoUnit.DAYS);
    }

    /** The date moved by a nonzero number of days drawn within the limits. */
    LocalDate shift(LocalDate date, Object value) {
        int step = keepWeekday ? 7 : 1;
        long lo = -maxDays;
        long hi = maxDays;
        if (keepYear) {
            lo = Math.max(lo, ChronoUnit.DAYS.between(date, date.withDayOfYear(1)));
            hi = Math.min(hi, ChronoUnit.DAYS.between(date, date.withDayOfYear(date.lengthOfYear())));
        }
        // Steps below and above zero: a year is long enough that one side always has one.
        long below = -lo / step;
        long above = hi / step;
        SplittableRandom r = seeds.random(PURPOSE, ValueText.of(value));
        long pick = r.nextLong(below + above);
        long steps = pick < below ? -(pick + 1) : pick - below + 1;
        return date.plusDays(steps * step);
    }
}
