package io.sluice.schemas.codec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;

import org.apache.kafka.connect.errors.DataException;

/**
 * PostgreSQL's binary numeric format: digit count, weight, sign, display scale, then base-10000
 * digits. Finite values are {@link BigDecimal}s whose scale is the display scale, so
 * {@code 1.50} stays {@code 1.50}; NaN and the infinities are {@link Special}s.
 */
final class NumericWire {

    enum Special {
        NAN("NaN", 0xC000), POSITIVE_INFINITY("Infinity", 0xD000), NEGATIVE_INFINITY("-Infinity", 0xF000);

        final String text;
        final int sign;

        Special(String text, int sign) {
            this.text = text;
            this.sign = sign;
        }

        static Special ofText(String text) {
            for (Special s : values()) {
                if (s.text.equals(text)) {
                    return s;
                }
            }
            return null;
        }
    }

    private static final int POSITIVE = 0x0000;
    private static final int NEGATIVE = 0x4000;
    private static final int MAX_DSCALE = 0x3FFF;

    private NumericWire() {
    }

    /** A {@link BigDecimal} or a {@link Special}. */
    static Object decode(ByteBuffer in) {
        int ndigits = in.getShort();
        int weight = in.getShort();
        int sign = in.getShort() & 0xFFFF;
        int dscale = in.getShort();
        for (Special s : Special.values()) {
            if (s.sign == sign) {
                return s;
            }
        }
        if (ndigits == 0) {
            return BigDecimal.ZERO.setScale(dscale);
        }
        if (ndigits <= 4) {
            // Up to 16 decimal digits: a long holds them, and no string or BigInteger is built.
            long unscaled = 0;
            for (int i = 0; i < ndigits; i++) {
                unscaled = unscaled * 10_000 + in.getShort();
            }
            BigDecimal value = BigDecimal.valueOf(sign == NEGATIVE ? -unscaled : unscaled, -4 * (weight - ndigits + 1));
            return value.setScale(dscale, RoundingMode.UNNECESSARY);
        }
        return decodeDigits(in, ndigits, weight, sign, dscale);
    }

    /** Any number of base-10000 digits, through their decimal text. */
    static BigDecimal decodeDigits(ByteBuffer in, int ndigits, int weight, int sign, int dscale) {
        StringBuilder digits = new StringBuilder(ndigits * 4);
        for (int i = 0; i < ndigits; i++) {
            int d = in.getShort();
            if (i > 0 && d < 1000) {
                digits.append(d < 10 ? "000" : d < 100 ? "00" : "0");
            }
            digits.append(d);
        }
        BigDecimal value = new BigDecimal(new BigInteger(digits.toString())).scaleByPowerOfTen(4 * (weight - ndigits + 1));
        value = value.setScale(dscale, RoundingMode.UNNECESSARY);
        return sign == NEGATIVE ? value.negate() : value;
    }

    static void encode(Special special, WireBuffer out) {
        out.writeShort(0).writeShort(0).writeShort(special.sign).writeShort(0);
    }

    static void encode(BigDecimal value, WireBuffer out) {
        int dscale = Math.max(0, value.scale());
        if (dscale > MAX_DSCALE) {
            throw new DataException("numeric scale " + dscale + " exceeds PostgreSQL's maximum of " + MAX_DSCALE);
        }
        if (value.scale() >= 0 && value.precision() <= 15) {
            encodeSmall(value, dscale, out);
        } else {
            encodeDigits(value, dscale, out);
        }
    }

    private static final long[] POWERS_OF_TEN = {1, 10, 100, 1000};

    /**
     * Up to 15 digits and no negative scale: the base-10000 digits by arithmetic on a long (times
     * up to 1000 to align the scale on a digit, still below 10^18), without the decimal text and
     * the strings the general way builds (a fifth of a PostgreSQL sink thread's time in a snapshot
     * with one numeric column).
     */
    static void encodeSmall(BigDecimal value, int dscale, WireBuffer out) {
        int padRight = (4 - dscale % 4) % 4;
        long n = Math.abs(value.unscaledValue().longValue()) * POWERS_OF_TEN[padRight];
        int fractionDigits = (dscale + padRight) / 4;
        int trailingZeros = 0;
        while (n != 0 && n % 10_000 == 0) {
            n /= 10_000;
            trailingZeros++;
        }
        if (n == 0) {
            out.writeShort(0).writeShort(0).writeShort(POSITIVE).writeShort(dscale);
            return;
        }
        int[] digits = new int[5];
        int count = 0;
        while (n != 0) {
            digits[count++] = (int) (n % 10_000);
            n /= 10_000;
        }
        out.writeShort(count).writeShort(count + trailingZeros - 1 - fractionDigits)
                .writeShort(value.signum() < 0 ? NEGATIVE : POSITIVE).writeShort(dscale);
        for (int i = count - 1; i >= 0; i--) {
            out.writeShort(digits[i]);
        }
    }

    /** Any decimal, through its digits as text. */
    static void encodeDigits(BigDecimal value, int dscale, WireBuffer out) {
        String digits = value.abs().setScale(dscale, RoundingMode.UNNECESSARY).unscaledValue().toString();
        int intLength = digits.length() - dscale;
        if (intLength < 0) {
            digits = "0".repeat(-intLength) + digits;
            intLength = 0;
        }
        int padLeft = (4 - intLength % 4) % 4;
        int padRight = (4 - dscale % 4) % 4;
        String padded = "0".repeat(padLeft) + digits + "0".repeat(padRight);
        int groups = padded.length() / 4;
        int weight = (intLength + padLeft) / 4 - 1;

        int first = 0;
        while (first < groups && group(padded, first) == 0) {
            first++;
        }
        int last = groups - 1;
        while (last >= first && group(padded, last) == 0) {
            last--;
        }
        if (first > last) {
            out.writeShort(0).writeShort(0).writeShort(POSITIVE).writeShort(dscale);
            return;
        }
        out.writeShort(last - first + 1).writeShort(weight - first)
                .writeShort(value.signum() < 0 ? NEGATIVE : POSITIVE).writeShort(dscale);
        for (int i = first; i <= last; i++) {
            out.writeShort(group(padded, i));
        }
    }

    private static int group(String padded, int index) {
        int at = index * 4;
        return (padded.charAt(at) - '0') * 1000 + (padded.charAt(at + 1) - '0') * 100
                + (padded.charAt(at + 2) - '0') * 10 + (padded.charAt(at + 3) - '0');
    }
}
