package io.sluice.runtime.pipeline;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.runtime.progress.Progress;
import io.sluice.runtime.progress.ProgressDisplay;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.postgres.PostgresSinkConnector;
import io.sluice.sink.postgres.PostgresSinkTask;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshot from PostgreSQL to PostgreSQL in one JVM: the Debezium embedded engine runs
 * Sluice's source connector (and any transforms), and hands its records to Sluice's sink task.
 * Offsets are kept in a local file, so an interrupted run resumes.
 */
public final class SnapshotPipeline {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotPipeline.class);
    private static final long FLUSH_INTERVAL_MILLIS = 5_000;

    /** How a run ended. */
    public enum Outcome { COPIED, ALREADY_DONE }

    private final PipelineSpec spec;
    private final PrintStream out;

    public SnapshotPipeline(PipelineSpec spec, PrintStream out) {
        this.spec = spec;
        this.out = out;
    }

    /** Every configuration and connection problem of both ends, one per line; empty when none. */
    public List<String> validate() {
        List<String> problems = new ArrayList<>();
        collect("source", new PostgresSourceConnector().validate(spec.source()), problems);
        collect("target", new PostgresSinkConnector().validate(spec.target()), problems);
        return problems;
    }

    private static void collect(String side, Config config, List<String> problems) {
        for (ConfigValue v : config.configValues()) {
            for (String message : v.errorMessages()) {
                problems.add(side + " " + v.name() + ": " + message);
            }
        }
    }

    public Outcome run(boolean fresh) throws Exception {
        Path done = doneMarker();
        if (fresh) {
            Files.deleteIfExists(spec.offsets());
            Files.deleteIfExists(done);
        } else if (Files.exists(done)) {
            return Outcome.ALREADY_DONE;
        }
        Files.createDirectories(spec.offsets().toAbsolutePath().getParent());
        if (Files.exists(spec.offsets())) {
            out.println("Resuming the snapshot recorded in " + spec.offsets() + " (use --fresh to start over)");
        }

        Progress progress = new Progress();
        estimate(progress);
        PostgresSinkTask sink = new PostgresSinkTask();
        sink.start(spec.target());
        SinkHandoff handoff = new SinkHandoff(sink, progress, FLUSH_INTERVAL_MILLIS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<String> failureMessage = new AtomicReference<>();
        DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(engineProperties())
                .notifying(handoff)
                .using((success, message, error) -> {
                    if (!success) {
                        failure.compareAndSet(null, error != null ? error : new IllegalStateException(message));
                        failureMessage.compareAndSet(null, message);
                        handoff.snapshotDone().countDown();
                    }
                })
                .build();
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "sluice-engine"));
        Thread onInterrupt = new Thread(() -> closeQuietly(engine), "sluice-shutdown");
        Runtime.getRuntime().addShutdownHook(onInterrupt);
        ProgressDisplay display = new ProgressDisplay(progress, out, ProgressDisplay.terminalAttached());
        try {
            display.start();
            executor.execute(engine);
            handoff.snapshotDone().await();
            closeQuietly(engine);
            executor.shutdown();
            executor.awaitTermination(60, TimeUnit.SECONDS);
            if (failure.get() != null) {
                throw new PipelineFailure(rootMessage(failure.get(), failureMessage.get()), failure.get());
            }
            display.close();
            Files.writeString(done, "snapshot of " + spec.source().get("database.dbname") + " finished\n");
            out.println(display.summary());
            return Outcome.COPIED;
        } finally {
            display.close();
            sink.stop();
            try {
                Runtime.getRuntime().removeShutdownHook(onInterrupt);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down
            }
        }
    }

    private Path doneMarker() {
        return Path.of(spec.offsets() + ".done");
    }

    private Properties engineProperties() {
        Properties props = new Properties();
        props.putAll(spec.source());
        // The snapshot command copies and stops; streaming is the run command's job.
        props.setProperty(PostgresSourceConfig.SNAPSHOT_MODE, "initial_only");
        props.putAll(spec.transforms());
        props.setProperty("name", "sluice-" + spec.name());
        props.setProperty("connector.class", PostgresSourceConnector.class.getName());
        props.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        props.setProperty("offset.storage.file.filename", spec.offsets().toAbsolutePath().toString());
        // Offsets are committed when the hand-off says the rows are durable, not on a timer.
        props.setProperty("offset.flush.interval.ms", "0");
        props.setProperty("errors.max.retries", "0");
        return props;
    }

    /** Row and size estimates of the selected tables, for the progress display. */
    private void estimate(Progress progress) {
        PostgresSourceConfig config = new PostgresSourceConfig(spec.source());
        PgEndpoint endpoint = new PgEndpoint(config.hostname(), config.port(), config.database(), config.user(),
                config.password().value(), config.sslMode());
        try (Connection c = PgConnect.open(endpoint, "sluice estimate");
             PreparedStatement s = c.prepareStatement("SELECT GREATEST(reltuples, 0)::bigint, pg_table_size(oid) FROM pg_class WHERE oid = ?")) {
            for (SelectedTable table : new TableSelector(config.includes(), config.excludes()).select(c, config.database())) {
                s.setLong(1, table.oid());
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    progress.expect(table.qualifiedName(), rs.getLong(1), rs.getLong(2));
                }
            }
        } catch (SQLException e) {
            LOG.debug("No estimates for the progress display", e);
        }
    }

    /**
     * The message that explains a failure: the innermost Connect exception, which is where
     * Sluice's connectors say what failed and why; else the root cause.
     */
    private static String rootMessage(Throwable t, String engineMessage) {
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

    /** Stops the engine; one that already stopped on an error says so, which changes nothing here. */
    private static void closeQuietly(DebeziumEngine<?> engine) {
        try {
            engine.close();
        } catch (IOException | IllegalStateException e) {
            LOG.debug("Closing the engine", e);
        }
    }

    /** A run that stopped on an error, with the message that explains it. */
    public static final class PipelineFailure extends Exception {
        PipelineFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
