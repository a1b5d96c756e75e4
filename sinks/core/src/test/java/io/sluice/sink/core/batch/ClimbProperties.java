package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;

/**
 * The climb on links where a batch costs a fixed time (round trips, the COPY's start and
 * commit) plus a time per byte: throughput rises with the size and levels off. Invariants: from
 * the smallest size, the climb measures no more sizes than fourfold steps across the range would
 * (the line's jump saves steps, never adds them), and ends at a size that moves at least 80% of
 * what the largest does. On such a link a fourfold step from a size gains {@code 4(x + 1) / (x +
 * 4)}, where x is the fixed cost over the time per byte's share at that size, and the size moves
 * {@code 1 / (1 + x)} of the stream's rate: 80% is x up to 0.25, a step gaining up to 20/17, so a
 * climb that stops below a step gaining under {@link Climb#GAIN} (15%) meets it. Noise widens the
 * bound: two batches' rates compared are off by up to the ratio of the largest and smallest noise
 * factor drawn, and the step's true gain by as much. Where the fixed cost dominates, the climb
 * goes from the second size straight to the largest.
 */
class ClimbProperties {

    private static final long MIB = 1L << 20;

    @Property
    void fromTheBottomOfALineLinkTheClimbTakesNoMoreStepsThanFourfoldOnesAndEndsNearTheTop(
            // Orders of magnitude: a fixed cost from 0.1 ms (a local target) to 2 s, a stream of 1 MB/s to 2 GB/s.
            @ForAll @DoubleRange(min = -4, max = 0.3) double fixedLog10,
            @ForAll @DoubleRange(min = 6, max = 9.3) double rateLog10,
            @ForAll @DoubleRange(min = 0, max = 0.02) double noise, @ForAll long seed) {
        double fixedSeconds = Math.pow(10, fixedLog10);
        double bytesPerSecond = Math.pow(10, rateLog10);
        TunerSettings settings = TunerSettings.between(MIB, 256 * MIB, MIB);
        Random random = new Random(seed);
        Climb climb = new Climb(settings);
        List<Long> measured = new ArrayList<>();
        double leastNoise = Double.MAX_VALUE;
        double mostNoise = 0;
        boolean over = false;
        while (!over) {
            long bytes = climb.bytes();
            measured.add(bytes);
            double factor = Math.max(0.5, 1 + noise * random.nextGaussian());
            leastNoise = Math.min(leastNoise, factor);
            mostNoise = Math.max(mostNoise, factor);
            double seconds = (fixedSeconds + bytes / bytesPerSecond) * factor;
            over = climb.record(bytes / seconds, (long) (seconds * 1e9));
            assertThat(measured).as("sizes measured").hasSizeLessThanOrEqualTo(6);
        }
        int fourfoldSteps = (int) Math.ceil(Math.log(256) / Math.log(Climb.STEP));
        assertThat(measured).as("sizes measured").hasSizeLessThanOrEqualTo(fourfoldSteps + 1);
        double top = rate(settings.maxBytes(), fixedSeconds, bytesPerSecond);
        double ended = rate(settings.size(climb.best()), fixedSeconds, bytesPerSecond);
        assertThat(ended).as("%s, ended at %d, noise factors %.3f to %.3f", measured, settings.size(climb.best()), leastNoise, mostNoise)
                .isGreaterThanOrEqualTo(top * leastShareOfTheTop(mostNoise / leastNoise));
    }

    /**
     * The least share of the largest size's rate where a climb may end on a line link: 80% without
     * noise (a last fourfold step gaining 20/17), less where noise factors up to {@code noiseRatio}
     * apart may have hidden part of that step's gain.
     */
    static double leastShareOfTheTop(double noiseRatio) {
        double stepGain = 20.0 / 17 * noiseRatio;
        double fixedOverPerByte = 4 * (stepGain - 1) / (4 - stepGain);
        return 1 / (1 + fixedOverPerByte);
    }

    @Example
    void throughALongLinkFrom1MbItGoesFrom4MbStraightToTheLargest() {
        // Batch times through the 200 ms link of bench/batch-tuning.sh: 1 MB in 0.85 s, 4 MB in 1.25 s.
        TunerSettings settings = TunerSettings.between(MIB, 32 * MIB, MIB);
        Climb climb = new Climb(settings);
        assertThat(climb.bytes()).isEqualTo(MIB);
        assertThat(climb.record(4 * MIB / 0.85, 850_000_000L)).isFalse();
        assertThat(climb.bytes()).isEqualTo(4 * MIB);
        assertThat(climb.record(4 * 4 * MIB / 1.25, 1_250_000_000L)).isFalse();
        assertThat(climb.bytes()).isEqualTo(32 * MIB);
    }

    @Example
    void aJumpThatDoesNotGainFallsBackToTheUsualStepBelowIt() {
        TunerSettings settings = TunerSettings.between(MIB, 256 * MIB, MIB);
        Climb climb = new Climb(settings);
        climb.record(MIB / 0.5, 500_000_000L);
        climb.record(4 * MIB / 0.55, 550_000_000L); // nearly all fixed cost: the line points far up
        long jumpedTo = climb.bytes();
        assertThat(jumpedTo).isGreaterThan(16 * MIB);
        climb.record(jumpedTo / 10.0, 10_000_000_000L); // past a peak: much slower
        assertThat(climb.bytes()).as("the usual fourfold step from 4 MB").isEqualTo(16 * MIB);
    }

    /** What a stream moves with batches of {@code bytes} on a link of a fixed cost plus a time per byte. */
    static double rate(long bytes, double fixedSeconds, double bytesPerSecond) {
        return bytes / (fixedSeconds + bytes / bytesPerSecond);
    }
}
