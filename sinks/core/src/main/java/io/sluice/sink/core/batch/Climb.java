package io.sluice.sink.core.batch;

/**
 * The tuner's first, coarse phase: from the starting size, one batch per size, stepping four
 * times larger (or smaller) while each step gains at least {@link #GAIN}. It ends at the best
 * size it measured, where the careful search then starts.
 *
 * <p>Why: a careful measurement costs {@code minSamples} batches and a first one not counted,
 * and a start far from the best (1 MB on a long link, where a batch moves a tenth of what a
 * 16 MB one does in about the same time) would spend them at every power of two on the way; a
 * 250 MB table ended before such a search did. Far from the peak, a fourfold step changes
 * throughput by far more than one batch's noise, so one batch a size decides it; near the peak
 * the gain falls below {@link #GAIN} and the careful search takes over.
 */
final class Climb {

    /**
     * Least gain of a step that climbs on. Above one batch's usual noise on these links (the
     * benchmark's batches vary by up to 15% between neighbours) and well below what a fourfold
     * step gains on a slope (two- to fourfold on a 200 ms link from 1 MB).
     */
    static final double GAIN = 0.15;
    /** Each step is about this many times larger or smaller than the best so far. */
    static final double STEP = 4;

    private final TunerSettings settings;
    private final int start;
    /** The candidate measured now; -1 while the starting size itself (maybe no candidate) is. */
    private int at = -1;
    private int best;
    private double bestRate;
    private double startRate;
    private int direction;
    private boolean turned;

    Climb(TunerSettings settings) {
        this.settings = settings;
        this.start = settings.nearest(settings.defaultBytes());
        this.best = start;
        this.direction = start < settings.candidates() - 1 ? 1 : -1;
    }

    /** The size of the batch to measure next. */
    long bytes() {
        return at < 0 ? settings.defaultBytes() : settings.size(at);
    }

    /**
     * One batch at {@link #bytes()} moved {@code bytesPerSecond}.
     *
     * @return whether the climb is over
     */
    boolean record(double bytesPerSecond) {
        if (at < 0) {
            startRate = bytesPerSecond;
            bestRate = bytesPerSecond;
            return !step();
        }
        if (bytesPerSecond >= (1 + GAIN) * bestRate) {
            best = at;
            bestRate = bytesPerSecond;
            return !step();
        }
        if (bytesPerSecond > bestRate) {
            // A gain within one batch's noise: the peak is near; the careful search decides,
            // starting at the smaller of the two. A larger batch costs what a batch's throughput
            // does not show: memory, the load's start (the first batch of each stream is filled
            // before it goes) and its end (streams idle while the last batches finish).
            if (at < best) {
                best = at;
                bestRate = bytesPerSecond;
            }
            return true;
        }
        if (best == start && !turned) {
            // The first step lost: the other way may win.
            turned = true;
            direction = -direction;
            return !step();
        }
        return true;
    }

    /** Moves on from the best so far the way the climb goes; false at the end of the range. */
    private boolean step() {
        int next = next(best, direction);
        if (next == best && best == start && !turned) {
            turned = true;
            direction = -direction;
            next = next(best, direction);
        }
        if (next == best) {
            return false;
        }
        at = next;
        return true;
    }

    private int next(int from, int way) {
        long size = settings.size(from);
        int to = settings.nearest(way > 0 ? (long) Math.min(Long.MAX_VALUE / 2.0, size * STEP) : (long) (size / STEP));
        if (way > 0) {
            to = Math.max(to, from + 1);
        } else {
            to = Math.min(to, from - 1);
        }
        return Math.max(0, Math.min(settings.candidates() - 1, to));
    }

    /** The candidate that did best; where the careful search starts. */
    int best() {
        return best;
    }

    /** Whether the best is the starting size itself (measured in the load's first batches). */
    boolean bestIsStart() {
        return best == start;
    }

    /** The best's one batch, in bytes per second. */
    double bestRate() {
        return bestRate;
    }

    /** The starting size's one batch, in bytes per second: the throughput to beat. */
    double startRate() {
        return startRate;
    }
}
