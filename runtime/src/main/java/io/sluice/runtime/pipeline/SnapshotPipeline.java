package io.sluice.runtime.pipeline;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.runtime.progress.PipelinePhase;
import io.sluice.runtime.progress.Progress;
import io.sluice.runtime.progress.ProgressDisplay;
import io.sluice.runtime.targets.RunningSink;
import io.sluice.runtime.targets.Target;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshot from PostgreSQL in one JVM: the Debezium embedded engine runs Sluice's source
 * connector (and any transforms), and hands its records to the target's sink task.
 * Offsets are kept in a local file, so an interrupted run resumes.
 */
public final class SnapshotPipeline {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotPipeline.class);
    private static final long FLUSH_INTERVAL_MILLIS = 5_000;

    private final PipelineSpec spec;
    private final PrintStream out;


    private PipelinePhase phase = new PipelinePhase();

    /** Where the run tells its phase and progress (for the metrics server); a holder of its own unless given. */
    public SnapshotPipeline phase(PipelinePhase holder) {
        this.phase = holder;
        return this;
    }

    public SnapshotPipeline(PipelineSpec spec, PrintStream out) {
        this.spec = spec;
        this.out = out;
    }

    /** Every configuration and connection problem of both ends, one per line; empty when none. */
    public List<String> validate() {
        return EmbeddedEngine.validate(spec, Map.of(PostgresSourceConfig.SNAPSHOT_MODE, "initial_only"));
    }

    /** Copies, unless the target already holds the finished copy (said on {@code out}). */
    public void run(boolean fresh) throws Exception {
        Path done = doneMarker();
        Target target = spec.sink();
        if (fresh) {
            Files.deleteIfExists(spec.offsets());
            Files.deleteIfExists(done);
        } else {
            // The target says whether the copy is there; the local files only remember what it said.
            StartingPoint.Decision decision = StartingPoint.forSnapshot(spec.name(), target.display(), target.read(spec.sourceName(), true, spec.source()),
                    new StartingPoint.Local(Files.exists(spec.offsets()), Files.exists(done), spec.offsets().toString()));
            if (decision.message() != null) {
                out.println(decision.message());
            }
            if (decision.forgetLocal()) {
                Files.deleteIfExists(spec.offsets());
                Files.deleteIfExists(done);
            }
            if (decision.action() == StartingPoint.Action.DONE) {
                return;
            }
        }
        Files.createDirectories(spec.offsets().toAbsolutePath().getParent());
        if (Files.exists(spec.offsets())) {
            out.println("Resuming the snapshot recorded in " + spec.offsets() + " (use --fresh to start over)");
        }

        Progress progress = new Progress();
        estimate(spec, progress);
        phase.progress(progress);
        phase.enter(PipelinePhase.Phase.SNAPSHOT);
        EmbeddedSinkContext sinkContext = new EmbeddedSinkContext(spec);
        RunningSink sink = target.start(sinkContext);
        progress.batching(sink.batchStatus());
        SinkHandoff handoff = new SinkHandoff(sink.task(), sink.bytesSent(), progress, FLUSH_INTERVAL_MILLIS);
        // The snapshot command copies and stops; streaming is the run command's job.
        EmbeddedEngine engine = new EmbeddedEngine(spec, Map.of(PostgresSourceConfig.SNAPSHOT_MODE, "initial_only"), handoff,
                () -> handoff.snapshotDone().countDown());
        Thread onInterrupt = new Thread(engine::close, "sluice-shutdown");
        Runtime.getRuntime().addShutdownHook(onInterrupt);
        ProgressDisplay display = new ProgressDisplay(progress, out, ProgressDisplay.terminalAttached());
        try {
            display.start();
            engine.start();
            handoff.snapshotDone().await();
            handoff.beforeEngineStops();
            engine.close();
            PipelineFailure failure = engine.failure();
            if (failure != null) {
                phase.enter(PipelinePhase.Phase.FAILED);
                throw failure;
            }
            phase.enter(PipelinePhase.Phase.STOPPED);
            display.close();
            // A cache of what the target records; the target decides (StartingPoint).
            Files.writeString(done, "snapshot of " + spec.source().get("database.dbname") + " finished\n");
            out.println(display.summary());
            return;
        } finally {
            display.close();
            handoff.beforeEngineStops();
            engine.close();
            handoff.close();
            sink.task().stop();
            String deadLetters = sinkContext.deadLetterSummary();
            if (deadLetters != null) {
                out.println(deadLetters);
            }
            sinkContext.close();
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

    /** Row and size estimates of the selected tables, for the progress display. */
    static void estimate(PipelineSpec spec, Progress progress) {
        try {
            for (SourceAdmin.TableSize table : new SourceAdmin(spec.source()).tableSizes()) {
                progress.expect(table.table(), table.rows(), table.bytes());
            }
        } catch (SQLException e) {
            LOG.debug("No estimates for the progress display", e);
        }
    }
}
