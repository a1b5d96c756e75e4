package io.sluice.runtime.pipeline;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/** A sink that keeps what it is given and, unless told otherwise, calls everything put durable. */
class StandInSink extends SinkTask {
    final List<SinkRecord> put = new CopyOnWriteArrayList<>();
    final CountDownLatch askedForDurable = new CountDownLatch(1);
    final Semaphore puts = new Semaphore(Integer.MAX_VALUE);
    volatile UnaryOperator<Map<TopicPartition, OffsetAndMetadata>> durable = offsets -> offsets;
    volatile RuntimeException failure;
    volatile int flushes;

    void blockPuts() throws InterruptedException {
        puts.acquire(Integer.MAX_VALUE);
    }

    void unblockPuts() {
        puts.release(Integer.MAX_VALUE);
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (failure != null) {
            throw failure;
        }
        try {
            puts.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        put.addAll(records);
        puts.release();
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        Map<TopicPartition, OffsetAndMetadata> result = durable.apply(currentOffsets);
        askedForDurable.countDown();
        return result;
    }

    @Override
    public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        flushes++;
    }

    @Override
    public String version() {
        return "test";
    }

    @Override
    public void start(Map<String, String> props) {
    }

    @Override
    public void stop() {
    }
}
