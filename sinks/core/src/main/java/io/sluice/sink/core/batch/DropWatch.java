package io.sluice.sink.core.batch;

import java.util.ArrayDeque;
import java.util.OptionalDouble;

/**
 * Watches a tuned size in use for a lasting drop in throughput (the link changed). The
 * throughput a drop is judged against is what the size does in use, over its first
 * {@code dropWindow} batches, not the search's estimate of it. Both are medians, so a pause
 * that slows fewer than half the batches of a window (a checkpoint, a disk flush on the target)
 * is not a drop.
 */
final class DropWatch {

    private final TunerSettings settings;
    private final ArrayDeque<Double> recent = new ArrayDeque<>();
    /** Median throughput of the size over its first batches in use; 0 until measured. */
    private double inUseMedian;

    DropWatch(TunerSettings settings) {
        this.settings = settings;
    }

    /** A size was just chosen: its first window sets the throughput to hold. */
    void reset() {
        recent.clear();
        inUseMedian = 0;
    }

    /** One batch in use; the median it fell to when this makes a lasting drop, else empty. */
    OptionalDouble fellTo(double bytesPerSecond) {
        recent.addLast(bytesPerSecond);
        if (recent.size() > settings.dropWindow()) {
            recent.removeFirst();
        }
        if (recent.size() < settings.dropWindow()) {
            return OptionalDouble.empty();
        }
        double median = median();
        if (inUseMedian == 0) {
            inUseMedian = median;
            recent.clear();
            return OptionalDouble.empty();
        }
        if (median < (1 - settings.dropFraction()) * inUseMedian) {
            recent.clear();
            return OptionalDouble.of(median);
        }
        return OptionalDouble.empty();
    }

    private double median() {
        double[] sorted = recent.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
