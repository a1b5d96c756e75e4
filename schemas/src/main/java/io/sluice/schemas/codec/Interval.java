package io.sluice.schemas.codec;

import java.math.BigDecimal;

import org.apache.kafka.connect.errors.DataException;

/** An interval's three independent parts (months, days, microseconds), and its ISO-8601 form as PostgreSQL writes it. */
record Interval(int months, int days, long micros) {

    String format() {
        if (months == Integer.MAX_VALUE && days == Integer.MAX_VALUE && micros == Long.MAX_VALUE) {
            return "infinity";
        }
        if (months == Integer.MIN_VALUE && days == Integer.MIN_VALUE && micros == Long.MIN_VALUE) {
            return "-infinity";
        }
        if (months == 0 && days == 0 && micros == 0) {
            return "PT0S";
        }
        StringBuilder s = new StringBuilder("P");
        part(s, months / 12, 'Y');
        part(s, months % 12, 'M');
        part(s, days, 'D');
        long hours = micros / 3_600_000_000L;
        long rest = micros % 3_600_000_000L;
        long minutes = rest / 60_000_000L;
        rest %= 60_000_000L;
        if (micros != 0) {
            s.append('T');
        }
        part(s, hours, 'H');
        part(s, minutes, 'M');
        if (rest != 0) {
            if (rest < 0) {
                s.append('-');
            }
            long abs = Math.abs(rest);
            s.append(abs / 1_000_000L);
            TemporalCodecs.appendFraction(s, abs % 1_000_000L);
            s.append('S');
        }
        return s.toString();
    }

    private static void part(StringBuilder s, long value, char unit) {
        if (value != 0) {
            s.append(value).append(unit);
        }
    }

    static Interval parse(String text) {
        if (text.equals("infinity")) {
            return new Interval(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);
        }
        if (text.equals("-infinity")) {
            return new Interval(Integer.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE);
        }
        if (!text.startsWith("P")) {
            throw new DataException("Not an ISO-8601 interval (IntervalStyle iso_8601): " + text);
        }
        long months = 0;
        long days = 0;
        long micros = 0;
        boolean time = false;
        int i = 1;
        while (i < text.length()) {
            if (text.charAt(i) == 'T') {
                time = true;
                i++;
                continue;
            }
            int start = i;
            while (i < text.length() && "+-.0123456789".indexOf(text.charAt(i)) >= 0) {
                i++;
            }
            if (i == start || i >= text.length()) {
                throw new DataException("Not an ISO-8601 interval: " + text);
            }
            String number = text.substring(start, i);
            char unit = text.charAt(i++);
            if (!time) {
                switch (unit) {
                    case 'Y' -> months += Long.parseLong(number) * 12;
                    case 'M' -> months += Long.parseLong(number);
                    case 'W' -> days += Long.parseLong(number) * 7;
                    case 'D' -> days += Long.parseLong(number);
                    default -> throw new DataException("Unknown unit " + unit + " in interval " + text);
                }
            } else {
                switch (unit) {
                    case 'H' -> micros += Long.parseLong(number) * 3_600_000_000L;
                    case 'M' -> micros += Long.parseLong(number) * 60_000_000L;
                    case 'S' -> micros += new BigDecimal(number).movePointRight(6).longValueExact();
                    default -> throw new DataException("Unknown unit " + unit + " in interval " + text);
                }
            }
        }
        return new Interval(Math.toIntExact(months), Math.toIntExact(days), micros);
    }
}
