package io.sluice.runtime.pipeline;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.sluice.connector.postgres.PostgresSourceConnector;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Debezium embedded engine running Sluice's source connector and the pipeline's transforms
 * on a thread of its own, handing batches to a consumer. Offsets go to the pipeline's offsets
 * file, committed when the consumer says its records are durable, never on a timer.
 */
final class EmbeddedEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedEngine.class);

    private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "sluice-engine"));
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicReference<String> failureMessage = new AtomicReference<>();
    private final CountDownLatch ended = new CountDownLatch(1);
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * @param overrides source settings that win over the pipeline's
     * @param onFailure run when the engine stops on an error
     */
    EmbeddedEngine(PipelineSpec spec, Map<String, String> overrides, DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> consumer,
                   Runnable onFailure) {
        Properties props = new Properties();
        props.putAll(spec.source());
        props.putAll(overrides);
        props.putAll(spec.transforms());
        props.setProperty("name", "sluice-" + spec.name());
        props.setProperty("connector.class", PostgresSourceConnector.class.getName());
        props.setProperty("offset.storage", OffsetsFile.class.getName());
        props.setProperty("offset.storage.file.filename", spec.offsets().toAbsolutePath().toString());
        // Offsets are committed when the hand-off says the rows are durable, not on a timer.
        props.setProperty("offset.flush.interval.ms", "0");
        props.setProperty("errors.max.retries", "0");
        // A stop lets the batch being handled finish (its flush may take a target transaction of a few seconds).
        props.setProperty("record.processing.shutdown.timeout.ms", "60000");
        // Transforms run on a fixed pool, one thread per core. The engine's default, a cached pool, hands each record to
        // a thread through a synchronous queue and ran them on one thread in effect: with anonymization it bounded the
        // snapshot (37,000 rows/s with it, 47,000 with this, bench/anonymize.sh).
        props.putIfAbsent("record.processing.threads", "AVAILABLE_CORES");
        this.engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(props)
                .notifying(consumer)
                .using((success, message, error) -> {
                    // Closing while a batch is being handled, the engine rejects the records it still had in hand: a
                    // stop, not a failure. Their offsets were not marked, so the next run reads them again.
                    if (!success && !(closed.get() && causedBy(error, RejectedExecutionException.class))) {
                        failure.compareAndSet(null, error != null ? error : new IllegalStateException(message));
                        failureMessage.compareAndSet(null, message);
                        onFailure.run();
                    }
                    ended.countDown();
                })
                .build();
    }

    private static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
        for (Throwable c = error; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    /** Every configuration and connection problem of both ends of a pipeline, one per line; empty when none. */
    static List<String> validate(PipelineSpec spec) {
        return validate(spec, Map.of());
    }

    /**
     * As {@link #validate(PipelineSpec)}, the source checked with these keys over its own: a
     * snapshot alone ({@code snapshot.mode=initial_only}) needs nothing streaming needs.
     */
    static List<String> validate(PipelineSpec spec, Map<String, String> sourceOverrides) {
        Map<String, String> source = new java.util.LinkedHashMap<>(spec.source());
        source.putAll(sourceOverrides);
        List<String> problems = sourceProblems(source);
        List<String> target = targetProblems(spec, source, problems.isEmpty());
        problems.addAll(target);
        return problems;
    }

    /** The source connector's configuration and connection problems, one per line. */
    static List<String> sourceProblems(Map<String, String> source) {
        List<String> problems = new ArrayList<>();
        collect("source", new PostgresSourceConnector().validate(source), problems);
        return problems;
    }

    /**
     * One target's problems, as a pipeline with that source has them: its keys and, when the rest
     * is sound ({@code checkTransforms}), its transforms against the source's tables.
     */
    static List<String> targetProblems(PipelineSpec spec, Map<String, String> source, boolean checkTransforms) {
        List<String> problems = new ArrayList<>();
        spec.sink().problems(source).forEach(p -> problems.add("target " + p));
        for (ConfigValue v : EmbeddedSinkContext.CONFIG_DEF.validate(spec.target())) {
            v.errorMessages().forEach(message -> problems.add("target " + v.name() + ": " + message));
        }
        if (checkTransforms && problems.isEmpty()) {
            problems.addAll(TransformCheck.problems(spec));
        }
        return problems;
    }

    private static void collect(String side, Config config, List<String> problems) {
        for (ConfigValue v : config.configValues()) {
            for (String message : v.errorMessages()) {
                problems.add(side + " " + v.name() + ": " + message);
            }
        }
    }

    void start() {
        executor.execute(engine);
    }

    /** Whether the engine has stopped, on an error or because it was closed. */
    boolean ended() {
        return ended.getCount() == 0;
    }

    /** The error the engine stopped on, explained; null when it did not fail. */
    PipelineFailure failure() {
        Throwable t = failure.get();
        return t == null ? null : new PipelineFailure(rootMessage(t, failureMessage.get()), t);
    }

    /**
     * The message that explains a failure: the innermost Connect exception, which is where
     * Sluice's connectors say what failed and why; else the root cause.
     */
    static String rootMessage(Throwable t, String engineMessage) {
        Throwable explained = null;
        Throwable root = t;
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof org.apache.kafka.connect.errors.ConnectException && c.getMessage() != null) {
                explained = c;
            }
            root = c;
        }
        Throwable chosen = explained != null ? explained : root;
        String message = chosen.getMessage() != null ? chosen.getMessage() : chosen.toString();
        return message.isBlank() && engineMessage != null ? engineMessage : message;
    }

    /** Stops the engine (the source task stops, processed offsets are committed) and waits for it; once. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            engine.close();
        } catch (IOException | IllegalStateException e) {
            // An engine that already stopped on an error says so, which changes nothing here.
            LOG.debug("Closing the engine", e);
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(60, TimeUnit.SECONDS)) {
                LOG.warn("The engine did not stop within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
