package io.sluice.sink.opensearch.index;

import java.util.Collection;
import java.util.Set;

import io.sluice.sink.core.barrier.BarrierStore;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Where the OpenSearch sink would keep ordering barriers: not yet anywhere. Barriers come only
 * from a source with {@code barriers.topic.partitions} above 0 (table topics of several
 * partitions); the first one the sink meets stops the task with that said, rather than letting
 * a partition run ahead of a schema event.
 */
public final class NoBarrierStore implements BarrierStore {

    private static ConnectException unsupported() {
        return new ConnectException("An ordering barrier reached the OpenSearch sink; it does not keep barriers yet (planned). "
                + "Run the source with barriers.topic.partitions=0 and table topics of one partition: versions keep each "
                + "document's order, and one partition per table keeps the schema's");
    }

    @Override
    public void arrive(String barrier, TopicPartition partition, long offset) {
        throw unsupported();
    }

    @Override
    public Set<TopicPartition> arrived(String barrier, Collection<String> topics) {
        throw unsupported();
    }

    @Override
    public Set<String> released(Collection<String> barriers) {
        throw unsupported();
    }

    @Override
    public void release(String barrier) {
        throw unsupported();
    }

    @Override
    public void releaseElsewhere(String barrier) {
        throw unsupported();
    }

    @Override
    public void reset() {
    }

    @Override
    public void close() {
    }
}
