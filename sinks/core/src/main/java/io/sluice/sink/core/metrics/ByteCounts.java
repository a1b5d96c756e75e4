package io.sluice.sink.core.metrics;

import java.util.Locale;

/** Byte counts for people, in logs, status lines and the progress display. */
public final class ByteCounts {

    private ByteCounts() {
    }

    /** {@code 512 B}, {@code 16.0 MB}: binary multiples, one decimal. */
    public static String format(long b) {
        if (b < 1024) {
            return b + " B";
        }
        String[] units = {"KB", "MB", "GB", "TB"};
        double v = b;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
