package io.sluice.sink.webhook;

import java.util.HashMap;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.postgres.TestDatabase;

/** Sluice's source task feeding this module's sink task in the test's thread ({@link SourceToSink}), and the keys they take. */
final class Pipes {

    private Pipes() {
    }

    /**
     * @param stored the offsets store, shared by the pipes of one pipeline across restarts
     */
    static SourceToSink<WebhookSinkTask> open(Map<Map<String, ?>, Map<String, Object>> stored, Map<String, String> sourceProps,
                                              Map<String, String> sinkProps) {
        return new SourceToSink<>(new PostgresSourceTask(), new WebhookSinkTask(), stored, sourceProps, sinkProps);
    }

    static Map<String, String> sourceProps(TestDatabase db, String prefix) {
        return SourceToSink.sourceProps(db, prefix);
    }

    /** The sink's keys for a state database, with loopback allowed and short retries; then the given keys and values. */
    static Map<String, String> sinkProps(TestDatabase state, String... settings) {
        return SourceToSink.with(new HashMap<>(Map.of("state.url", state.url(), "delivery.allow.networks", "127.0.0.1/32",
                "batch.tuning.enabled", "false", "outbox.max.delay.ms", "5")), settings);
    }
}
