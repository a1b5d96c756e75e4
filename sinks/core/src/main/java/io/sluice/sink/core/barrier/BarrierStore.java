package io.sluice.sink.core.barrier;

import java.util.Collection;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/**
 * Where the tasks of one sink connector, on any workers, agree on ordering barriers: which topic
 * partitions have every record before a barrier durable, and which barriers' events are applied.
 * It must be one place every task sees and that survives restarts and rebalances (the PostgreSQL
 * sink keeps it on the target; other sinks in their state database). Failures are thrown as
 * {@code ConnectException}s that name the store and what to do.
 */
public interface BarrierStore extends AutoCloseable {

    /**
     * Records that a partition reached a barrier with every record before {@code offset} durable,
     * so a task that gets the partition next may start at the barrier.
     */
    void arrive(String barrier, TopicPartition partition, long offset);

    /** The partitions of these topics that reached the barrier. */
    Set<TopicPartition> arrived(String barrier, Collection<String> topics);

    /** Which of these barriers are released. */
    Set<String> released(Collection<String> barriers);

    /** Releases a barrier whose event is applied. */
    void release(String barrier);

    /** Releases a barrier from a thread other than the task's (work finished in the background). */
    void releaseElsewhere(String barrier);

    /** Drops what a failed call may have left broken (a connection): the next call starts afresh. */
    void reset();

    @Override
    void close();
}
