package io.sluice.sink.core.batch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the batch size with the highest measured throughput (bytes/s) by a directional binary
 * search over {@link TunerSettings#candidates} sizes: it measures a size and its upper
 * neighbour, keeps the half the better of the two points to, and stops when the range is one
 * size. The first size compared is the candidate nearest the size in use (where the best size
 * usually is not far); the search then gallops the way that comparison points, 1, 2, 4...
 * candidates on, until a comparison turns back, and halves the range from there: few batches
 * go to sizes far from the one in use. A measurement counts once a size has {@code minSamples}
 * batches and its last three vary by less than {@code maxCov}; sizes are compared by their
 * mean, with more batches while two are closer than their noise, and by the sizes one further
 * out on each side when they stay so. A size that never settles within {@code maxSamples} batches ends tuning on the default,
 * as does a batch closed by its timeout before it filled (the source, not the writes, sets the
 * pace: nothing to gain). The default is measured first, and the result is kept only when it
 * beats it; as the first measurement comes while the load warms up, the default is measured
 * again before it loses. Once tuned, a sustained drop in throughput (the network changed) starts the search again, around the size
 * in use. The throughput a drop is judged against is what the chosen size does in use, over its
 * first {@code dropWindow} batches, not the search's estimate of it. Both are medians, so a
 * pause that slows fewer than half the batches of a window (a checkpoint, a disk flush on the
 * target) is not a drop.
 *
 * <p>Not thread-safe: the one writer asks {@link #batchBytes} for the next batch's size and
 * reports each batch with {@link #record}.
 */
public final class BatchSizeTuner {

    /** Where the tuner is. */
    public enum State {
        /** Measuring the default size, to beat. */
        BASELINE,
        /** Searching the range. */
        SEARCHING,
        /** Done: uses the best size found, watching for a drop. */
        TUNED,
        /** Gave up: a size never measured steadily; uses the default. */
        UNSTABLE,
        /** Gave up: batches closed by the timeout before they filled; uses the default. */
        SOURCE_BOUND
    }

    /** One finished measurement or decision of the search, for logs and the benchmark's convergence path. */
    public record Step(State state, long bytes, double meanBytesPerSecond, int samples, long lowBytes, long highBytes) {
    }

    /** {@link #compare}: more batches of a size are on their way. */
    private static final int MEASURING = 0;
    /** {@link #compare}: closer than their noise after the most batches a size may have. */
    private static final int TIE = 2;

    private final TunerSettings settings;
    private final List<Step> path = new ArrayList<>();
    private final Map<Integer, Measurement> measured = new HashMap<>();
    private State state = State.BASELINE;
    private Measurement current;
    private int low;
    private int high;
    /** The size measured first, to beat: the default, or after a drop the size that was in use. */
    private long baselineBytes;
    private double baselineMean;
    /** The starting size's measurement while it may still be taken again; null after. */
    private Measurement startingMeasurement;
    private long chosenBytes;
    private double tunedMean;
    private final ArrayDeque<Double> recent = new ArrayDeque<>();
    /** Median throughput of the chosen size over its first batches in use; 0 until measured. */
    private double inUseMedian;
    /** The candidate the next comparison starts from, once; -1 for the middle of the range. */
    private int pivot = -1;
    /** Which way the search gallops from the pivot (-1 smaller, +1 larger), 0 once it halves the range. */
    private int direction;
    /** How many candidates the next comparison lies beyond the best so far, while galloping. */
    private int stride;
    private double lastBytesPerSecond;
    private int searches;

    public BatchSizeTuner(TunerSettings settings) {
        this.settings = settings;
        this.chosenBytes = settings.defaultBytes();
        this.baselineBytes = settings.defaultBytes();
        this.current = new Measurement(settings.defaultBytes());
    }

    /** The size to fill the next batch to. */
    public long batchBytes() {
        return switch (state) {
            case BASELINE, SEARCHING -> current.bytes;
            case TUNED -> chosenBytes;
            case UNSTABLE, SOURCE_BOUND -> settings.defaultBytes();
        };
    }

    /**
     * A batch was written.
     *
     * @param bytes           its size
     * @param nanos           how long writing it took
     * @param closedByTimeout whether it was sent because its time was up before it filled
     */
    public void record(long bytes, long nanos, boolean closedByTimeout) {
        if (state == State.UNSTABLE || state == State.SOURCE_BOUND || bytes <= 0 || nanos <= 0) {
            return;
        }
        double bytesPerSecond = bytes * 1e9 / nanos;
        if (closedByTimeout) {
            if (state != State.TUNED) {
                stop(State.SOURCE_BOUND);
            }
            return; // a tuned size is not judged by batches the source did not fill
        }
        lastBytesPerSecond = bytesPerSecond;
        if (state == State.TUNED) {
            watch(bytesPerSecond);
            return;
        }
        current.add(bytesPerSecond);
        if (current.done()) {
            measured();
        } else if (current.samples.size() >= settings.maxSamples() && !current.settled) {
            stop(State.UNSTABLE);
        }
    }

    private void measured() {
        double mean = current.mean();
        path.add(new Step(state, current.bytes, mean, current.samples.size(), settings.size(low), settings.size(high)));
        if (state == State.SEARCHING && current.bytes == baselineBytes) {
            baselineMean = mean; // measured again
        }
        if (state == State.BASELINE) {
            baselineMean = mean;
            state = State.SEARCHING;
            searches++;
            low = 0;
            high = settings.candidates() - 1;
            measured.clear();
            // The size just measured, when it is one of the candidates, needs no second measurement.
            int at = settings.nearest(current.bytes);
            startingMeasurement = null;
            if (settings.size(at) == current.bytes) {
                measured.put(at, current);
                startingMeasurement = current;
            }
            pivot = Math.min(at, settings.candidates() - 2);
            direction = 0;
        }
        next();
    }

    /** Picks the next size to measure, or narrows the range on two measured neighbours, or ends. */
    private void next() {
        while (low < high) {
            int mid = pairStart();
            Measurement here = measured.get(mid);
            Measurement above = measured.get(mid + 1);
            if (here == null || !here.done()) {
                measure(mid);
                return;
            }
            if (above == null || !above.done()) {
                measure(mid + 1);
                return;
            }
            int way = compare(here, above);
            if (way == TIE) {
                way = wayFromFartherPair(mid);
            }
            if (way == MEASURING) {
                return;
            }
            Measurement loser = way > 0 ? here : above;
            if (loser == startingMeasurement) {
                // The starting size was measured first, as the load or stream got going (caches,
                // compilation, connections): before it loses to a size measured later, it is
                // measured again, now.
                startingMeasurement = null;
                Measurement again = new Measurement(loser.bytes);
                measured.put(way > 0 ? mid : mid + 1, again);
                current = again;
                return;
            }
            if (way > 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
            steer(way);
        }
        Measurement last = measured.get(low);
        if (last == null || !last.done()) {
            measure(low);
            return;
        }
        double best = last.mean();
        if (best > baselineMean) {
            chosenBytes = settings.size(low);
            tunedMean = best;
        } else {
            chosenBytes = baselineBytes; // nothing beat the size in use
            tunedMean = baselineMean;
        }
        state = State.TUNED;
        recent.clear();
        inUseMedian = 0;
        path.add(new Step(State.TUNED, chosenBytes, tunedMean, 0, settings.size(low), settings.size(high)));
    }

    /**
     * Which of two sizes is better: +1 the second, -1 the first; {@link #MEASURING} when they
     * are closer than their noise and one of them is now being measured with more batches;
     * {@link #TIE} when they still are after the most batches a size may have.
     */
    private int compare(Measurement first, Measurement second) {
        if (!first.clearlyDifferent(second)) {
            Measurement fewer = first.samples.size() <= second.samples.size() ? first : second;
            if (fewer.samples.size() + settings.minSamples() > settings.maxSamples()) {
                return TIE;
            }
            fewer.extend();
            current = fewer;
            return MEASURING;
        }
        return second.mean() > first.mean() ? 1 : -1;
    }

    /**
     * Neighbours that stay closer than their noise after the most batches a size may have are
     * near the top of the curve, or on a gentle slope: deciding on their means would drop the
     * half with the best size about as often as chance swaps two means a few percent apart.
     * The sizes one further out on each side point the same way on a single-peak curve (the
     * side nearer the top is the better one) and differ about three times as much, so they
     * decide (at an end of the candidates, the end itself and the size two away: twice as
     * much). Returns {@link #MEASURING} while one of them is measured; where those are a tie
     * too, the neighbours' means decide.
     */
    private int wayFromFartherPair(int mid) {
        int below = Math.max(0, mid - 1);
        int beyond = Math.min(settings.candidates() - 1, mid + 2);
        int byMeans = measured.get(mid + 1).mean() > measured.get(mid).mean() ? 1 : -1;
        if (beyond - below < 2) {
            return byMeans;
        }
        for (int candidate : new int[] {below, beyond}) {
            Measurement m = measured.get(candidate);
            if (m == startingMeasurement) {
                // Measured as the load got going: too slow to judge by; measured again first.
                startingMeasurement = null;
                m = null;
                measured.remove(candidate);
            }
            if (m == null || !m.done()) {
                measure(candidate);
                return MEASURING;
            }
        }
        int way = compare(measured.get(below), measured.get(beyond));
        return way == TIE ? byMeans : way;
    }

    /**
     * The lower of the two neighbours to compare next. The first comparison is at the pivot (the
     * size in use), and sets a direction; the search then gallops that way, comparing the
     * neighbours 1, 2, 4... candidates beyond the best so far, until a comparison turns back,
     * and halves the range from there. Sizes near the one in use, usually near the best, are
     * measured first; a binary search from the middle of the range would spend batches on sizes
     * far from it, which may be much slower.
     */
    private int pairStart() {
        if (direction < 0) {
            return Math.max(low, high - stride);
        }
        if (direction > 0) {
            return Math.min(high - 1, low + stride - 1);
        }
        return pivot >= low && pivot < high ? pivot : (low + high) / 2;
    }

    private void steer(int way) {
        if (pivot >= 0) {
            direction = way;
            stride = 1;
            pivot = -1;
        } else if (direction == way) {
            stride *= 2;
        } else {
            direction = 0; // turned back: the best lies within the range, which halves from now on
        }
    }

    private void measure(int candidate) {
        current = measured.computeIfAbsent(candidate, i -> new Measurement(settings.size(i)));
    }

    private void watch(double bytesPerSecond) {
        recent.addLast(bytesPerSecond);
        if (recent.size() > settings.dropWindow()) {
            recent.removeFirst();
        }
        if (recent.size() < settings.dropWindow()) {
            return;
        }
        double median = median(recent);
        if (inUseMedian == 0) {
            inUseMedian = median;
            recent.clear();
            return;
        }
        if (median < (1 - settings.dropFraction()) * inUseMedian) {
            // The link changed: what was best may not be now. Measure the size in use again as the one to beat, then search.
            path.add(new Step(State.TUNED, chosenBytes, median, recent.size(), settings.size(low), settings.size(high)));
            state = State.BASELINE;
            baselineBytes = chosenBytes;
            current = new Measurement(chosenBytes);
            recent.clear();
        }
    }

    private static double median(ArrayDeque<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private void stop(State why) {
        state = why;
        path.add(new Step(why, settings.defaultBytes(), current.samples.isEmpty() ? 0 : current.mean(), current.samples.size(),
                settings.size(low), settings.size(high)));
    }

    public State state() {
        return state;
    }

    /** The throughput of the last batch that counted, in bytes per second; 0 before the first. */
    public double lastBytesPerSecond() {
        return lastBytesPerSecond;
    }

    /** Searches started so far (the first, and one per drop after tuning). */
    public int searches() {
        return searches;
    }

    /** Every measurement and decision so far, in order. */
    public List<Step> path() {
        return List.copyOf(path);
    }

    /** Variance relative to the mean, pooled over the sizes measured in this search. */
    private double pooledRelativeVariance() {
        double sum = 0;
        int freedom = 0;
        for (Measurement m : measured.values()) {
            int n = m.samples.size();
            double mean = m.mean();
            if (n > 1 && mean > 0) {
                sum += m.variance() / (mean * mean) * (n - 1);
                freedom += n - 1;
            }
        }
        return freedom == 0 ? 0 : sum / freedom;
    }

    /** The batches of one size and the throughput each had. */
    private final class Measurement {
        final long bytes;
        final List<Double> samples = new ArrayList<>();
        /** Batches it needs before it counts; raised when a comparison needs more. */
        int wanted = settings.minSamples();
        /** Whether three batches in a row have agreed at some point. */
        boolean settled;

        Measurement(long bytes) {
            this.bytes = bytes;
        }

        /** Enough batches, ending steady; or, once it has settled, as many as a size may have. */
        boolean done() {
            return samples.size() >= wanted && (stable() || settled && samples.size() >= settings.maxSamples());
        }

        void extend() {
            wanted = samples.size() + settings.minSamples();
        }

        /**
         * Whether the two means differ by more than twice the standard error of their difference,
         * with the link's noise pooled over every size measured in this search: noise belongs to
         * the link more than to a size, and three batches alone estimate it badly (three that
         * happen to agree would make a chance difference look real).
         */
        boolean clearlyDifferent(Measurement other) {
            double noise = pooledRelativeVariance();
            double error = Math.sqrt(noise * (mean() * mean() / samples.size() + other.mean() * other.mean() / other.samples.size()));
            return Math.abs(mean() - other.mean()) > 2 * error;
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
}
