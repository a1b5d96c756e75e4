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
    private final List<NamedTarget> targets;
    private final PrintStream out;

    private PipelinePhase phase = new PipelinePhase();

    /** Where the run tells its phase and progress (for the metrics server); a holder of its own unless given. */
    public StreamingPipeline phase(PipelinePhase holder) {
        this.phase = holder;
        return this;
    }

    public StreamingPipeline(PipelineSpec spec, PrintStream out) {
        this(List.of(new NamedTarget(null, spec)), out);
    }

    /** Into several targets from one slot: every target's spec has the same source (see {@link PipelineSpec#fanOut}). */
    public StreamingPipeline(List<NamedTarget> targets, PrintStream out) {
        this.targets = List.copyOf(targets);
        this.spec = targets.get(0).spec();
        this.out = out;
    }

    private boolean fanOut() {
        return targets.size() > 1;
    }

    /** Every configuration and connection problem of both ends, one per line; empty when none. */
    public List<String> validate() {
        if (!fanOut()) {
            return EmbeddedEngine.validate(spec);
        }
        // One source feeds them all: it is checked once, then each target's side and transforms.
        List<String> problems = new java.util.ArrayList<>(EmbeddedEngine.sourceProblems(spec.source()));
        boolean sourceSound = problems.isEmpty();
        for (NamedTarget t : targets) {
            for (String p : EmbeddedEngine.targetProblems(t.spec(), spec.source(), sourceSound)) {
                problems.add(p.startsWith("target ") ? "target " + t.name() + ": " + p.substring("target ".length())
                        : p.startsWith("transform ") ? "target " + t.name() + " " + p : p);
            }
            try {
                TargetTransforms.of(t.spec().transforms()).close();
            } catch (RuntimeException e) {
                problems.add("target " + t.name() + " transforms: " + e.getMessage());
            }
        }
        return List.copyOf(problems);
    }

    /** One target as this run drives it. */
    private record Running(NamedTarget named, EmbeddedSinkContext context, RunningSink sink, SinkHandoff handoff) {
        String label() {
            return named.name() == null ? named.spec().sink().display() : named.name() + " (" + named.spec().sink().display() + ")";
        }
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
        List<Running> running = new java.util.ArrayList<>();
        EmbeddedEngine engine = null;
        ProgressDisplay display = new ProgressDisplay(progress, out, ProgressDisplay.terminalAttached());
        FanOut fanOut = null;
        try {
            for (NamedTarget named : targets) {
                EmbeddedSinkContext sinkContext = new EmbeddedSinkContext(named.spec());
                RunningSink sink;
                try {
                    sink = named.spec().sink().startStreaming(sinkContext, new SourceAdmin(spec.source()));
                } catch (RuntimeException e) {
                    sinkContext.close();
                    throw e;
                }
                // The first target's handoff counts the rows for the progress display; the others' alike, so it is told once.
                Progress counted = running.isEmpty() ? progress : new Progress();
                if (running.isEmpty()) {
                    progress.batching(sink.batchStatus());
                }
                SinkHandoff handoff = fanOut()
                        ? new SinkHandoff(sink.task(), TargetTransforms.of(named.spec().transforms()), sink.bytesSent(), counted,
                                FLUSH_INTERVAL_MILLIS, "sluice-sink-" + named.name())
                        : new SinkHandoff(sink.task(), sink.bytesSent(), counted, FLUSH_INTERVAL_MILLIS);
                running.add(new Running(named, sinkContext, sink, handoff));
            }
            List<SinkHandoff> handoffs = running.stream().map(Running::handoff).toList();
            fanOut = fanOut() ? new FanOut(handoffs) : null;
            // With several targets each applies its own transforms to what the engine hands out.
            PipelineSpec engineSpec = fanOut() ? spec.withoutTransforms() : spec;
            engine = new EmbeddedEngine(engineSpec, overrides, fanOut != null ? fanOut : handoffs.get(0),
                    () -> handoffs.forEach(h -> h.snapshotDone().countDown()));
            if (copying) {
                display.start();
            }
            engine.start();
            boolean streaming = false;
            long lastStatus = System.nanoTime();
            long[] reported = new long[running.size()];
            java.util.Arrays.fill(reported, -1);
            while (!stop.isDone() && !engine.ended() && failure(running) == null) {
                Thread.sleep(100);
                if (!streaming && engine.failure() == null && (!copying || allSnapshotsDone(running) || anyApplied(running))) {
                    streaming = true;
                    phase.enter(PipelinePhase.Phase.STREAMING);
                    if (copying) {
                        display.close();
                        out.println(display.summary());
                    }
                    out.println("Streaming changes from slot " + config.slotName() + " into " + String.join(", ",
                            running.stream().map(Running::label).toList()) + " (Ctrl-C stops; run the same command to go on)");
                }
                if (streaming && System.nanoTime() - lastStatus >= STATUS_INTERVAL_MILLIS * 1_000_000L) {
                    double seconds = (System.nanoTime() - lastStatus) / 1e9;
                    for (int i = 0; i < running.size(); i++) {
                        Running r = running.get(i);
                        long applied = r.handoff().changesApplied();
                        if (applied != reported[i]) {
                            out.println((fanOut() ? "  " + r.named().name() + ":" : "") + status(r.handoff(), applied, reported[i], seconds)
                                    + "; " + r.sink().batchStatus().get());
                            reported[i] = applied;
                        }
                    }
                    lastStatus = System.nanoTime();
                }
            }
            phase.enter(PipelinePhase.Phase.STOPPING);
            beforeEngineStops(fanOut, running);
            engine.close();
            PipelineFailure failure = engine.failure();
            if (failure != null) {
                phase.enter(PipelinePhase.Phase.FAILED);
                throw failure;
            }
            for (Running r : running) {
                RuntimeException sinkFailure = r.handoff().failure();
                if (sinkFailure != null) {
                    phase.enter(PipelinePhase.Phase.FAILED);
                    String message = EmbeddedEngine.rootMessage(sinkFailure, null);
                    throw new PipelineFailure(fanOut() ? "target " + r.named().name() + ": " + message : message, sinkFailure);
                }
            }
            phase.enter(PipelinePhase.Phase.STOPPED);
            if (!streaming) {
                display.close();
                out.println("Stopped during the snapshot; the same command resumes it.");
            } else {
                for (Running r : running) {
                    out.println("Stopped. " + String.format(Locale.ROOT, "%,d", r.handoff().changesApplied()) + " changes applied in this run"
                            + (fanOut() ? " to " + r.named().name() : "") + ".");
                }
                for (Running r : running) {
                    try {
                        r.named().spec().sink().afterCleanStop(spec.source(), out);
                    } catch (IllegalStateException e) {
                        throw new PipelineFailure(e.getMessage(), e);
                    }
                }
            }
        } finally {
            display.close();
            beforeEngineStops(fanOut, running);
            if (engine != null) {
                engine.close();
            }
            for (Running r : running) {
                r.handoff().close();
                r.sink().task().stop();
                String deadLetters = r.context().deadLetterSummary();
                if (deadLetters != null) {
                    out.println(fanOut() ? r.named().name() + ": " + deadLetters : deadLetters);
                }
                r.context().close();
            }
        }
    }

    private static void beforeEngineStops(FanOut fanOut, List<Running> running) {
        if (fanOut != null) {
            fanOut.beforeEngineStops();
        } else {
            running.forEach(r -> r.handoff().beforeEngineStops());
        }
    }

    private static RuntimeException failure(List<Running> running) {
        for (Running r : running) {
            if (r.handoff().failure() != null) {
                return r.handoff().failure();
            }
        }
        return null;
    }

    private static boolean allSnapshotsDone(List<Running> running) {
        return running.stream().allMatch(r -> r.handoff().snapshotDone().getCount() == 0);
    }

    private static boolean anyApplied(List<Running> running) {
        return running.stream().anyMatch(r -> r.handoff().changesApplied() > 0);
    }

    private static String status(SinkHandoff handoff, long applied, long reported, double seconds) {
        long since = Math.max(0, applied - Math.max(reported, 0));
        long commit = handoff.lastAppliedCommitMillis();
        String lag = commit == 0 ? "" : String.format(Locale.ROOT, ", newest applied change committed %.1f s ago",
                (System.currentTimeMillis() - commit) / 1000.0);
        return String.format(Locale.ROOT, "  %,d changes applied (%,.0f/s)%s", applied, since / Math.max(seconds, 0.001), lag);
    }

    /**
     * Decides from what the targets record where this run starts (see {@link StartingPoint}):
     * local offsets the target knows nothing of are forgotten with their slot, and a target that
     * holds the copy when no local offsets do is streamed into from the slot. Several targets
     * must agree, since one slot feeds them all.
     */
    private void startingPoint(PostgresSourceConfig config, Map<String, String> overrides) throws Exception {
        boolean slotExists = new SourceAdmin(spec.source()).slot().isPresent();
        StartingPoint.Local local = new StartingPoint.Local(Files.exists(spec.offsets()), false, spec.offsets().toString());
        boolean copies = copies(config, overrides);
        List<StartingPoint.Decision> decisions = new java.util.ArrayList<>();
        for (NamedTarget named : targets) {
            Target target = named.spec().sink();
            decisions.add(StartingPoint.forRun(spec.name(), target.display(), config.slotName(), target.read(spec.sourceName(), false,
                    spec.source()), local, copies, slotExists));
        }
        StartingPoint.Decision decision = decisions.get(0);
        for (int i = 0; i < decisions.size(); i++) {
            StartingPoint.Decision d = decisions.get(i);
            if (d.action() == StartingPoint.Action.REFUSE) {
                throw new CannotStart(fanOut() ? "target " + targets.get(i).name() + ": " + d.message() : d.message());
            }
            if (d.action() != decision.action() || d.forgetLocal() != decision.forgetLocal()) {
                StringBuilder why = new StringBuilder("The targets of pipeline " + spec.name() + " are not at one point, and one slot feeds "
                        + "them all:");
                for (int j = 0; j < decisions.size(); j++) {
                    StartingPoint.Decision each = decisions.get(j);
                    why.append("\n  ").append(targets.get(j).name()).append(": ").append(each.message() != null ? each.message()
                            : each.action() == StartingPoint.Action.COPY ? "no copy yet: it would be copied" : "goes on from the local offsets");
                }
                why.append("\nRun with --fresh (and --table-exists truncate) to copy into all of them again; adding a target to a "
                        + "running pipeline with a re-sync of that target alone is planned (docs/fan-out.md).");
                throw new CannotStart(why.toString());
            }
        }
        for (int i = 0; i < decisions.size(); i++) {
            if (decisions.get(i).message() != null) {
                out.println(decisions.get(i).message());
            }
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
