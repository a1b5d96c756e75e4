package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * The climb's opening round with several streams, against {@link SimulatedStreams} (each
 * stream's batch costs a fixed time plus a time per byte). Invariants: the round's sizes are the climb's fourfold steps from
 * the start, one a stream; the climb ends at a size that moves at least 80% of what the largest
 * does, less what the noise drawn may hide, as one step after the other does (see
 * {@link ClimbProperties}), and measures no more
 * sizes than fourfold steps across the range would.
 */
class OpeningRoundProperties {

    private static final long MIB = 1L << 20;

    @Property
    void fromTheBottomOfALineLinkTheRoundEndsTheClimbNearTheTop(
            @ForAll @DoubleRange(min = -4, max = 0.3) double fixedLog10,
            @ForAll @DoubleRange(min = 6, max = 9.3) double rateLog10,
            @ForAll @IntRange(min = 2, max = 8) int streams,
            @ForAll @DoubleRange(min = 0, max = 0.02) double noise, @ForAll long seed) {
        double fixedSeconds = Math.pow(10, fixedLog10);
        double bytesPerSecond = Math.pow(10, rateLog10);
        TunerSettings settings = TunerSettings.between(MIB, 256 * MIB, MIB);
        SimulatedStreams link = new SimulatedStreams(settings, streams, fixedSeconds, bytesPerSecond, noise, new Random(seed));
        link.runWhile(2000, "CLIMBING");

        List<Long> round = link.sent.subList(0, Math.min(streams, link.sent.size()));
        long expected = MIB;
        for (long size : round) {
            assertThat(size).as("the round's sizes %s", round).isEqualTo(expected);
            expected = Math.min(expected * 4, settings.maxBytes());
        }
        List<BatchSizeTuner.Step> climb = link.batches.path().stream().filter(s -> s.state() == BatchSizeTuner.State.CLIMBING).toList();
        long ended = link.batches.climbEndedBytes();
        assertThat(ended).as("where the climb %s ended", climb).isPositive();
        double top = ClimbProperties.rate(settings.maxBytes(), fixedSeconds, bytesPerSecond);
        assertThat(ClimbProperties.rate(ended, fixedSeconds, bytesPerSecond)).as("climb %s, then %s at %d", climb, link.batches.state(), ended)
                .isGreaterThanOrEqualTo(top * ClimbProperties.leastShareOfTheTop(link.mostScale / link.leastScale));
        int fourfoldSteps = (int) Math.ceil(Math.log(256) / Math.log(Climb.STEP));
        assertThat(climb).as("sizes the climb measured").hasSizeLessThanOrEqualTo(fourfoldSteps + 1);
    }

    @Example
    void throughALongLinkTheStreamsTakeTheLargestSizeOnceTheFirstBatchIsIn() {
        // The 200 ms link of bench/batch-tuning.sh, four streams from 1 MB: 0.8 s a round trip pair, 10 MB/s a stream.
        TunerSettings settings = TunerSettings.between(MIB, 32 * MIB, MIB);
        BatchSizeTuner tuner = new BatchSizeTuner(settings, true, 4);
        List<Long> round = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            round.add(tuner.batchBytes());
            tuner.sent(tuner.batchBytes(), true);
        }
        assertThat(round).containsExactly(MIB, 4 * MIB, 16 * MIB, 32 * MIB);
        assertThat(tuner.batchBytes()).as("while the round's sizes are out").isEqualTo(32 * MIB);

        assertThat(tuner.roundBatch(MIB, MIB, 900_000_000L)).isTrue();
        assertThat(tuner.batchBytes()).as("the stream the 1 MB batch freed").isEqualTo(32 * MIB);
        tuner.sent(32 * MIB, true);
        assertThat(tuner.roundBatch(4 * MIB, 4 * MIB, 1_200_000_000L)).isTrue();
        // The line through 1 and 4 MB points past 16 MB: the climb waits for the 32 MB batch.
        assertThat(tuner.roundBatch(16 * MIB, 16 * MIB, 2_400_000_000L)).isTrue();
        assertThat(tuner.path()).extracting(BatchSizeTuner.Step::bytes).containsExactly(MIB, 4 * MIB);
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.CLIMBING);
        assertThat(tuner.roundBatch(32 * MIB, 32 * MIB, 4_000_000_000L)).isTrue();
        assertThat(tuner.path()).extracting(BatchSizeTuner.Step::bytes).startsWith(MIB, 4 * MIB, 32 * MIB);
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.SEARCHING);
        assertThat(tuner.roundBatch(32 * MIB, 32 * MIB, 4_000_000_000L)).as("no round once the climb ended").isFalse();
    }

    @Example
    void aBatchThatDoesNotRunBesideTheOthersEndsTheRound() {
        // A frozen load: its batches queue on one connection, so sizes of a round would not run side by side.
        TunerSettings settings = TunerSettings.between(MIB, 32 * MIB, MIB);
        BatchSizeTuner tuner = new BatchSizeTuner(settings, true, 4);
        tuner.sent(tuner.batchBytes(), false);
        assertThat(tuner.batchBytes()).as("one size after the other: the start until it is measured").isEqualTo(MIB);
        assertThat(tuner.roundBatch(MIB, MIB, 900_000_000L)).isFalse();
        tuner.record(4 * MIB, 900_000_000L, false);
        assertThat(tuner.batchBytes()).isEqualTo(4 * MIB);
    }

    @Example
    void resultsOutOfOrderAreTakenInTheClimbsOrder() {
        TunerSettings settings = TunerSettings.between(MIB, 256 * MIB, MIB);
        BatchSizeTuner tuner = roundSent(settings, 3);
        // A flat link: the 4 MB batch gains nothing over 1 MB, and comes in first.
        assertThat(tuner.roundBatch(4 * MIB, 4 * MIB, 400_000_000L)).isTrue();
        assertThat(tuner.path()).isEmpty();
        assertThat(tuner.roundBatch(MIB, MIB, 100_000_000L)).isTrue();
        assertThat(tuner.path()).extracting(BatchSizeTuner.Step::bytes).containsExactly(MIB, 4 * MIB);
        assertThat(tuner.state()).as("the round's 16 MB batch is still on its way").isEqualTo(BatchSizeTuner.State.CLIMBING);
        assertThat(tuner.roundBatch(16 * MIB, 16 * MIB, 1_600_000_000L)).isTrue();
        assertThat(tuner.path()).extracting(BatchSizeTuner.Step::bytes).startsWith(MIB, 4 * MIB, 16 * MIB);
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.SEARCHING);
    }

    @Example
    void aSizeOfTheRoundThatDoesNotGainLeavesTheLargerOnesToDecide() {
        // At 0 ms (bench/results/batch-tuning-20261130-024100): beside three larger batches the
        // 4 MB one read slower than the 1 MB one, where 16 MB moved twice as much.
        TunerSettings settings = TunerSettings.between(MIB, 32 * MIB, MIB);
        BatchSizeTuner tuner = roundSent(settings, 4);
        assertThat(tuner.roundBatch(MIB, MIB, 100_000_000L)).isTrue(); // 40 MB/s over four streams
        assertThat(tuner.roundBatch(4 * MIB, 4 * MIB, 470_000_000L)).isTrue(); // 35 MB/s: no gain
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.CLIMBING);
        assertThat(tuner.roundBatch(16 * MIB, 16 * MIB, 800_000_000L)).isTrue(); // 84 MB/s
        assertThat(tuner.roundBatch(32 * MIB, 32 * MIB, 1_700_000_000L)).isTrue(); // 79 MB/s: within the noise of 16 MB
        assertThat(tuner.state()).isEqualTo(BatchSizeTuner.State.SEARCHING);
        assertThat(tuner.batchBytes()).as("the careful search starts at the best of the round").isEqualTo(16 * MIB);
    }

    /** A tuner climbing from the start with {@code streams} streams, each of which took its batch of the opening round. */
    private static BatchSizeTuner roundSent(TunerSettings settings, int streams) {
        BatchSizeTuner tuner = new BatchSizeTuner(settings, true, streams);
        for (int i = 0; i < streams; i++) {
            tuner.sent(tuner.batchBytes(), true);
        }
        return tuner;
    }
}
