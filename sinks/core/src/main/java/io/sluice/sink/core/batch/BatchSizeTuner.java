package io.sluice.sink.core.batch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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

    private final TunerSettings settings;
    private final List<Step> path = new ArrayList<>();
    private State state = State.BASELINE;
    private SizeMeasurement current;
    /** The careful search; null before the first, the last one's while tuned. */
    private DirectionalSearch search;
    /** The size measured first, to beat: the default, or after a drop the size that was in use. */
    private long baselineBytes;
    private double baselineMean;
    private long chosenBytes;
    private double tunedMean;
    private final DropWatch drops;
    private double lastBytesPerSecond;
    private int searches;
    /** Where in {@link #path} the current search began (after a drop, the measurement of the size in use). */
    private int searchFrom;
    /** The size the climb ended at, where the careful search started; 0 before, or without a climb. */
    private long climbEndedBytes;
    /** The coarse first phase; null when the tuner starts with a careful measurement of the start. */
    private Climb climb;

    /** A tuner that climbs from the starting size first. */
    public BatchSizeTuner(TunerSettings settings) {
        this(settings, true, 1);
    }

    /**
     * @param climb   whether to step coarsely from the start first; without, the start is measured
     *                carefully and the search begins there (for a start known to be near the best:
     *                where the last run's tuning ended)
     * @param streams how many batches are written at once (see {@link Climb}'s opening round)
     */
    public BatchSizeTuner(TunerSettings settings, boolean climb, int streams) {
        this.settings = settings;
        this.chosenBytes = settings.defaultBytes();
        this.baselineBytes = settings.defaultBytes();
        this.current = new SizeMeasurement(settings.defaultBytes(), settings);
        this.drops = new DropWatch(settings);
        if (climb) {
            this.climb = new Climb(settings, streams);
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
            if (!climb.awaitingRound()) {
                climbed(bytesPerSecond, nanos);
            }
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
        path.add(step(state, current.bytes, mean, current.samples.size()));
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

    /**
     * A full batch went out, filled towards {@code plannedBytes}: while the climb opens with a
     * round of sizes side by side, the next batch is filled to the round's next size. One that
     * does not run beside the others ({@code alongside} false: queued on a connection) ends the
     * round, whose sizes then would not run side by side.
     */
    public void sent(long plannedBytes, boolean alongside) {
        if (state == State.CLIMBING) {
            climb.sent(plannedBytes, alongside);
        }
    }

    /**
     * A batch of the climb's opening round is in (see {@link Climb}): judged by its own bytes
     * over its time, times the streams, since the bytes of all streams while it ran were mostly
     * other sizes'.
     *
     * @param plannedBytes the size it was filled towards
     * @param ownBytes     its own bytes
     * @return false when it was no batch of the round (record it as any other)
     */
    public boolean roundBatch(long plannedBytes, long ownBytes, long nanos) {
        if (state != State.CLIMBING || nanos <= 0 || ownBytes <= 0) {
            return false;
        }
        int rung = climb.rung(plannedBytes);
        if (rung < 0) {
            return false;
        }
        double bytesPerSecond = ownBytes * 1e9 / nanos * climb.streams();
        lastBytesPerSecond = bytesPerSecond;
        for (Climb.Measured taken : climb.rungIn(rung, bytesPerSecond, nanos)) {
            path.add(climbStep(taken.bytes(), taken.bytesPerSecond()));
        }
        if (climb.over()) {
            climbEnded();
        }
        return true;
    }

    private void climbed(double bytesPerSecond, long nanos) {
        long bytes = climb.measuredBytes();
        boolean over = climb.record(bytesPerSecond, nanos);
        path.add(climbStep(bytes, bytesPerSecond));
        if (over) {
            climbEnded();
        }
    }

    /** One batch of the climb, over the whole range. */
    private Step climbStep(long bytes, double bytesPerSecond) {
        return new Step(State.CLIMBING, bytes, bytesPerSecond, 1, settings.size(0), settings.size(settings.candidates() - 1));
    }

    private void climbEnded() {
        baselineMean = climb.startRate();
        int best = climb.best();
        climbEndedBytes = climb.bestBytes();
        // The best size's batch counts towards its careful measurement.
        SizeMeasurement seed = new SizeMeasurement(climbEndedBytes, settings);
        seed.add(climb.bestRate());
        climb = null;
        search(best, seed);
    }

    /**
     * Starts the careful search at candidate {@code at}, with {@code first} the measurement so far
     * of the size there (see {@link DirectionalSearch}).
     */
    private void search(int at, SizeMeasurement first) {
        state = State.SEARCHING;
        searches++;
        search = new DirectionalSearch(settings, at, first);
        next();
    }

    /** Moves the search on; once it ends, uses the size it found if that beats the one to beat. */
    private void next() {
        boolean ended = search.next();
        current = search.current();
        if (!ended) {
            return;
        }
        double best = search.endedMean();
        if (best > baselineMean) {
            chosenBytes = settings.size(search.ended());
            tunedMean = best;
        } else {
            chosenBytes = baselineBytes; // nothing beat the size in use
            tunedMean = baselineMean;
        }
        state = State.TUNED;
        drops.reset();
        path.add(step(State.TUNED, chosenBytes, tunedMean, 0));
    }

    /** A step of the path, with the search's range (the whole range before any search). */
    private Step step(State in, long bytes, double mean, int samples) {
        return search == null ? new Step(in, bytes, mean, samples, settings.size(0), settings.size(0))
                : new Step(in, bytes, mean, samples, search.lowBytes(), search.highBytes());
    }

    private void watch(double bytesPerSecond) {
        OptionalDouble fell = drops.fellTo(bytesPerSecond);
        if (fell.isPresent()) {
            // The link changed: what was best may not be now. Measure the size in use again as the one to beat, then search.
            path.add(step(State.TUNED, chosenBytes, fell.getAsDouble(), settings.dropWindow()));
            searchFrom = path.size();
            state = State.BASELINE;
            baselineBytes = chosenBytes;
            current = new SizeMeasurement(chosenBytes, settings);
        }
    }

    private void stop(State why) {
        state = why;
        path.add(step(why, settings.defaultBytes(), current.samples.isEmpty() ? 0 : current.mean(), current.samples.size()));
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
     * The size the climb ended at; 0 before, or without a climb. The path shows the sizes the climb
     * measured, not which it chose: the careful search may measure a neighbour first.
     */
    long climbEndedBytes() {
        return climbEndedBytes;
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
