package io.sluice.sink.core.batch;

/**
 * How a {@link BatchSizeTuner} searches.
 *
 * @param minBytes     the smallest batch size it tries
 * @param maxBytes     the largest
 * @param defaultBytes the size used before tuning, and whenever tuning gives up or finds nothing better
 * @param candidates   how many sizes it chooses among, spaced evenly on a log scale from min to max
 * @param minSamples   batches measured at a size before its mean counts (at least 3)
 * @param maxCov       the largest coefficient of variation of a size's last three batches for its measurement to count
 * @param maxSamples   batches measured at one size without it turning stable before tuning gives up
 * @param dropFraction after tuning, a drop of the mean throughput by this fraction (over {@code dropWindow} batches)
 *                     starts the search again
 * @param dropWindow   batches the drop is averaged over
 */
public record TunerSettings(long minBytes, long maxBytes, long defaultBytes, int candidates, int minSamples, double maxCov,
                            int maxSamples, double dropFraction, int dropWindow) {

    public TunerSettings {
        if (minBytes <= 0 || maxBytes < minBytes) {
            throw new IllegalArgumentException("Batch size range " + minBytes + ".." + maxBytes + " is empty: give 0 < min <= max");
        }
        if (defaultBytes <= 0) {
            throw new IllegalArgumentException("The default batch size must be positive, not " + defaultBytes);
        }
        if (candidates < 2 || minSamples < 3 || maxSamples < minSamples || maxCov <= 0 || dropFraction <= 0 || dropFraction >= 1
                || dropWindow < 1) {
            throw new IllegalArgumentException("Tuner settings out of range: candidates >= 2, 3 <= minSamples <= maxSamples, maxCov > 0, "
                    + "0 < dropFraction < 1, dropWindow >= 1");
        }
    }

    /** A search between two sizes with the tuner's usual sampling, starting at {@code defaultBytes}: for sinks that size batches of their own kind. */
    public static TunerSettings between(long minBytes, long maxBytes, long defaultBytes) {
        return new TunerSettings(minBytes, maxBytes, defaultBytes, BatchTuningConfig.candidates(minBytes, maxBytes), 3, 0.15, 12, 0.3, 5);
    }

    /** These settings with the search starting at {@code bytes} (within the range) instead of the default. */
    public TunerSettings startingAt(long bytes) {
        return new TunerSettings(minBytes, maxBytes, Math.max(minBytes, Math.min(maxBytes, bytes)), candidates, minSamples, maxCov, maxSamples,
                dropFraction, dropWindow);
    }

    /**
     * These settings with no size above {@code bytes} (nor below the smallest): fewer candidates
     * at the same spacing, and the start brought within the range.
     */
    public TunerSettings cappedAt(long bytes) {
        long max = Math.max(minBytes, Math.min(maxBytes, bytes));
        if (max == maxBytes) {
            return this;
        }
        int fewer = maxBytes == minBytes ? candidates
                : Math.max(2, (int) Math.round((candidates - 1) * Math.log((double) max / minBytes) / Math.log((double) maxBytes / minBytes)) + 1);
        return new TunerSettings(minBytes, max, Math.min(defaultBytes, max), fewer, minSamples, maxCov, maxSamples, dropFraction, dropWindow);
    }

    /** The size of candidate {@code i} of {@link #candidates}, from min (0) to max (candidates - 1). */
    long size(int i) {
        if (i == candidates - 1) {
            return maxBytes;
        }
        return Math.max(minBytes, Math.round(minBytes * Math.pow((double) maxBytes / minBytes, (double) i / (candidates - 1))));
    }

    /** The candidate nearest to {@code bytes} on the log scale. */
    int nearest(long bytes) {
        if (maxBytes == minBytes) {
            return 0;
        }
        double at = Math.log((double) Math.max(minBytes, Math.min(maxBytes, bytes)) / minBytes) / Math.log((double) maxBytes / minBytes);
        return (int) Math.round(at * (candidates - 1));
    }
}
