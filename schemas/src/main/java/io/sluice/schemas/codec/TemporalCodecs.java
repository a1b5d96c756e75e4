package io.sluice.schemas.codec;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.ZoneOffset;

import org.apache.kafka.connect.errors.DataException;

/**
 * date, time, timetz, timestamp, timestamptz and interval, in Debezium's representations with
 * microsecond precision throughout:
 * <ul>
 * <li>date: days since 1970-01-01 (INT32), ±infinity as {@link Integer#MAX_VALUE}/{@link Integer#MIN_VALUE};</li>
 * <li>time: microseconds since midnight (INT64), {@code 24:00:00} included;</li>
 * <li>timestamp: microseconds since 1970-01-01 00:00 (INT64), ±infinity and the years past 292277 as
 *     {@link Timestamps} says;</li>
 * <li>timestamptz: ISO-8601 text in UTC, such as {@code 2024-05-01T10:15:30.123456Z} (BC years as
 *     ISO years: 1 BC is year 0), or {@code infinity}/{@code -infinity};</li>
 * <li>timetz: ISO-8601 time with the value's own offset, such as {@code 10:15:30.5+02:00};</li>
 * <li>interval: ISO-8601 duration exactly as PostgreSQL's {@code iso_8601} interval style writes
 *     it, such as {@code P1Y2M-3DT4H5M6.78S}: months, days and microseconds are kept apart.</li>
 * </ul>
 * PostgreSQL counts from 2000-01-01 on the wire; BC dates use the proleptic Gregorian calendar
 * like {@link LocalDate}.
 */
public final class TemporalCodecs {

    static final int PG_EPOCH_DAYS = 10_957;
    static final long MICROS_PER_DAY = 86_400_000_000L;

    public static final ValueCodec DATE = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return switch (text) {
                case "infinity" -> Integer.MAX_VALUE;
                case "-infinity" -> Integer.MIN_VALUE;
                default -> Math.toIntExact(parseDate(text).toEpochDay());
            };
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            int days = in.getInt();
            if (days == Integer.MAX_VALUE || days == Integer.MIN_VALUE) {
                return days;
            }
            return days + PG_EPOCH_DAYS;
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            int days = (int) Values.integral(value, Integer.MIN_VALUE, Integer.MAX_VALUE, "date");
            out.writeInt(days == Integer.MAX_VALUE || days == Integer.MIN_VALUE ? days : days - PG_EPOCH_DAYS);
        }
    };

    public static final ValueCodec TIME = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return parseTimeMicros(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.getLong();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeLong(Values.integral(value, 0, MICROS_PER_DAY, "time"));
        }
    };

    public static final ValueCodec TIMETZ = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            int sign = Math.max(text.lastIndexOf('+'), text.lastIndexOf('-'));
            return formatTime(parseTimeMicros(text.substring(0, sign))) + parseOffset(text.substring(sign)).getId();
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            long micros = in.getLong();
            int secondsWest = in.getInt();
            return formatTime(micros) + ZoneOffset.ofTotalSeconds(-secondsWest).getId();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            String text = Values.as(value, String.class, "timetz");
            int split = text.endsWith("Z") ? text.length() - 1 : Math.max(text.lastIndexOf('+'), text.lastIndexOf('-'));
            if (split <= 0) {
                throw new DataException("Not an ISO time with offset: " + text);
            }
            out.writeLong(parseTimeMicros(text.substring(0, split)));
            out.writeInt(-ZoneOffset.of(text.substring(split)).getTotalSeconds());
        }
    };

    public static final ValueCodec TIMESTAMP = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return switch (text) {
                case "infinity" -> Timestamps.POSITIVE_INFINITY;
                case "-infinity" -> Timestamps.NEGATIVE_INFINITY;
                default -> Timestamps.toConnect(parsePgMicros(text, false));
            };
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return Timestamps.toConnect(in.getLong());
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeLong(Timestamps.toPg(Values.integral(value, Long.MIN_VALUE, Long.MAX_VALUE, "timestamp")));
        }
    };

    public static final ValueCodec TIMESTAMPTZ = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            if (text.equals("infinity") || text.equals("-infinity")) {
                return text;
            }
            return formatPg(parsePgMicros(text, true));
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return timestamptzOfPg(in.getLong());
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeLong(pgMicrosOfIso(Values.as(value, String.class, "timestamptz")));
        }
    };

    public static final ValueCodec INTERVAL = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            // Normalise through the parts so text and binary give the same string.
            Interval parsed = Interval.parse(text);
            return parsed.format();
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            long micros = in.getLong();
            int days = in.getInt();
            int months = in.getInt();
            return new Interval(months, days, micros).format();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            Interval interval = Interval.parse(Values.as(value, String.class, "interval"));
            out.writeLong(interval.micros()).writeInt(interval.days()).writeInt(interval.months());
        }
    };

    private TemporalCodecs() {
    }

    /** {@code 2024-01-02}, {@code 0044-03-15 BC}, {@code 10000-01-01}. */
    static LocalDate parseDate(String text) {
        boolean bc = text.endsWith(" BC");
        String ymd = bc ? text.substring(0, text.length() - 3) : text;
        int first = ymd.indexOf('-');
        int second = ymd.indexOf('-', first + 1);
        if (first <= 0 || second < 0) {
            throw new DataException("Not an ISO date: " + text);
        }
        int year = Integer.parseInt(ymd.substring(0, first));
        return LocalDate.of(bc ? 1 - year : year, Integer.parseInt(ymd.substring(first + 1, second)),
                Integer.parseInt(ymd.substring(second + 1)));
    }

    /** {@code HH:MM:SS[.ffffff]}, up to {@code 24:00:00}. */
    static long parseTimeMicros(String text) {
        String[] parts = text.split(":");
        if (parts.length != 3) {
            throw new DataException("Not a time of day: " + text);
        }
        long hours = Long.parseLong(parts[0]);
        long minutes = Long.parseLong(parts[1]);
        long micros = new BigDecimal(parts[2]).movePointRight(6).longValueExact();
        return (hours * 60 + minutes) * 60_000_000L + micros;
    }

    /** {@code +HH}, {@code -HH:MM}, {@code +HH:MM:SS}. */
    static ZoneOffset parseOffset(String text) {
        int sign = text.charAt(0) == '-' ? -1 : 1;
        String[] parts = text.substring(1).split(":");
        int seconds = Integer.parseInt(parts[0]) * 3600;
        if (parts.length > 1) {
            seconds += Integer.parseInt(parts[1]) * 60;
        }
        if (parts.length > 2) {
            seconds += Integer.parseInt(parts[2]);
        }
        return ZoneOffset.ofTotalSeconds(sign * seconds);
    }

    /**
     * {@code 2024-01-02 03:04:05.123456[+02[:MM[:SS]]][ BC]} to PostgreSQL's microseconds since
     * 2000-01-01 (UTC), which hold every year PostgreSQL accepts.
     */
    static long parsePgMicros(String text, boolean withOffset) {
        boolean bc = text.endsWith(" BC");
        String body = bc ? text.substring(0, text.length() - 3) : text;
        int space = body.indexOf(' ');
        if (space < 0) {
            throw new DataException("Not an ISO timestamp: " + text);
        }
        String date = body.substring(0, space);
        String time = body.substring(space + 1);
        long offsetSeconds = 0;
        if (withOffset) {
            int sign = Math.max(time.lastIndexOf('+'), time.lastIndexOf('-'));
            if (sign < 0) {
                throw new DataException("Timestamp with time zone has no offset: " + text);
            }
            offsetSeconds = parseOffset(time.substring(sign)).getTotalSeconds();
            time = time.substring(0, sign);
        }
        long day = parseDate(bc ? date + " BC" : date).toEpochDay();
        return Timestamps.pgOf(day, parseTimeMicros(time) - offsetSeconds * 1_000_000L);
    }

    /** PostgreSQL's microseconds since 2000-01-01 of a timestamptz value in ISO-8601 ({@code infinity} and {@code -infinity} too). */
    static long pgMicrosOfIso(String text) {
        return switch (text) {
            case "infinity" -> Long.MAX_VALUE;
            case "-infinity" -> Long.MIN_VALUE;
            default -> IsoInstants.parse(text);
        };
    }

    /**
     * A timestamptz value (ISO-8601 in UTC, or ±infinity) from a {@code MicroTimestamp} value:
     * microseconds since the Unix epoch as {@link Timestamps} carries them.
     */
    public static String timestamptzOf(long connectMicros) {
        return timestamptzOfPg(Timestamps.toPg(connectMicros));
    }

    private static String timestamptzOfPg(long pgMicros) {
        if (pgMicros == Long.MAX_VALUE) {
            return "infinity";
        }
        return pgMicros == Long.MIN_VALUE ? "-infinity" : formatPg(pgMicros);
    }

    /** An interval value from its three parts. */
    public static String intervalOf(int months, int days, long micros) {
        return new Interval(months, days, micros).format();
    }

    /** ISO-8601 in UTC of PostgreSQL's microseconds since 2000-01-01 (finite). */
    static String formatPg(long pgMicros) {
        return IsoInstants.format(pgMicros);
    }

    /** {@code HH:MM:SS} and a fraction without trailing zeros; 24:00:00 is a valid time in PostgreSQL. */
    static String formatTime(long micros) {
        long seconds = micros / 1_000_000L;
        long fraction = micros % 1_000_000L;
        StringBuilder s = new StringBuilder(15);
        two(s, seconds / 3600).append(':');
        two(s, seconds / 60 % 60).append(':');
        two(s, seconds % 60);
        appendFraction(s, fraction);
        return s.toString();
    }

    private static StringBuilder two(StringBuilder s, long v) {
        if (v < 10) {
            s.append('0');
        }
        return s.append(v);
    }

    /** Appends {@code .ffffff} with trailing zeros removed, nothing for zero. */
    static void appendFraction(StringBuilder s, long micros) {
        if (micros == 0) {
            return;
        }
        String digits = Long.toString(1_000_000L + micros).substring(1);
        int end = digits.length();
        while (digits.charAt(end - 1) == '0') {
            end--;
        }
        s.append('.').append(digits, 0, end);
    }
}
