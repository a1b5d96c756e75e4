package io.sluice.sink.core.batch;

import java.util.HashMap;
import java.util.Map;

/**
 * The tuner's careful phase ({@link BatchSizeTuner}): a directional binary search over the
 * candidates. It compares a size with its upper neighbour, each measured over several batches,
 * keeps the half the better of the two points to, and ends when one candidate is left. The first
 * comparison is at the size in use; the search then gallops the way it points, then halves.
 */
final class DirectionalSearch {

    /** {@link #compare}: more batches of a size are on their way. */
    private static final int MEASURING = 0;
    /** {@link #compare}: closer than their noise after the most batches a size may have. */
    private static final int TIE = 2;

    private final TunerSettings settings;
    private final Map<Integer, SizeMeasurement> measured = new HashMap<>();
    private SizeMeasurement current;
    private int low;
    private int high;
    /** The starting size's measurement while it may still be taken again; null after. */
    private SizeMeasurement startingMeasurement;
    /** The candidate the next comparison starts from, once; -1 for the middle of the range. */
    private int pivot;
    /** Which way the search gallops from the pivot (-1 smaller, +1 larger), 0 once it halves the range. */
    private int direction;
    /** How many candidates the next comparison lies beyond the best so far, while galloping. */
    private int stride;

    /**
     * A search starting at candidate {@code at}, with {@code first} the measurement so far of the
     * size there (taken while the load got going, so measured again before it loses); none when
     * that size is not the candidate's.
     */
    DirectionalSearch(TunerSettings settings, int at, SizeMeasurement first) {
        this.settings = settings;
        this.low = 0;
        this.high = settings.candidates() - 1;
        if (settings.size(at) == first.bytes) {
            measured.put(at, first);
            startingMeasurement = first;
        }
        this.pivot = Math.min(at, settings.candidates() - 2);
        this.current = first;
    }

    /** The measurement being taken now. */
    SizeMeasurement current() {
        return current;
    }

    long lowBytes() {
        return settings.size(low);
    }

    long highBytes() {
        return settings.size(high);
    }

    /** The candidate the search ended at, once {@link #next} said so. */
    int ended() {
        return low;
    }

    /** The mean throughput of the candidate the search ended at. */
    double endedMean() {
        return measured.get(low).mean();
    }

    /**
     * Picks the next size to measure ({@link #current}), or narrows the range on two measured
     * neighbours, or ends.
     *
     * @return whether the search ended
     */
    boolean next() {
        while (low < high) {
            int mid = pairStart();
            SizeMeasurement here = measured.get(mid);
            SizeMeasurement above = measured.get(mid + 1);
            if (here == null || !here.done()) {
                measure(mid);
                return false;
            }
            if (above == null || !above.done()) {
                measure(mid + 1);
                return false;
            }
            int way = compare(here, above);
            if (way == TIE) {
                way = wayFromFartherPair(mid);
            }
            if (way == MEASURING) {
                return false;
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
                return false;
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
            return false;
        }
        return true;
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
}
