package io.sluice.schemas.codec;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import org.apache.kafka.connect.errors.DataException;

/**
 * Finite timestamptz values as ISO-8601 text ({@link DateTimeFormatter#ISO_OFFSET_DATE_TIME}) and
 * back, in PostgreSQL's microseconds since 2000-01-01. The formatter defines the text; the shape
 * nearly every value has (a four-digit year, {@code Z} or a {@code ±HH:MM} offset) is written and
 * read here by hand, anything else goes through the formatter, so both ways give what the
 * formatter alone would. Why by hand: with the formatter, reading a timestamptz took a third of
 * a PostgreSQL sink thread's time in a snapshot of rows decoded into structs.
 */
final class IsoInstants {

    private static final DateTimeFormatter ISO = DateTimeFormatter.ISO_OFFSET_DATE_TIME;
    private static final long PG_EPOCH_SECONDS = TemporalCodecs.PG_EPOCH_DAYS * 86_400L;
    /** 0000-01-01 and 9999-12-31 as days since 1970: the years written with four digits and no sign. */
    private static final long FIRST_FOUR_DIGIT_DAY = LocalDate.of(0, 1, 1).toEpochDay();
    private static final long LAST_FOUR_DIGIT_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

    private IsoInstants() {
    }

    /** ISO-8601 in UTC, such as {@code 2024-05-01T10:15:30.1234Z}: the fraction without trailing zeros, none when zero. */
    static String format(long pgMicros) {
        long seconds = Math.floorDiv(pgMicros, 1_000_000L) + PG_EPOCH_SECONDS;
        int micros = (int) Math.floorMod(pgMicros, 1_000_000L);
        long day = Math.floorDiv(seconds, 86_400L);
        if (day < FIRST_FOUR_DIGIT_DAY || day > LAST_FOUR_DIGIT_DAY) {
            return LocalDateTime.ofEpochSecond(seconds, micros * 1000, ZoneOffset.UTC).atOffset(ZoneOffset.UTC).format(ISO);
        }
        LocalDate date = LocalDate.ofEpochDay(day);
        int secondOfDay = (int) Math.floorMod(seconds, 86_400L);
        char[] s = new char[27];
        digits(s, 0, date.getYear(), 4);
        s[4] = '-';
        digits(s, 5, date.getMonthValue(), 2);
        s[7] = '-';
        digits(s, 8, date.getDayOfMonth(), 2);
        s[10] = 'T';
        digits(s, 11, secondOfDay / 3600, 2);
        s[13] = ':';
        digits(s, 14, secondOfDay / 60 % 60, 2);
        s[16] = ':';
        digits(s, 17, secondOfDay % 60, 2);
        int end = 19;
        if (micros != 0) {
            s[19] = '.';
            digits(s, 20, micros, 6);
            end = 26;
            while (s[end - 1] == '0') {
                end--;
            }
        }
        s[end] = 'Z';
        return new String(s, 0, end + 1);
    }

    /**
     * PostgreSQL's microseconds since 2000-01-01 of ISO-8601 text with an offset; digits past
     * the microsecond are dropped.
     *
     * @throws java.time.format.DateTimeParseException when the text is not ISO-8601 with an offset
     * @throws DataException when the instant is outside what PostgreSQL stores
     */
    static long parse(String text) {
        long pg = readCommon(text);
        if (pg == NOT_COMMON) {
            OffsetDateTime t = OffsetDateTime.parse(text, ISO);
            long seconds = t.toEpochSecond() - PG_EPOCH_SECONDS;
            pg = Math.addExact(Math.multiplyExact(seconds, 1_000_000L), t.getNano() / 1000);
        }
        if (pg < Timestamps.PG_MIN || pg >= Timestamps.PG_END) {
            throw new DataException("Timestamp " + text + " is outside what PostgreSQL stores (4714-11-24 BC to 294276-12-31)");
        }
        return pg;
    }

    /** A value no four-digit year reaches: the text is not of the common shape. */
    private static final long NOT_COMMON = Long.MIN_VALUE;

    /** {@code YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)} with every field in range, or {@link #NOT_COMMON}. */
    private static long readCommon(String s) {
        int length = s.length();
        if (length < 20 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return NOT_COMMON;
        }
        int year = number(s, 0, 4);
        int month = number(s, 5, 2);
        int day = number(s, 8, 2);
        int hour = number(s, 11, 2);
        int minute = number(s, 14, 2);
        int second = number(s, 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59
                || second < 0 || second > 59) {
            return NOT_COMMON;
        }
        int at = 19;
        int micros = 0;
        if (s.charAt(at) == '.') {
            int first = ++at;
            while (at < length && at - first < 9 && isDigit(s.charAt(at))) {
                if (at - first < 6) {
                    micros = micros * 10 + (s.charAt(at) - '0');
                }
                at++;
            }
            int count = at - first;
            if (count == 0) {
                return NOT_COMMON;
            }
            for (int i = count; i < 6; i++) {
                micros *= 10;
            }
        }
        int offsetSeconds;
        if (at == length - 1 && s.charAt(at) == 'Z') {
            offsetSeconds = 0;
        } else if (at == length - 6 && (s.charAt(at) == '+' || s.charAt(at) == '-') && s.charAt(at + 3) == ':') {
            int hours = number(s, at + 1, 2);
            int minutes = number(s, at + 4, 2);
            if (hours < 0 || hours > 17 || minutes < 0 || minutes > 59) {
                return NOT_COMMON;
            }
            offsetSeconds = (s.charAt(at) == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
        } else {
            return NOT_COMMON;
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        long seconds = epochDay * 86_400L + hour * 3600 + minute * 60 + second - offsetSeconds - PG_EPOCH_SECONDS;
        return seconds * 1_000_000L + micros;
    }

    private static int daysIn(int year, int month) {
        return switch (month) {
            case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    /** The non-negative number of {@code count} ASCII digits at {@code from}, or -1. */
    private static int number(String s, int from, int count) {
        int n = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (!isDigit(c)) {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static void digits(char[] s, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            s[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }
}
