package io.sluice.sink.core.batch;

import java.util.ArrayList;
import java.util.List;

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
 * the gain falls below {@link #GAIN} and the careful search takes over. Going up, the batch
 * times of the last two sizes may send a step further ({@link #predictedBest}).
 *
 * <p>With several streams writing at once, the climb up starts with an opening round: the
 * streams' first batches are filled to the climb's first sizes, one each (1, 4, 16, 64 MB from a
 * 1 MB start and four streams), so the steps are measured side by side instead of one after the
 * other, and the larger ones move rows at their size while the smaller ones decide. A stream that
 * finishes while the climb still waits for a size of the round takes the round's largest. Why:
 * through a 200 ms link, one step after the other kept every stream on 1 and 4 MB batches for
 * the first 2 s of a load whose 32 MB batches take 4 s, and the whole load ran that much later.
 * Each size of the round is judged by its own batch (its bytes over its time, times the streams),
 * since the bytes all streams move while it runs are mostly other sizes'. A size of the round
 * that does not gain does not end the climb while a larger one of the round is on its way: the
 * climb takes that one too, judged against the best so far.
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
    /**
     * Going up, a step goes at least as far as the size whose fixed cost (round trips, the COPY's
     * start and commit) is this share of its time, as two sizes' batch times predict.
     */
    static final double FIXED_SHARE = 0.1;

    private final TunerSettings settings;
    private final int start;
    /** The candidate measured now; -1 while the starting size itself (maybe no candidate) is. */
    private int at = -1;
    private int best;
    private double bestRate;
    private double startRate;
    private int direction;
    private boolean turned;
    /** The best size's batch time: with the next size up, a line through the two predicts batch times. */
    private long bestNanos;
    /** Where the line through two batch times sends the next step up; -1 for none. */
    private int predicted = -1;
    /** Whether the size measured now lies beyond the usual step, where the line sent it. */
    private boolean jumped;
    /** No step up reaches this candidate: a jump there did not gain. */
    private int ceiling = Integer.MAX_VALUE;
    private boolean over;
    /** Streams writing at once: the opening round's batches. */
    private final int streams;
    /** The opening round's sizes, smallest (the start) first; none with one stream or a climb down. */
    private long[] rungs;
    /** The opening round's batches sent so far. */
    private int issued;
    /** Each size's batch time once its batch of the round is in; 0 before. */
    private final long[] rungNanos;
    private final double[] rungRates;
    /** Each size of the round whose batch the climb took. */
    private final boolean[] rungTaken;

    /** One size the climb measured: a batch of {@code bytes} moved {@code bytesPerSecond}. */
    record Measured(long bytes, double bytesPerSecond) {
    }

    Climb(TunerSettings settings) {
        this(settings, 1);
    }

    /** @param streams how many batches are written at once: above one, the climb up opens with a round of sizes side by side */
    Climb(TunerSettings settings, int streams) {
        this.settings = settings;
        this.start = settings.nearest(settings.defaultBytes());
        this.best = start;
        this.direction = start < settings.candidates() - 1 ? 1 : -1;
        this.streams = Math.max(1, streams);
        List<Long> sizes = new ArrayList<>();
        if (this.streams > 1 && direction > 0) {
            sizes.add(settings.defaultBytes());
            for (int i = start; sizes.size() < this.streams; ) {
                int up = next(i, 1);
                if (up == i) {
                    break;
                }
                sizes.add(settings.size(up));
                i = up;
            }
        }
        this.rungs = sizes.size() > 1 ? sizes.stream().mapToLong(Long::longValue).toArray() : new long[0];
        this.rungNanos = new long[rungs.length];
        this.rungRates = new double[rungs.length];
        this.rungTaken = new boolean[rungs.length];
    }

    /** The size of the next batch: the opening round's next, or the size the climb measures now. */
    long bytes() {
        boolean awaiting = awaitingRound();
        if (issued < rungs.length && (issued == 0 || awaiting)) {
            return rungs[issued];
        }
        return awaiting ? rungs[rungs.length - 1] : measuredBytes();
    }

    /** The size the climb measures now. */
    long measuredBytes() {
        return at < 0 ? settings.defaultBytes() : settings.size(at);
    }

    /**
     * A full batch of {@code plannedBytes} went out: the opening round moves on when it was the
     * round's next. One not {@code alongside} the others ends the round: the climb goes on one
     * size after the other from where it is, and batches of the round still out measure nothing.
     */
    void sent(long plannedBytes, boolean alongside) {
        if (!alongside) {
            rungs = new long[0];
            issued = 0;
        } else if (issued < rungs.length && plannedBytes == rungs[issued]) {
            issued++;
        }
    }

    /** Whether the climb waits for a batch of the opening round (other batches then measure nothing). */
    boolean awaitingRound() {
        return !over && rung(measuredBytes()) >= 0;
    }

    /** The opening round's batch of this size that went out and is not in yet; -1 for none. */
    int rung(long plannedBytes) {
        for (int i = 0; i < issued; i++) {
            if (rungs[i] == plannedBytes && rungNanos[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    /** Streams writing at once. */
    int streams() {
        return streams;
    }

    /**
     * The opening round's batch {@code rung} is in; the climb takes it, and any it waited for
     * that came in before, in its order of sizes.
     *
     * @return the sizes the climb measured now
     */
    List<Measured> rungIn(int rung, double bytesPerSecond, long nanos) {
        rungNanos[rung] = Math.max(1, nanos);
        rungRates[rung] = bytesPerSecond;
        List<Measured> taken = new ArrayList<>();
        for (int i = inRound(measuredBytes()); !over && i >= 0; i = inRound(measuredBytes())) {
            long bytes = measuredBytes();
            rungTaken[i] = true;
            taken.add(new Measured(bytes, rungRates[i]));
            over = measure(rungRates[i], rungNanos[i], true);
        }
        return taken;
    }

    /** The opening round's next size after {@code bytes} that went out, -1 for none. */
    private int laterRung(long bytes) {
        for (int i = 0; i + 1 < issued; i++) {
            if (rungs[i] == bytes) {
                return i + 1;
            }
        }
        return -1;
    }

    /** The opening round's batch of this size that is in and not taken, -1 for none. */
    private int inRound(long bytes) {
        for (int i = 0; i < rungs.length; i++) {
            if (rungs[i] == bytes && rungNanos[i] > 0 && !rungTaken[i]) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the climb ended. */
    boolean over() {
        return over;
    }

    /**
     * One batch at {@link #measuredBytes()} moved {@code bytesPerSecond}.
     *
     * @return whether the climb is over
     */
    boolean record(double bytesPerSecond, long nanos) {
        over = measure(bytesPerSecond, nanos, false);
        return over;
    }

    /** @param inRound whether the batch is the opening round's */
    private boolean measure(double bytesPerSecond, long nanos, boolean inRound) {
        if (at < 0) {
            startRate = bytesPerSecond;
            bestRate = bytesPerSecond;
            bestNanos = nanos;
            return !step();
        }
        if (bytesPerSecond >= (1 + GAIN) * bestRate) {
            if (direction > 0) {
                predicted = predictedBest(bestBytes(), bestNanos, settings.size(at), nanos);
            }
            best = at;
            bestRate = bytesPerSecond;
            bestNanos = nanos;
            return !step();
        }
        int laterRung = inRound ? laterRung(settings.size(at)) : -1;
        if (laterRung >= 0) {
            // A size of the round that does not gain clearly: noise on a flat stretch (at 0 ms a
            // 4 MB batch beside three larger ones read slower than the 1 MB one, and the climb
            // ended at 1 MB where 16 MB moved twice as much), or past a peak. The round's larger
            // sizes are on their way anyway: the climb takes them before it ends.
            at = settings.nearest(rungs[laterRung]);
            jumped = false;
            predicted = -1;
            return false;
        }
        if (jumped) {
            // The line's size did not gain: throughput is not the line there (it falls past a
            // peak). The usual step from the best, below that size, goes on instead.
            jumped = false;
            predicted = -1;
            ceiling = at;
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
        jumped = direction > 0 && predicted > next && predicted < ceiling;
        if (jumped) {
            // At most a second usual step further: the line holds for sizes a few times apart, not
            // across the range (where throughput may fall again past a peak).
            int usual = next;
            next = Math.min(predicted, next(usual, direction));
            jumped = next > usual;
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
            to = Math.min(Math.max(to, from + 1), ceiling - 1);
            if (to <= from) {
                return from;
            }
        } else {
            to = Math.min(to, from - 1);
        }
        return Math.max(0, Math.min(settings.candidates() - 1, to));
    }

    /**
     * The candidate the batch times of two sizes point to, going up: a batch's time is taken as a
     * fixed cost plus a cost per byte, the line through the two; the size whose fixed cost is
     * {@link #FIXED_SHARE} of its time is where throughput comes within about a tenth of the
     * most a stream moves. -1 when the two say nothing (the larger was no slower, or the line
     * has no fixed cost): only the usual step is taken.
     *
     * <p>Why: from far below, a fourfold step at a time crosses the range in as many batches as
     * there are steps, all at sizes that move a fraction of what the best does; through a 200 ms
     * link from 1 MB, 1 and 4 MB batches cost 0.8 and 1.2 s, a line that puts the best near 50 MB,
     * so the climb goes from 4 MB to the largest size at once instead of by way of 16 MB.
     */
    int predictedBest(long smallBytes, long smallNanos, long largeBytes, long largeNanos) {
        if (largeBytes <= smallBytes || largeNanos <= smallNanos || smallNanos <= 0) {
            return -1;
        }
        double perByte = (double) (largeNanos - smallNanos) / (largeBytes - smallBytes);
        double fixed = smallNanos - perByte * smallBytes;
        if (fixed <= 0) {
            return -1;
        }
        double bytes = fixed * (1 - FIXED_SHARE) / FIXED_SHARE / perByte;
        if (bytes >= settings.size(settings.candidates() - 1)) {
            return settings.candidates() - 1;
        }
        int i = settings.nearest((long) bytes);
        return settings.size(i) < bytes ? Math.min(i + 1, settings.candidates() - 1) : i;
    }

    /** The candidate that did best; where the careful search starts. */
    int best() {
        return best;
    }

    /** Whether the best is the starting size itself (measured in the load's first batches). */
    boolean bestIsStart() {
        return best == start;
    }

    /** The best size in bytes: the starting size itself (maybe no candidate) or a candidate's. */
    long bestBytes() {
        return bestIsStart() ? settings.defaultBytes() : settings.size(best);
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
