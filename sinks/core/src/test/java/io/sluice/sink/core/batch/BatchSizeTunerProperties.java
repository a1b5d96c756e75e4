package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import java.util.stream.IntStream;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * The tuner against simulated links, each a throughput curve (bytes/s by batch size) with
 * multiplicative noise. Invariants: it ends within a bounded number of batches; on single-peak
 * and flat curves it ends within 10% of the best candidate's throughput and never below the
 * default's; the search range narrows at every step; unsteady measurements are sampled again,
 * and a size that never settles ends tuning on the default; a batch closed by its timeout ends
 * tuning; after a lasting drop it searches again and finds the new best, while pauses that slow
 * fewer than half the batches of any window start no search; when the best size is next to the
 * one in use, the search measures only sizes near it; a starting size measured while the load
 * warms up is measured again before a size measured later beats it.
 */
class BatchSizeTunerProperties {

    private static final long MIB = 1L << 20;
    private static final TunerSettings SETTINGS = new TunerSettings(MIB, 256 * MIB, 80 * MIB, 33, 3, 0.1, 12, 0.2, 5);
    /**
     * Galloping to the bracket of the best takes at most log2(candidates) comparisons, halving
     * that bracket as many again; each comparison measures at most two new sizes; plus the default.
     */
    private static final int MAX_MEASURED = 4 * (int) Math.ceil(Math.log(SETTINGS.candidates()) / Math.log(2)) + 2;

    @Property
    void endsNearTheBestOnSinglePeakCurves(@ForAll @DoubleRange(min = 0, max = 1) double peakAt,
                                           // Width in natural-log units of size: at 1, a size e times off the peak loses 40%;
                                           // narrower peaks underflow to a throughput of exactly 0 far from them, a flat
                                           // line no comparison can climb (and no link has).
                                           @ForAll @DoubleRange(min = 1, max = 3) double width,
                                           @ForAll @DoubleRange(min = 0, max = 0.02) double noise, @ForAll long seed) {
        long peak = SETTINGS.size((int) Math.round(peakAt * (SETTINGS.candidates() - 1)));
        tunesNearTheBest(bytes -> 100e6 * Math.exp(-Math.pow(Math.log(bytes / peak), 2) / (2 * width * width)), noise, seed);
    }

    @Property
    void endsNearTheBestOnFlatMonotoneAndPlateauCurves(@ForAll @IntRange(min = 0, max = 3) int shape,
                                                       @ForAll @DoubleRange(min = 0, max = 0.02) double noise, @ForAll long seed) {
        DoubleUnaryOperator curve = switch (shape) {
            case 0 -> bytes -> 50e6; // flat: size does not matter
            case 1 -> bytes -> 1e6 * Math.log(bytes); // larger is always better
            case 2 -> bytes -> 1e15 / bytes; // smaller is always better
            default -> bytes -> 80e6 * Math.min(1, bytes / (16.0 * MIB)); // rises, then a plateau
        };
        tunesNearTheBest(curve, noise, seed);
    }

    /**
     * From either end of the range (a 1 MB start on a long link, a start at the largest size),
     * the climb's fourfold single batches end within one step of the peak, having measured at
     * most one size per fourfold step across the range and one the other way; the search then
     * ends near the best as from anywhere.
     */
    @Property
    void fromEitherEndTheClimbEndsWithinOneStepOfThePeakInFewBatches(@ForAll boolean fromTop,
                                                                      @ForAll @DoubleRange(min = 0, max = 1) double peakAt,
                                                                      @ForAll @DoubleRange(min = 0.7, max = 3) double width,
                                                                      @ForAll @DoubleRange(min = 0, max = 0.02) double noise, @ForAll long seed) {
        TunerSettings settings = SETTINGS.startingAt(fromTop ? SETTINGS.maxBytes() : SETTINGS.minBytes());
        int peakIndex = (int) Math.round(peakAt * (settings.candidates() - 1));
        long peak = settings.size(peakIndex);
        DoubleUnaryOperator curve = bytes -> 100e6 * Math.exp(-Math.pow(Math.log(bytes / peak), 2) / (2 * width * width));
        BatchSizeTuner tuner = new BatchSizeTuner(settings);
        feed(tuner, curve, noise, new Random(seed), MAX_MEASURED * settings.maxSamples() + 10);
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.TUNED);
        assertNearBest(tuner, curve, settings);
        List<BatchSizeTuner.Step> climb = tuner.path().stream().filter(s -> s.state() == BatchSizeTuner.State.CLIMBING).toList();
        int steps = (int) Math.ceil(Math.log((double) settings.maxBytes() / settings.minBytes()) / Math.log(Climb.STEP));
        assertThat(climb).as("%s", tuner.path()).hasSizeLessThanOrEqualTo(steps + 2);
        BatchSizeTuner.Step best = climb.stream().max(Comparator.comparingDouble(BatchSizeTuner.Step::meanBytesPerSecond)).orElseThrow();
        double off = Math.abs(Math.log((double) best.bytes() / peak) / Math.log(Climb.STEP));
        assertThat(off).as("fourfold steps from the peak to where the climb ended: %s", tuner.path()).isLessThanOrEqualTo(1.01);
    }

    private static void tunesNearTheBest(DoubleUnaryOperator curve, double noise, long seed) {
        BatchSizeTuner tuner = run(curve, noise, seed, MAX_MEASURED * SETTINGS.maxSamples());
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.TUNED);
        assertNearBest(tuner, curve);
    }

    @Property
    void theSearchRangeNarrowsAtEveryStep(@ForAll @DoubleRange(min = 0, max = 1) double peakAt,
                                          @ForAll @DoubleRange(min = 0, max = 0.05) double noise, @ForAll long seed) {
        long peak = SETTINGS.size((int) Math.round(peakAt * (SETTINGS.candidates() - 1)));
        BatchSizeTuner tuner = run(bytes -> 1e8 / (1 + Math.abs(Math.log(bytes / peak))), noise, seed, 10_000);
        List<BatchSizeTuner.Step> searching = tuner.path().stream().filter(s -> s.state() == BatchSizeTuner.State.SEARCHING).toList();
        for (int i = 1; i < searching.size(); i++) {
            BatchSizeTuner.Step before = searching.get(i - 1);
            BatchSizeTuner.Step after = searching.get(i);
            assertThat(after.lowBytes()).isGreaterThanOrEqualTo(before.lowBytes());
            assertThat(after.highBytes()).isLessThanOrEqualTo(before.highBytes());
        }
        // Galloping, then halving: the sizes measured are few.
        assertThat(searching.stream().map(BatchSizeTuner.Step::bytes).distinct().count()).isLessThanOrEqualTo(MAX_MEASURED);
    }

    @Property
    void aBestNearTheSizeInUseKeepsTheSearchNearIt(@ForAll @IntRange(min = -1, max = 1) int offset,
                                                   @ForAll @DoubleRange(min = 0.5, max = 3) double width, @ForAll long seed) {
        int start = SETTINGS.nearest(SETTINGS.defaultBytes());
        long peak = SETTINGS.size(start + offset);
        DoubleUnaryOperator curve = bytes -> 1e8 * Math.exp(-Math.pow(Math.log(bytes / (double) peak), 2) / (2 * width * width));
        BatchSizeTuner tuner = run(curve, 0.001, seed, MAX_MEASURED * SETTINGS.maxSamples());
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.TUNED);
        assertNearBest(tuner, curve);
        // Galloping from the size in use: the first steps cover one and two candidates, so the
        // farthest size measured is three away; a search from the middle of the range would go
        // to sizes many times smaller or larger.
        assertThat(tuner.path()).filteredOn(s -> s.state() == BatchSizeTuner.State.SEARCHING)
                .allSatisfy(s -> assertThat(Math.abs(SETTINGS.nearest(s.bytes()) - start)).isLessThanOrEqualTo(3));
    }

    @Property
    void aStartingSizeMeasuredWhileTheLoadWarmsUpIsMeasuredAgainBeforeItLoses(
            @ForAll @DoubleRange(min = 0.5, max = 1.5) double width, @ForAll @IntRange(min = 1, max = 6) int warmBatches,
            @ForAll @DoubleRange(min = 0.4, max = 0.9) double warmSpeed, @ForAll long seed) {
        // The production shape: powers of two, starting at one of them.
        TunerSettings settings = new TunerSettings(MIB, 32 * MIB, 16 * MIB, 6, 3, 0.15, 12, 0.3, 5);
        DoubleUnaryOperator curve = bytes -> 1e8 * Math.exp(-Math.pow(Math.log(bytes / (16.0 * MIB)), 2) / (2 * width * width));
        BatchSizeTuner tuner = new BatchSizeTuner(settings);
        Random random = new Random(seed);
        for (int batch = 0; batch < 200 && tuner.state() != BatchSizeTuner.State.TUNED; batch++) {
            long bytes = tuner.batchBytes();
            // The first batches of a load run slower whatever their size (cold caches and code).
            double throughput = curve.applyAsDouble(bytes) * (1 + 0.01 * random.nextGaussian()) * (batch < warmBatches ? warmSpeed : 1);
            tuner.record(bytes, (long) (bytes / throughput * 1e9), false);
        }
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.TUNED);
        assertThat(tuner.batchBytes()).as("the best size, where it started: %s", tuner.path()).isEqualTo(16 * MIB);
    }

    @Property
    void unsteadyMeasurementsAreSampledAgain(@ForAll @DoubleRange(min = 0, max = 1) double peakAt, @ForAll long seed,
                                             @ForAll @IntRange(min = 4, max = 9) int outlierEvery) {
        long peak = SETTINGS.size((int) Math.round(peakAt * (SETTINGS.candidates() - 1)));
        DoubleUnaryOperator curve = bytes -> 1e8 * Math.exp(-Math.pow(Math.log(bytes / peak), 2) / 2);
        BatchSizeTuner tuner = new BatchSizeTuner(SETTINGS);
        Random random = new Random(seed);
        int careful = 0;
        for (int batch = 0; batch < 2_000 && tuner.state() != BatchSizeTuner.State.TUNED; batch++) {
            long bytes = tuner.batchBytes();
            // Now and then a batch of the careful search hits a hiccup (a checkpoint, a
            // retransmission) and takes three times as long; the climb's single batches are
            // judged on gains larger than one such batch could fake only in one direction.
            boolean hiccup = tuner.state() != BatchSizeTuner.State.CLIMBING && careful++ % outlierEvery == 0;
            double throughput = curve.applyAsDouble(bytes) * (1 + 0.01 * random.nextGaussian()) / (hiccup ? 3 : 1);
            tuner.record(bytes, (long) (bytes / throughput * 1e9), false);
        }
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.TUNED);
        assertThat(tuner.path()).anyMatch(s -> s.samples() > SETTINGS.minSamples());
    }

    @Property
    void aSizeThatNeverSettlesEndsTuningOnTheDefault(@ForAll @DoubleRange(min = 0.3, max = 0.9) double swing, @ForAll long seed) {
        BatchSizeTuner tuner = new BatchSizeTuner(SETTINGS);
        Random random = new Random(seed);
        // Every other batch fast, then slow: no three in a row agree.
        for (int batch = 0; batch < 200 && tuner.state() != BatchSizeTuner.State.UNSTABLE && tuner.state() != BatchSizeTuner.State.TUNED;
             batch++) {
            long bytes = tuner.batchBytes();
            double throughput = 50e6 * (1 + (batch % 2 == 0 ? 1 : -1) * swing * (1 + 0.1 * random.nextDouble()));
            tuner.record(bytes, (long) (bytes / throughput * 1e9), false);
        }
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.UNSTABLE);
        assertThat(tuner.batchBytes()).isEqualTo(SETTINGS.defaultBytes());
    }

    @Property
    void aBatchClosedByItsTimeoutEndsTuning(@ForAll @IntRange(min = 0, max = 60) int at, @ForAll long seed) {
        BatchSizeTuner tuner = new BatchSizeTuner(SETTINGS);
        Random random = new Random(seed);
        for (int batch = 0; batch <= at && tuner.state() != BatchSizeTuner.State.TUNED; batch++) {
            long bytes = tuner.batchBytes();
            tuner.record(bytes, (long) (bytes / (5e7 * (1 + 0.01 * random.nextGaussian())) * 1e9), batch == at);
        }
        if (tuner.state() != BatchSizeTuner.State.TUNED) {
            assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.SOURCE_BOUND);
            assertThat(tuner.batchBytes()).isEqualTo(SETTINGS.defaultBytes());
        }
    }

    @Property
    void aLastingDropStartsANewSearchThatFindsTheNewBest(@ForAll @IntRange(min = 0, max = 32) int first,
                                                          @ForAll @IntRange(min = 0, max = 32) int second, @ForAll long seed) {
        long peakBefore = SETTINGS.size(first);
        long peakAfter = SETTINGS.size(second);
        DoubleUnaryOperator before = bytes -> 1e8 * Math.exp(-Math.pow(Math.log(bytes / peakBefore), 2) / 2);
        // The link got slower everywhere (at least the drop that counts), and its best size moved.
        DoubleUnaryOperator after = bytes -> 0.5e8 * Math.exp(-Math.pow(Math.log(bytes / peakAfter), 2) / 2);
        BatchSizeTuner tuner = run(before, 0.01, seed, MAX_MEASURED * SETTINGS.maxSamples());
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.TUNED);
        feed(tuner, after, 0.01, new Random(seed + 1), SETTINGS.dropWindow() + MAX_MEASURED * SETTINGS.maxSamples());
        assertThat(tuner.searches()).isEqualTo(2);
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.TUNED);
        assertNearBest(tuner, after);
    }

    @Property
    void pausesInFewerThanHalfAWindowAreNoDrop(@ForAll @DoubleRange(min = 0, max = 1) double peakAt,
                                               @ForAll @DoubleRange(min = 2, max = 50) double slowdown,
                                               @ForAll @IntRange(min = 0, max = 10) int spacing, @ForAll long seed) {
        long peak = SETTINGS.size((int) Math.round(peakAt * (SETTINGS.candidates() - 1)));
        DoubleUnaryOperator curve = bytes -> 1e8 * Math.exp(-Math.pow(Math.log(bytes / peak), 2) / 2);
        BatchSizeTuner tuner = run(curve, 0.01, seed, MAX_MEASURED * SETTINGS.maxSamples());
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.TUNED);
        // Bursts of paused batches (a checkpoint, a flush on the target), each burst shorter than
        // half the window and starting at least a window after the one before: no window holds
        // half its batches paused.
        int window = SETTINGS.dropWindow();
        int burst = (window - 1) / 2;
        int every = window + spacing;
        Random random = new Random(seed + 2);
        long chosen = tuner.batchBytes();
        for (int batch = 0; batch < 40 * window; batch++) {
            double throughput = curve.applyAsDouble(chosen) * (1 + 0.01 * random.nextGaussian()) / (batch % every < burst ? slowdown : 1);
            tuner.record(chosen, (long) (chosen / throughput * 1e9), false);
            assertThat(tuner.state()).as("batch %d", batch).isEqualTo(BatchSizeTuner.State.TUNED);
        }
        assertThat(tuner.searches()).isEqualTo(1);
        assertThat(tuner.batchBytes()).isEqualTo(chosen);
    }

    private static BatchSizeTuner run(DoubleUnaryOperator curve, double noise, long seed, int batches) {
        BatchSizeTuner tuner = new BatchSizeTuner(SETTINGS);
        feed(tuner, curve, noise, new Random(seed), batches);
        return tuner;
    }

    /** Writes batches until tuning ends or the count runs out; while tuned, only a few, to see it holds. */
    private static void feed(BatchSizeTuner tuner, DoubleUnaryOperator curve, double noise, Random random, int batches) {
        boolean wasTuned = tuner.state() == BatchSizeTuner.State.TUNED;
        int tunedBatches = 0;
        for (int batch = 0; batch < batches; batch++) {
            long bytes = tuner.batchBytes();
            double throughput = curve.applyAsDouble(bytes) * Math.max(0.05, 1 + noise * random.nextGaussian());
            tuner.record(bytes, Math.max(1, (long) (bytes / throughput * 1e9)), false);
            if (tuner.state() == BatchSizeTuner.State.TUNED && !wasTuned && ++tunedBatches > SETTINGS.dropWindow()) {
                return;
            }
            if (tuner.state() == BatchSizeTuner.State.UNSTABLE || tuner.state() == BatchSizeTuner.State.SOURCE_BOUND) {
                return;
            }
            if (tuner.state() != BatchSizeTuner.State.TUNED) {
                wasTuned = false;
            }
        }
    }

    /** Within 10% of the best candidate's throughput, and not below the default's (allowing the noise). */
    private static void assertNearBest(BatchSizeTuner tuner, DoubleUnaryOperator curve) {
        assertNearBest(tuner, curve, SETTINGS);
    }

    /**
     * Within a tenth of the best size's throughput, and not worse than the size the search
     * started from: the run's own start ({@code settings}' default), which it measured, not
     * another size it may never have tried.
     */
    private static void assertNearBest(BatchSizeTuner tuner, DoubleUnaryOperator curve, TunerSettings settings) {
        double best = IntStream.range(0, settings.candidates()).mapToDouble(i -> curve.applyAsDouble(settings.size(i))).max().orElseThrow();
        double chosen = curve.applyAsDouble(tuner.batchBytes());
        assertThat(chosen).as("throughput at %d bytes, best %f", tuner.batchBytes(), best).isGreaterThanOrEqualTo(0.9 * best);
        assertThat(chosen).as("throughput at %d bytes, started at %d", tuner.batchBytes(), settings.defaultBytes())
                .isGreaterThanOrEqualTo(0.95 * curve.applyAsDouble(settings.defaultBytes()));
    }
}
