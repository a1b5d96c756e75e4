package io.sluice.schemas.codec;

import org.apache.kafka.connect.errors.DataException;

/**
 * PostgreSQL timestamps (microseconds since 2000-01-01 on the wire) and their Connect value,
 * Debezium's {@code MicroTimestamp}: microseconds since 1970-01-01. The mapping is a bijection
 * between every value PostgreSQL can store and a set of 64-bit numbers, so every timestamp
 * arrives as it left:
 * <ul>
 * <li>{@code infinity} and {@code -infinity} are Debezium's values ({@link #POSITIVE_INFINITY},
 *     {@link #NEGATIVE_INFINITY}, inherited from pgjdbc), so Debezium's consumers read them too;</li>
 * <li>PostgreSQL accepts timestamps up to the year 294276, but microseconds since 1970 leave 64
 *     bits in the year 292277. The last 0.01% of the range wraps around (two's complement) to
 *     the bottom of the 64-bit range, far below the oldest timestamp PostgreSQL accepts (4714
 *     BC), where no other value lives;</li>
 * <li>the two finite instants of the year 292277 whose number is one of the infinity values are
 *     sent as the two numbers just above the wrapped range ({@link #SPARE_FOR_POSITIVE},
 *     {@link #SPARE_FOR_NEGATIVE}), which no timestamp uses either.</li>
 * </ul>
 * docs/types.md ("Special values") has the table.
 */
public final class Timestamps {

    /** Debezium's (and pgjdbc's) {@code infinity}: 9223372036825200000. */
    public static final long POSITIVE_INFINITY = 9_223_372_036_825_200_000L;
    /** Debezium's (and pgjdbc's) {@code -infinity}: -9223372036832400000. */
    public static final long NEGATIVE_INFINITY = -9_223_372_036_832_400_000L;

    static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    static final long MICROS_PER_DAY = 86_400_000_000L;
    /** PostgreSQL's oldest timestamp, 4714-11-24 00:00 BC, in its own epoch (MIN_TIMESTAMP). */
    static final long PG_MIN = -211_813_488_000_000_000L;
    /** One past PostgreSQL's newest timestamp, 294277-01-01 00:00, in its own epoch (END_TIMESTAMP). */
    static final long PG_END = 9_223_371_331_200_000_000L;
    /** Where the wrapped values end: the Unix-epoch number of {@link #PG_END}, wrapped. */
    private static final long WRAPPED_END = PG_END + PG_EPOCH_MICROS; // overflows on purpose
    /** Sent for the finite instant whose Unix-epoch number is {@link #POSITIVE_INFINITY}. */
    public static final long SPARE_FOR_POSITIVE = WRAPPED_END;
    /** Sent for the finite instant whose Unix-epoch number (wrapped) is {@link #NEGATIVE_INFINITY}. */
    public static final long SPARE_FOR_NEGATIVE = WRAPPED_END + 1;

    private Timestamps() {
    }

    /** The Connect value of a PostgreSQL timestamp ({@code Long.MAX_VALUE}/{@code MIN_VALUE} are its infinities). */
    public static long toConnect(long pgMicros) {
        if (pgMicros == Long.MAX_VALUE) {
            return POSITIVE_INFINITY;
        }
        if (pgMicros == Long.MIN_VALUE) {
            return NEGATIVE_INFINITY;
        }
        long unix = pgMicros + PG_EPOCH_MICROS; // wraps past the year 292277, see the class comment
        if (unix == POSITIVE_INFINITY) {
            return SPARE_FOR_POSITIVE;
        }
        return unix == NEGATIVE_INFINITY ? SPARE_FOR_NEGATIVE : unix;
    }

    /** The PostgreSQL timestamp of a Connect value; refuses a number no PostgreSQL timestamp maps to. */
    public static long toPg(long connectMicros) {
        if (connectMicros == POSITIVE_INFINITY) {
            return Long.MAX_VALUE;
        }
        if (connectMicros == NEGATIVE_INFINITY) {
            return Long.MIN_VALUE;
        }
        long unix = connectMicros == SPARE_FOR_POSITIVE ? POSITIVE_INFINITY
                : connectMicros == SPARE_FOR_NEGATIVE ? NEGATIVE_INFINITY : connectMicros;
        long pg = unix - PG_EPOCH_MICROS; // unwraps
        if (pg < PG_MIN || pg >= PG_END) {
            throw new DataException("Timestamp value " + connectMicros + " (microseconds since 1970) is outside what PostgreSQL "
                    + "stores (4714-11-24 BC to 294276-12-31)");
        }
        return pg;
    }

    /** Whether a Connect value is one of the infinities. */
    public static boolean isInfinite(long connectMicros) {
        return connectMicros == POSITIVE_INFINITY || connectMicros == NEGATIVE_INFINITY;
    }

    /** The PostgreSQL timestamp of a day since 1970-01-01 and a time of day, checked against PostgreSQL's range. */
    static long pgOf(long epochDay, long microsOfDay) {
        long pg = Math.addExact(Math.multiplyExact(epochDay - TemporalCodecs.PG_EPOCH_DAYS, MICROS_PER_DAY), microsOfDay);
        if (pg < PG_MIN || pg >= PG_END) {
            throw new DataException("Timestamp outside what PostgreSQL stores (4714-11-24 BC to 294276-12-31)");
        }
        return pg;
    }

    /** Days since 1970-01-01 of a finite Connect value (the wrapped years past 292277 included). */
    public static long epochDay(long connectMicros) {
        return Math.floorDiv(toPg(connectMicros), MICROS_PER_DAY) + TemporalCodecs.PG_EPOCH_DAYS;
    }

    /** A finite Connect value moved by whole days; refuses to leave PostgreSQL's range. */
    public static long plusDays(long connectMicros, long days) {
        long pg = Math.addExact(toPg(connectMicros), Math.multiplyExact(days, MICROS_PER_DAY));
        if (pg < PG_MIN || pg >= PG_END) {
            throw new DataException("Moving timestamp value " + connectMicros + " by " + days + " days leaves what PostgreSQL stores");
        }
        return toConnect(pg);
    }
}
