package io.sluice.sink.postgres.copy;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetRunsTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    @Test
    void aRunGoesOnWhileThePartitionsRecordsGoIntoTheSameBatch() {
        OffsetRuns runs = new OffsetRuns();
        runs.cover(P0, 10, false);
        runs.cover(P0, 11, true);
        runs.cover(P0, 14, true); // 12 and 13 were nothing to load
        runs.cover(P1, 3, false);
        runs.cover(P0, 20, false); // 15 to 19 went elsewhere
        assertThat(runs.byPartition().get(P0)).containsExactly(new long[] {10, 14}, new long[] {20, 20});
        assertThat(runs.byPartition().get(P1)).containsExactly(new long[] {3, 3});
        assertThat(new OffsetRuns().isEmpty()).isTrue();
    }
}
