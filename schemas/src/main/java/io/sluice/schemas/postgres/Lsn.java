package io.sluice.schemas.postgres;

/**
 * PostgreSQL log sequence numbers: unsigned 64-bit positions in the write-ahead log, written
 * {@code 16/B374D848}. Held as a {@code long} and compared unsigned.
 */
public final class Lsn {

    private Lsn() {
    }

    public static String format(long lsn) {
        return Long.toHexString(lsn >>> 32).toUpperCase(java.util.Locale.ROOT) + "/"
                + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase(java.util.Locale.ROOT);
    }

    public static long parse(String text) {
        int slash = text == null ? -1 : text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw new IllegalArgumentException("Not a log position (like 16/B374D848): " + text);
        }
        try {
            long high = Long.parseLong(text.substring(0, slash), 16);
            long low = Long.parseLong(text.substring(slash + 1), 16);
            if (high >>> 32 != 0 || low >>> 32 != 0) {
                throw new IllegalArgumentException("Not a log position (like 16/B374D848): " + text);
            }
            return high << 32 | low;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Not a log position (like 16/B374D848): " + text, e);
        }
    }

    public static int compare(long a, long b) {
        return Long.compareUnsigned(a, b);
    }
}
