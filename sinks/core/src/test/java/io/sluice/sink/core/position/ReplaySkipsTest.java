package io.sluice.sink.core.position;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ReplaySkipsTest {

    private static final TopicPartition P = new TopicPartition("t", 0);
    private static final TopicPartition Q = new TopicPartition("t", 1);

    @Test
    void recordsBelowTheStoredOffsetAndInsideLoadedRunsAreSkippedAndOthersAreNot() {
        ReplaySkips skips = new ReplaySkips();
        TreeMap<Long, Long> runs = new TreeMap<>();
        runs.put(2L, 4L); // below the stored offset: dropped
        runs.put(10L, 12L);
        runs.put(20L, 20L);
        skips.resume(P, 5L, runs, null);
        assertThat(skips.onTargetByOffset(P, 4)).isTrue();
        assertThat(skips.onTargetByOffset(P, 5)).isFalse();
        assertThat(skips.onTargetByOffset(P, 10)).isTrue();
        assertThat(skips.onTargetByOffset(P, 12)).isTrue();
        assertThat(skips.onTargetByOffset(P, 13)).isFalse();
        assertThat(skips.onTargetByOffset(P, 20)).isTrue();
        assertThat(skips.onTargetByOffset(Q, 0)).isFalse();
        assertThat(skips.belowApplied(P, 10)).isFalse(); // in a run, not below the offset: not durable by itself
        assertThat(skips.count()).isEqualTo(4);
        assertThat(skips.partitionsWithLoadedRuns()).isEqualTo(1);
    }

    @Test
    void aChangeAtOrBelowThePartitionsNewestPositionIsAReplay() {
        ReplaySkips skips = new ReplaySkips();
        skips.resume(P, null, null, new SourcePosition(100, 3));
        assertThat(skips.replayed(P, new SourcePosition(100, 3))).isTrue();
        assertThat(skips.replayed(P, new SourcePosition(99, 9))).isTrue();
        assertThat(skips.replayed(P, new SourcePosition(100, 4))).isFalse();
        assertThat(skips.replayed(P, null)).isFalse();
        assertThat(skips.replayed(Q, new SourcePosition(1, 1))).isFalse();
        skips.took(Q, new SourcePosition(200, 1));
        skips.took(Q, new SourcePosition(150, 1)); // an older one never lowers it
        assertThat(skips.replayed(Q, new SourcePosition(199, 5))).isTrue();
        assertThat(skips.replayed(Q, new SourcePosition(-1L, 0))).isFalse(); // LSNs compare unsigned: the largest one
    }

    @Test
    void aPartitionTakenAwayIsForgotten() {
        ReplaySkips skips = new ReplaySkips();
        skips.resume(P, 5L, new TreeMap<>(java.util.Map.of(7L, 8L)), new SourcePosition(1, 1));
        skips.forget(List.of(P));
        assertThat(skips.onTargetByOffset(P, 0)).isFalse();
        assertThat(skips.onTargetByOffset(P, 7)).isFalse();
        assertThat(skips.replayed(P, new SourcePosition(1, 1))).isFalse();
    }
}
