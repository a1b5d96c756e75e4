package io.sluice.sink.core.batch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** The batches the careful search measured at one size, and the throughput each had. */
final class SizeMeasurement {

    final long bytes;
    final List<Double> samples = new ArrayList<>();
    private final TunerSettings settings;
    /** Batches it needs before it counts; raised when a comparison needs more. */
    private int wanted;
    /** Whether three batches in a row have agreed at some point. */
    boolean settled;

    SizeMeasurement(long bytes, TunerSettings settings) {
        this.bytes = bytes;
        this.settings = settings;
        this.wanted = settings.minSamples();
    }

    /** Enough batches, ending steady; or, once it has settled, as many as a size may have. */
    boolean done() {
        return samples.size() >= wanted && (stable() || settled && samples.size() >= settings.maxSamples());
    }

    /** A comparison needs more: {@code minSamples} batches more. */
    void extend() {
        wanted = samples.size() + settings.minSamples();
    }

    /**
     * Whether the two means differ by more than twice the standard error of their difference,
     * with the link's noise ({@code pooledNoise}, see {@link #pooledRelativeVariance}) rather
     * than each size's own: noise belongs to the link more than to a size, and three batches
     * alone estimate it badly (three that happen to agree would make a chance difference look real).
     */
    boolean clearlyDifferent(SizeMeasurement other, double pooledNoise) {
        double error = Math.sqrt(pooledNoise * (mean() * mean() / samples.size() + other.mean() * other.mean() / other.samples.size()));
        return Math.abs(mean() - other.mean()) > 2 * error;
    }

    /** Variance relative to the mean, pooled over {@code measurements}. */
    static double pooledRelativeVariance(Collection<SizeMeasurement> measurements) {
        double sum = 0;
        int freedom = 0;
        for (SizeMeasurement m : measurements) {
            int n = m.samples.size();
            double mean = m.mean();
            if (n > 1 && mean > 0) {
                sum += m.variance() / (mean * mean) * (n - 1);
                freedom += n - 1;
            }
        }
        return freedom == 0 ? 0 : sum / freedom;
    }

    double variance() {
        double mean = mean();
        return samples.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / Math.max(1, samples.size() - 1);
    }

    void add(double bytesPerSecond) {
        samples.add(bytesPerSecond);
        settled |= stable();
    }

    double mean() {
        return samples.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    /** Enough batches, and the last three agree. */
    boolean stable() {
        int n = samples.size();
        if (n < settings.minSamples()) {
            return false;
        }
        double mean = (samples.get(n - 1) + samples.get(n - 2) + samples.get(n - 3)) / 3;
        double variance = 0;
        for (int i = n - 3; i < n; i++) {
            variance += (samples.get(i) - mean) * (samples.get(i) - mean);
        }
        return Math.sqrt(variance / 3) / mean <= settings.maxCov();
    }
}
