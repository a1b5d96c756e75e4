package io.sluice.runtime.pipeline;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.runtime.progress.PipelinePhase;
import io.sluice.runtime.progress.Progress;
import io.sluice.runtime.progress.ProgressDisplay;
import io.sluice.runtime.targets.RunningSink;
import io.sluice.runtime.targets.Target;

/**
 * Keeps a target (PostgreSQL, OpenSearch) in step with its PostgreSQL source, in one JVM: the snapshot when the
 * pipeline has none yet (taken from the replication slot's own snapshot), then every change
 * streamed from the slot and applied batch by batch, until told to stop. Offsets are kept in a
 * local file and committed only after the target committed the changes they cover, so a stop
 * or a crash at any moment resumes where the target is.
 */
public final class StreamingPipeline {

    private static final long FLUSH_INTERVAL_MILLIS = 5_000;
    private static final long STATUS_INTERVAL_MILLIS = 10_000;

    private final PipelineSpec spec;
    private final PrintStream out;

    private PipelinePhase phase = new PipelinePhase();

    /** Where the run tells its phase and progress (for the metrics server); a holder of its own unless given. */
    public StreamingPipeline phase(PipelinePhase holder) {
        this.phase = holder;
        return this;
    }

    public StreamingPipeline(PipelineSpec spec, PrintStream out) {
        this.spec = spec;
        this.out = out;
    }

    /** Every configuration and connection problem of both ends, one per line; empty when none. */
    public List<String> validate() {
        return EmbeddedEngine.validate(spec);
    }

    /**
     * Runs until {@code stop} completes, then stops gracefully: the source stops reading, the
     * offsets of everything the target committed are stored, and the slot keeps the rest.
     *
     * @param fresh forget an earlier run: its offsets and its replication slot, and copy again
     */
    public void run(boolean fresh, Future<?> stop) throws Exception {
        PostgresSourceConfig config = new PostgresSourceConfig(spec.source());
        Map<String, String> overrides = new HashMap<>();
        if (!spec.source().containsKey(PostgresSourceConfig.SNAPSHOT_MODE)) {
            overrides.put(PostgresSourceConfig.SNAPSHOT_MODE, "initial");
        }
        if (fresh) {
            Files.deleteIfExists(spec.offsets());
            dropSlot(config);
        } else {
            startingPoint(config, overrides);
        }
        Path parent = spec.offsets().toAbsolutePath().getParent();
        Files.createDirectories(parent);
        boolean resuming = Files.exists(spec.offsets());
        if (resuming) {
            out.println("Resuming pipeline " + spec.name() + " from " + spec.offsets() + " (use --fresh to start over)");
        }
        // A first run copies the tables, unless told to stream only: then there is nothing to show progress of.
        boolean copying = !resuming && copies(config, overrides);
        Progress progress = new Progress();
        if (copying) {
            SnapshotPipeline.estimate(spec, progress);
            phase.progress(progress);
            phase.enter(PipelinePhase.Phase.SNAPSHOT);
        }
        EmbeddedSinkContext sinkContext = new EmbeddedSinkContext(spec);
        Target target = spec.sink();
        RunningSink sink = target.startStreaming(sinkContext, new SourceAdmin(spec.source()));
        progress.batching(sink.batchStatus());
        SinkHandoff handoff = new SinkHandoff(sink.task(), sink.bytesSent(), progress, FLUSH_INTERVAL_MILLIS);
        EmbeddedEngine engine = new EmbeddedEngine(spec, overrides, handoff, () -> handoff.snapshotDone().countDown());
        ProgressDisplay display = new ProgressDisplay(progress, out, ProgressDisplay.terminalAttached());
        try {
            if (copying) {
                display.start();
            }
            engine.start();
            boolean streaming = false;
            long lastStatus = System.nanoTime();
            long reported = -1;
            while (!stop.isDone() && !engine.ended() && handoff.failure() == null) {
                Thread.sleep(100);
                if (!streaming && engine.failure() == null && (!copying || handoff.snapshotDone().getCount() == 0 || handoff.changesApplied() > 0)) {
                    streaming = true;
                    phase.enter(PipelinePhase.Phase.STREAMING);
                    if (copying) {
                        display.close();
                        out.println(display.summary());
                    }
                    out.println("Streaming changes from slot " + config.slotName() + " into " + target.display()
                            + " (Ctrl-C stops; run the same command to go on)");
                }
                if (streaming && System.nanoTime() - lastStatus >= STATUS_INTERVAL_MILLIS * 1_000_000L) {
                    long applied = handoff.changesApplied();
                    if (applied != reported) {
                        out.println(status(handoff, applied, reported, (System.nanoTime() - lastStatus) / 1e9) + "; " + sink.batchStatus().get());
                        reported = applied;
                    }
                    lastStatus = System.nanoTime();
                }
            }
            phase.enter(PipelinePhase.Phase.STOPPING);
            handoff.beforeEngineStops();
            engine.close();
            PipelineFailure failure = engine.failure();
            if (failure != null) {
                phase.enter(PipelinePhase.Phase.FAILED);
                throw failure;
            }
            RuntimeException sinkFailure = handoff.failure();
            if (sinkFailure != null) {
                phase.enter(PipelinePhase.Phase.FAILED);
                throw new PipelineFailure(EmbeddedEngine.rootMessage(sinkFailure, null), sinkFailure);
            }
            phase.enter(PipelinePhase.Phase.STOPPED);
            if (!streaming) {
                display.close();
                out.println("Stopped during the snapshot; the same command resumes it.");
            } else {
                out.println("Stopped. " + String.format(Locale.ROOT, "%,d", handoff.changesApplied()) + " changes applied in this run.");
                try {
                    target.afterCleanStop(spec.source(), out);
                } catch (IllegalStateException e) {
                    throw new PipelineFailure(e.getMessage(), e);
                }
            }
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
        }
    }

    private static String status(SinkHandoff handoff, long applied, long reported, double seconds) {
        long since = Math.max(0, applied - Math.max(reported, 0));
        long commit = handoff.lastAppliedCommitMillis();
        String lag = commit == 0 ? "" : String.format(Locale.ROOT, ", newest applied change committed %.1f s ago",
                (System.currentTimeMillis() - commit) / 1000.0);
        return String.format(Locale.ROOT, "  %,d changes applied (%,.0f/s)%s", applied, since / Math.max(seconds, 0.001), lag);
    }

    /**
     * Decides from what the target records where this run starts (see {@link StartingPoint}):
     * local offsets the target knows nothing of are forgotten with their slot, and a target that
     * holds the copy when no local offsets do is streamed into from the slot.
     */
    private void startingPoint(PostgresSourceConfig config, Map<String, String> overrides) throws Exception {
        Target target = spec.sink();
        boolean slotExists = new SourceAdmin(spec.source()).slot().isPresent();
        StartingPoint.Decision decision = StartingPoint.forRun(spec.name(), target.display(), config.slotName(), target.read(spec.sourceName(), false, spec.source()),
                new StartingPoint.Local(Files.exists(spec.offsets()), false, spec.offsets().toString()), copies(config, overrides), slotExists);
        if (decision.action() == StartingPoint.Action.REFUSE) {
            throw new CannotStart(decision.message());
        }
        if (decision.message() != null) {
            out.println(decision.message());
        }
        if (decision.forgetLocal()) {
            Files.deleteIfExists(spec.offsets());
            dropSlot(config);
        }
        if (decision.action() == StartingPoint.Action.STREAM_FROM_SLOT) {
            overrides.put(PostgresSourceConfig.SNAPSHOT_MODE, "never");
        }
    }

    /** Whether the run takes a snapshot when it has none: snapshot.mode, as this run overrides it, is not never. */
    private static boolean copies(PostgresSourceConfig config, Map<String, String> overrides) {
        String mode = overrides.getOrDefault(PostgresSourceConfig.SNAPSHOT_MODE, config.snapshotMode().name());
        return !mode.equalsIgnoreCase("never");
    }

    /** Drops the pipeline's slot so a fresh run takes its snapshot from a new one. */
    private void dropSlot(PostgresSourceConfig config) throws SQLException {
        if (new SourceAdmin(spec.source()).dropSlot()) {
            out.println("Dropped replication slot " + config.slotName() + " of the earlier run");
        }
    }
}
