package io.sluice.sink.webhook;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.testing.kafka.SourceTaskContexts;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Sluice's source task feeding the webhook sink task in the test's thread, the way the embedded
 * runtime does it: the source's offsets are stored (in a map standing in for the offsets file)
 * only at {@link #commit()}, once the sink says the outbox holds everything. Closing without a
 * commit is a crash.
 */
final class SourceToWebhooks implements AutoCloseable {

    private final PostgresSourceTask source = new PostgresSourceTask();
    private final WebhookSinkTask sink = new WebhookSinkTask();
    private final Map<Map<String, ?>, Map<String, Object>> stored;
    private final Map<Map<String, ?>, Map<String, Object>> putNotStored = new HashMap<>();
    private final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    private long offset;
    private volatile boolean pumping;
    private Thread pumper;

    SourceToWebhooks(Map<Map<String, ?>, Map<String, Object>> stored, Map<String, String> sourceProps, Map<String, String> sinkProps) {
        this.stored = stored;
        source.initialize(SourceTaskContexts.withOffsets(stored));
        sink.start(sinkProps);
        try {
            source.start(sourceProps);
        } catch (RuntimeException e) {
            sink.stop();
            throw e;
        }
    }

    static Map<String, String> sourceProps(TestDatabase db, String prefix) {
        Map<String, String> props = db.sourceConnection();
        props.put("topic.prefix", prefix);
        props.put("snapshot.mode", "initial");
        props.put("status.update.interval.ms", "200");
        return props;
    }

    /** The sink's keys for a state database, with loopback allowed and short retries; then the given keys and values. */
    static Map<String, String> sinkProps(TestDatabase state, String... settings) {
        Map<String, String> props = new HashMap<>(Map.of("state.url", state.url(), "delivery.allow.networks", "127.0.0.1/32",
                "batch.tuning.enabled", "false", "outbox.max.delay.ms", "5"));
        for (int i = 0; i < settings.length; i += 2) {
            props.put(settings[i], settings[i + 1]);
        }
        return props;
    }

    /** Moves one poll's records from the source into the sink; returns how many. */
    int pump() throws InterruptedException {
        List<SourceRecord> batch = source.poll();
        if (batch == null || batch.isEmpty()) {
            sink.put(List.of());
            return 0;
        }
        List<SinkRecord> records = new ArrayList<>(batch.size());
        for (SourceRecord r : batch) {
            records.add(new SinkRecord(r.topic(), 0, r.keySchema(), r.key(), r.valueSchema(), r.value(), offset, r.timestamp(), null,
                    r.headers()));
            next.put(new TopicPartition(r.topic(), 0), new OffsetAndMetadata(++offset));
            @SuppressWarnings("unchecked")
            Map<String, Object> sourceOffset = new HashMap<>((Map<String, Object>) r.sourceOffset());
            putNotStored.put(r.sourcePartition(), sourceOffset);
        }
        sink.put(records);
        return batch.size();
    }

    /** Pumps until the condition holds; fails after the time given. */
    void pumpUntil(java.util.function.BooleanSupplier done, long millis, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            if (pump() == 0) {
                Thread.sleep(20);
            }
        }
    }

    /** Pumps on a thread of its own, as the embedded engine polls, until {@link #stopPumping}. */
    void startPumping() {
        pumping = true;
        pumper = new Thread(() -> {
            try {
                while (pumping) {
                    if (pump() == 0) {
                        Thread.sleep(1);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "test-pump");
        pumper.start();
    }

    void stopPumping() throws InterruptedException {
        pumping = false;
        pumper.join();
    }

    /** Makes everything put durable in the outbox, checks the sink reports all of it, stores the source offsets. */
    void commit() {
        sink.flush(Map.copyOf(next));
        Map<TopicPartition, OffsetAndMetadata> durable = sink.preCommit(Map.copyOf(next));
        if (!durable.equals(next)) {
            throw new AssertionError("the sink held back offsets after a flush: " + durable + " of " + next);
        }
        stored.putAll(putNotStored);
        putNotStored.clear();
        source.commit();
    }

    WebhookSinkTask sink() {
        return sink;
    }

    @Override
    public void close() {
        try {
            source.stop();
        } finally {
            sink.stop();
        }
    }
}
