package io.sluice.sink.core.batch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Finds the batch size with the highest measured throughput (bytes/s). A first, coarse
 * {@link Climb} steps fourfold from the starting size, one batch a size, while each step gains
 * clearly; a careful directional binary search over {@link TunerSettings#candidates} sizes
 * then starts where the climb ended: it measures a size and its upper
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
        /** The coarse first phase: one batch a size, fourfold steps (see {@link Climb}). */
        CLIMBING,
        /** Measuring the size in use, to beat: after a drop, or when the search starts at a remembered size. */
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
    private final Map<Integer, SizeMeasurement> measured = new HashMap<>();
    private State state = State.BASELINE;
    private SizeMeasurement current;
    private int low;
    private int high;
    /** The size measured first, to beat: the default, or after a drop the size that was in use. */
    private long baselineBytes;
    private double baselineMean;
    /** The starting size's measurement while it may still be taken again; null after. */
    private SizeMeasurement startingMeasurement;
    private long chosenBytes;
    private double tunedMean;
    private final DropWatch drops;
    /** The candidate the next comparison starts from, once; -1 for the middle of the range. */
    private int pivot = -1;
    /** Which way the search gallops from the pivot (-1 smaller, +1 larger), 0 once it halves the range. */
    private int direction;
    /** How many candidates the next comparison lies beyond the best so far, while galloping. */
    private int stride;
    private double lastBytesPerSecond;
    private int searches;
    /** Where in {@link #path} the current search began (after a drop, the measurement of the size in use). */
    private int searchFrom;
    /** The coarse first phase; null when the tuner starts with a careful measurement of the start. */
    private Climb climb;

    /** A tuner that climbs from the starting size first. */
    public BatchSizeTuner(TunerSettings settings) {
        this(settings, true);
    }

    /**
     * @param climb whether to step coarsely from the start first; without, the start is measured
     *              carefully and the search begins there (for a start known to be near the best:
     *              where the last run's tuning ended)
     */
    public BatchSizeTuner(TunerSettings settings, boolean climb) {
        this.settings = settings;
        this.chosenBytes = settings.defaultBytes();
        this.baselineBytes = settings.defaultBytes();
        this.current = new SizeMeasurement(settings.defaultBytes(), settings);
        this.drops = new DropWatch(settings);
        if (climb) {
            this.climb = new Climb(settings);
            this.state = State.CLIMBING;
        }
    }

    /** The size to fill the next batch to. */
    public long batchBytes() {
        return switch (state) {
            case CLIMBING -> climb.bytes();
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
        if (state == State.CLIMBING) {
            climbed(bytesPerSecond, nanos);
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
            search(settings.nearest(current.bytes), current);
            return;
        }
        next();
    }

    private void climbed(double bytesPerSecond, long nanos) {
        long bytes = climb.bytes();
        boolean over = climb.record(bytesPerSecond, nanos);
        path.add(new Step(State.CLIMBING, bytes, bytesPerSecond, 1, settings.size(0), settings.size(settings.candidates() - 1)));
        if (!over) {
            return;
        }
        baselineMean = climb.startRate();
        int best = climb.best();
        long bestBytes = climb.bestIsStart() ? settings.defaultBytes() : settings.size(best);
        // The best size's batch counts towards its careful measurement.
        SizeMeasurement seed = new SizeMeasurement(bestBytes, settings);
        seed.add(climb.bestRate());
        climb = null;
        search(best, seed);
    }

    /**
     * Starts the careful search at candidate {@code at}, with {@code first} the measurement so far
     * of the size there (taken while the load got going, so measured again before it loses);
     * none when that size is not the candidate's.
     */
    private void search(int at, SizeMeasurement first) {
        state = State.SEARCHING;
        searches++;
        low = 0;
        high = settings.candidates() - 1;
        measured.clear();
        startingMeasurement = null;
        if (settings.size(at) == first.bytes) {
            measured.put(at, first);
            startingMeasurement = first;
        }
        pivot = Math.min(at, settings.candidates() - 2);
        direction = 0;
        next();
    }

    /** Picks the next size to measure, or narrows the range on two measured neighbours, or ends. */
    private void next() {
        while (low < high) {
            int mid = pairStart();
            SizeMeasurement here = measured.get(mid);
            SizeMeasurement above = measured.get(mid + 1);
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
            SizeMeasurement loser = way > 0 ? here : above;
            if (loser == startingMeasurement) {
                // The starting size was measured first, as the load or stream got going (caches,
                // compilation, connections): before it loses to a size measured later, it is
                // measured again, now.
                startingMeasurement = null;
                SizeMeasurement again = new SizeMeasurement(loser.bytes, settings);
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
        SizeMeasurement last = measured.get(low);
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
        drops.reset();
        path.add(new Step(State.TUNED, chosenBytes, tunedMean, 0, settings.size(low), settings.size(high)));
    }

    /**
     * Which of two sizes is better: +1 the second, -1 the first; {@link #MEASURING} when they
     * are closer than their noise and one of them is now being measured with more batches;
     * {@link #TIE} when they still are after the most batches a size may have.
     */
    private int compare(SizeMeasurement first, SizeMeasurement second) {
        if (!first.clearlyDifferent(second, SizeMeasurement.pooledRelativeVariance(measured.values()))) {
            SizeMeasurement fewer = first.samples.size() <= second.samples.size() ? first : second;
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
            SizeMeasurement m = measured.get(candidate);
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
        current = measured.computeIfAbsent(candidate, i -> new SizeMeasurement(settings.size(i), settings));
    }

    private void watch(double bytesPerSecond) {
        OptionalDouble fell = drops.fellTo(bytesPerSecond);
        if (fell.isPresent()) {
            // The link changed: what was best may not be now. Measure the size in use again as the one to beat, then search.
            path.add(new Step(State.TUNED, chosenBytes, fell.getAsDouble(), settings.dropWindow(), settings.size(low), settings.size(high)));
            searchFrom = path.size();
            state = State.BASELINE;
            baselineBytes = chosenBytes;
            current = new SizeMeasurement(chosenBytes, settings);
        }
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

    /**
     * The size with the highest throughput measured so far in this search (a climb's single
     * batch or a careful mean); empty before any. For a load that ends before the search does:
     * where the next run's careful search starts.
     */
    public Optional<Step> bestSoFar() {
        return path.subList(searchFrom, path.size()).stream()
                .filter(s -> s.samples() > 0 && (s.state() == State.CLIMBING || s.state() == State.BASELINE || s.state() == State.SEARCHING))
                .max(Comparator.comparingDouble(Step::meanBytesPerSecond));
    }

    /** Every measurement and decision so far, in order. */
    public List<Step> path() {
        return List.copyOf(path);
    }
}
