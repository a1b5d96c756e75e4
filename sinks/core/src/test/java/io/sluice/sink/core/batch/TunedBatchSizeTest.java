package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.sluice.sink.core.batch.TunedBatchSize.Closing;
import io.sluice.sink.core.metrics.SinkMetrics;
import org.junit.jupiter.api.Test;

class TunedBatchSizeTest {

    private static final long MIB = 1L << 20;
    private static final TunerSettings SETTINGS = new TunerSettings(MIB, 64 * MIB, 16 * MIB, 13, 3, 0.1, 12, 0.3, 5);

    /** A link where each batch costs 100 ms of round trips plus its bytes at 50 MB/s: bigger is better. */
    private static long nanos(long bytes) {
        return 100_000_000L + bytes * 1_000_000_000L / 50_000_000L;
    }

    /** Sizes kept in memory, as a sink keeps them on its target. */
    private static final class Kept implements RememberedSizes {
        final Map<String, Long> sizes = new HashMap<>();
        int reads;

        @Override
        public OptionalLong read(String batches) {
            reads++;
            Long bytes = sizes.get(batches);
            return bytes == null ? OptionalLong.empty() : OptionalLong.of(bytes);
        }

        @Override
        public void write(String batches, long bytes, double bytesPerSecond) {
            sizes.put(batches, bytes);
        }
    }

    private static void tune(TunedBatchSize size) {
        for (int i = 0; i < 200 && !size.state().equals("TUNED"); i++) {
            long bytes = size.bytes();
            size.record(bytes, bytes, nanos(bytes), Closing.FULL);
        }
        assertThat(size.state()).isEqualTo("TUNED");
    }

    @Test
    void theNextRunStartsWhereTheLastRunsTuningEndedAndSearchesLess() {
        Kept kept = new Kept();
        TunedBatchSize first = new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB, kept, "snapshot-copy");
        assertThat(first.bytes()).isEqualTo(16 * MIB);
        tune(first);
        assertThat(kept.sizes).containsEntry("snapshot-copy", 64 * MIB);
        int firstSteps = first.path().size();

        TunedBatchSize second = new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB, kept, "snapshot-copy");
        assertThat(second.bytes()).as("starts at the size remembered").isEqualTo(64 * MIB);
        tune(second);
        assertThat(second.bytes()).isEqualTo(64 * MIB);
        assertThat(second.path().size()).as("sizes measured").isLessThan(firstSteps);
        assertThat(new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB, kept, "stream-apply").bytes())
                .as("another kind of batches starts at the configured size").isEqualTo(16 * MIB);
    }

    @Test
    void aLoadThatEndsBeforeItsSearchKeepsTheBestSizeMeasuredAndTheNextRunStartsThereWithoutClimbing() {
        Kept kept = new Kept();
        TunedBatchSize first = new TunedBatchSize("test", Optional.of(SETTINGS.startingAt(MIB)), MIB, kept, "snapshot-copy");
        // A short load: the climb from 1 MB and a few batches of the careful search, then the rows end.
        for (int i = 0; i < 10; i++) {
            long bytes = first.bytes();
            first.record(bytes, bytes, nanos(bytes), Closing.FULL);
        }
        assertThat(first.state()).isNotEqualTo("TUNED");
        assertThat(kept.sizes).isEmpty();
        first.keepBestSoFar();
        long best = first.path().stream().filter(s -> s.samples() > 0).max(java.util.Comparator.comparingDouble(BatchSizeTuner.Step::meanBytesPerSecond))
                .orElseThrow().bytes();
        assertThat(best).as("on this link larger is better: the largest reached").isGreaterThanOrEqualTo(16 * MIB);
        assertThat(kept.sizes).containsEntry("snapshot-copy", best);

        TunedBatchSize second = new TunedBatchSize("test", Optional.of(SETTINGS.startingAt(MIB)), MIB, kept, "snapshot-copy");
        assertThat(second.bytes()).isEqualTo(best);
        assertThat(second.state()).as("measured carefully, no climb").isEqualTo("BASELINE");
        tune(second);
        kept.sizes.clear();
        second.keepBestSoFar();
        assertThat(kept.sizes).as("a tuned size was kept when it was found; nothing more").isEmpty();
        // The link slows down for good: a new search starts, and the load ends during it.
        for (int i = 0; i < SETTINGS.dropWindow(); i++) {
            long bytes = second.bytes();
            second.record(bytes, bytes, nanos(bytes), Closing.FULL); // the size in use, as tuned
        }
        for (int i = 0; i < 5 * SETTINGS.dropWindow() && !second.state().equals("BASELINE"); i++) {
            long bytes = second.bytes();
            second.record(bytes, bytes, 3 * nanos(bytes), Closing.FULL);
        }
        assertThat(second.state()).isEqualTo("BASELINE");
        second.keepBestSoFar();
        assertThat(kept.sizes).as("a search begun on a drop after tuning keeps nothing").isEmpty();
        TunedBatchSize fixed = new TunedBatchSize("test", Optional.empty(), MIB, kept, "snapshot-copy");
        fixed.keepBestSoFar();
        assertThat(kept.sizes).isEmpty();
    }

    @Test
    void aRememberedSizeOutsideTheRangeStartsAtItsEdgeAndFixedSizesReadNothing() {
        Kept kept = new Kept();
        kept.sizes.put("stream-apply", 1L << 40);
        assertThat(new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB, kept, "stream-apply").bytes()).isEqualTo(64 * MIB);
        kept.reads = 0;
        TunedBatchSize fixed = new TunedBatchSize("test", Optional.empty(), 5 * MIB, kept, "stream-apply");
        assertThat(fixed.bytes()).isEqualTo(5 * MIB);
        assertThat(kept.reads).isZero();
    }

    @Test
    void withoutTuningEveryBatchHasTheConfiguredSize() {
        TunedBatchSize size = new TunedBatchSize("test", Optional.empty(), 5 * MIB);
        size.record(5 * MIB, 5 * MIB, nanos(5 * MIB), Closing.FULL);
        size.record(5 * MIB, MIB, nanos(MIB), Closing.TIMEOUT);
        assertThat(size.bytes()).isEqualTo(5 * MIB);
        assertThat(size.state()).isEqualTo("FIXED");
        assertThat(size.path()).isEmpty();
    }

    @Test
    void theFirstBatchAtEachSizeAndBatchesOfAnEarlierSizeAreNotCounted() {
        TunedBatchSize size = new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB);
        long first = size.bytes();
        size.record(first, first, 1, Closing.FULL); // warm-up: absurdly fast, ignored
        size.record(first, first, nanos(first), Closing.FULL);
        assertThat(size.path()).hasSize(1);
        assertThat(size.path().get(0).state()).isEqualTo(BatchSizeTuner.State.CLIMBING);
        assertThat(size.path().get(0).meanBytesPerSecond()).isCloseTo(first * 1e9 / nanos(first), org.assertj.core.data.Percentage.withPercentage(0.1));
        long next = size.bytes();
        assertThat(next).isNotEqualTo(first);
        size.record(first, first, 1, Closing.FULL); // filled to the old size: ignored
        size.record(next, next, 1, Closing.FULL); // warm-up at the new size: ignored
        assertThat(size.path()).hasSize(1);
        size.record(next, next, nanos(next), Closing.FULL);
        assertThat(size.path()).hasSize(2);
        assertThat(size.path().get(1).bytes()).isEqualTo(next);
        assertThat(size.path().get(1).meanBytesPerSecond()).isCloseTo(next * 1e9 / nanos(next), org.assertj.core.data.Percentage.withPercentage(0.1));
    }

    @Test
    void batchesBesideAnotherSizeAreNotCountedAndEndTheWarmUp() {
        TunedBatchSize size = new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB);
        long first = size.bytes();
        size.record(first, first, first, 1, Closing.FULL, false); // warm-up: ignored
        size.record(first, first, first, nanos(first), Closing.FULL, false);
        assertThat(size.path()).hasSize(1);
        long next = size.bytes();
        // The old size's last batches were still on their way: the meter read both sizes.
        size.record(next, next, 4 * next, 1, Closing.FULL, true);
        size.record(next, next, 4 * next, 1, Closing.FULL, true);
        assertThat(size.path()).as("beside the old size: no measurement").hasSize(1);
        size.record(next, next, next, nanos(next), Closing.FULL, false);
        assertThat(size.path()).as("the first batch of the new size alone counts").hasSize(2);
        assertThat(size.path().get(1).bytes()).isEqualTo(next);
    }

    @Test
    void convergesOnALinkThroughRealBatchesAndEndsAtTheLargestSize() {
        TunedBatchSize size = new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB);
        for (int i = 0; i < 200 && !size.state().equals("TUNED"); i++) {
            long bytes = size.bytes();
            size.record(bytes, bytes, nanos(bytes), Closing.FULL);
        }
        assertThat(size.state()).isEqualTo("TUNED");
        assertThat(size.bytes()).isEqualTo(64 * MIB);
        assertThat(size.status()).contains("64.0 MB").contains("tuned");
    }

    @Test
    void afterBatchesTheSourceDidNotFillTuningStartsAgainOnceBatchesFillInARow() {
        TunedBatchSize size = new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB);
        size.record(16 * MIB, MIB, nanos(MIB), Closing.TIMEOUT);
        assertThat(size.state()).isEqualTo("SOURCE_BOUND");
        size.record(16 * MIB, 16 * MIB, nanos(16 * MIB), Closing.FULL);
        size.record(16 * MIB, 16 * MIB, nanos(16 * MIB), Closing.FULL);
        size.record(16 * MIB, MIB, nanos(MIB), Closing.TIMEOUT); // a quiet moment: the count starts over
        for (int i = 0; i < 2; i++) {
            size.record(16 * MIB, 16 * MIB, nanos(16 * MIB), Closing.FULL);
        }
        assertThat(size.state()).isEqualTo("SOURCE_BOUND");
        size.record(16 * MIB, 16 * MIB, nanos(16 * MIB), Closing.FULL);
        assertThat(size.state()).isEqualTo("CLIMBING");
    }

    @Test
    void sizeThroughputAndStateAreJmxAttributes() throws Exception {
        TunedBatchSize size = new TunedBatchSize("test", Optional.of(SETTINGS), 16 * MIB);
        try (SinkMetrics metrics = SinkMetrics.of(null)) {
            size.register(metrics.plugin(), "snapshot-copy");
            size.record(16 * MIB, 8 * MIB, 1_000_000_000L, Closing.EARLY);
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> names = server.queryNames(new ObjectName(SinkMetrics.JMX_DOMAIN + ":batches=snapshot-copy,*"), null);
            assertThat(names).hasSize(1);
            ObjectName name = names.iterator().next();
            assertThat(server.getAttribute(name, "batch-size-bytes")).isEqualTo(16 * MIB);
            assertThat(server.getAttribute(name, "batch-throughput-bytes-per-second")).isEqualTo(8.0 * MIB);
            assertThat(server.getAttribute(name, "batch-tuning-state")).isEqualTo("CLIMBING");
            assertThat(server.getAttribute(name, "batch-tuning-searches")).isEqualTo(0);
        }
    }
}
