package io.sluice.sink.core.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TopicPartitionsTest {

    @Test
    void handsOutOneObjectPerTopicAndPartitionEqualToANewOne() {
        TopicPartitions partitions = new TopicPartitions();
        TopicPartition first = partitions.of("db.public.t", 3);
        assertThat(first).isEqualTo(new TopicPartition("db.public.t", 3));
        assertThat(partitions.of(new String("db.public.t"), 3)).isSameAs(first);
        assertThat(partitions.of("db.public.t", 0)).isEqualTo(new TopicPartition("db.public.t", 0)).isNotSameAs(first);
        assertThat(partitions.of("db.public.t", 3)).isSameAs(first); // a lower partition added later keeps the higher one
        assertThat(partitions.of("db.public.u", 3)).isEqualTo(new TopicPartition("db.public.u", 3));
    }

    @Test
    void givesPartitionsOutsideTheCacheAsNewObjects() {
        TopicPartitions partitions = new TopicPartitions();
        assertThat(partitions.of("t", -1)).isEqualTo(new TopicPartition("t", -1));
        assertThat(partitions.of("t", 100_000)).isEqualTo(new TopicPartition("t", 100_000));
    }
}
