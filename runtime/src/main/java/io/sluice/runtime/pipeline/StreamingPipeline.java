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
        return FanOut.problems(spec, targets);
    }

    /** One target as this run drives it. */
    private record Running(NamedTarget named, EmbeddedSinkContext context, RunningSink sink, SinkHandoff handoff) {
        String label() {
            return named.name() == null ? named.spec().sink().display() : named.name() + " (" + named.spec().sink().display() + ")";
        }
    }

    /**
     * Runs until {@code stop} completes, then stops gracefully: the source stops reading, the
     * offsets of everything the target committed are stored, and the slot keeps the rest. With
     * several targets, one left behind (see {@link FanOut}) catches up by a new run of the engine
     * from the offsets, which the slot kept for it, once it can ({@link LeftBehind}).
     *
     * @param fresh forget an earlier run: its offsets and its replication slot, and copy again
     */
    public void run(boolean fresh, Future<?> stop) throws Exception {
        PostgresSourceConfig config = new PostgresSourceConfig(spec.source());
        Map<String, String> overrides = new HashMap<>();
        if (!spec.source().containsKey(PostgresSourceConfig.SNAPSHOT_MODE)) {
            overrides.put(PostgresSourceConfig.SNAPSHOT_MODE, "initial");
        }
        TargetsStart start = new TargetsStart(spec, targets, out);
        if (fresh) {
            Files.deleteIfExists(spec.offsets());
            Files.deleteIfExists(DetachedTargets.fileOf(spec.offsets()));
            start.dropSlot(config);
        } else {
            DetachedTargets recorded = DetachedTargets.at(spec.offsets());
            start.decide(config, overrides, name -> recorded.get(name) != null);
        }
        Path parent = spec.offsets().toAbsolutePath().getParent();
        Files.createDirectories(parent);
        boolean resuming = Files.exists(spec.offsets());
        if (resuming) {
            out.println("Resuming pipeline " + spec.name() + " from " + spec.offsets() + " (use --fresh to start over)");
        }
        // A first run copies the tables, unless told to stream only: then there is nothing to show progress of.
        boolean copying = !resuming && TargetsStart.copies(config, overrides);
        Progress progress = new Progress();
        if (copying) {
            SnapshotPipeline.estimate(spec, progress);
            phase.progress(progress);
            phase.enter(PipelinePhase.Phase.SNAPSHOT);
        }
        List<String> names = targets.stream().map(t -> java.util.Objects.toString(t.name(), "target")).toList();
        List<String> meterLabels = targets.stream()
                .map(t -> t.spec().target().getOrDefault(io.sluice.sink.core.metrics.MetricsConfig.TARGET_NAME, spec.name())).toList();
        LeftBehind behind = new LeftBehind(names, meterLabels, out, System::nanoTime);
        Detaching detaching = new Detaching(names, meterLabels, Detaching.limits(targets), DetachedTargets.at(spec.offsets()),
                Detaching.of(new SourceAdmin(spec.source())), out, System::nanoTime);
        long[] applied = new long[targets.size()];
        boolean first = true;
        while (engineRun(config, overrides, first && copying, first, progress, stop, new Watch(behind, detaching), applied)) {
            first = false;
            behind.catchingUp();
        }
    }

    /**
     * One run of the engine, from the offsets: the first of the pipeline's run, or a later one that
     * catches up a target left behind (then the pipeline streams from the start).
     *
     * @param applied per target, the changes applied in the earlier runs of the engine; this one's are added
     * @return whether a target left behind can catch up: the engine stopped for the next run
     */
    private boolean engineRun(PostgresSourceConfig config, Map<String, String> overrides, boolean copying, boolean first,
                              Progress progress, Future<?> stop, Watch watch, long[] applied) throws Exception {
        LeftBehind behind = watch.behind();
        Detaching detaching = watch.detaching();
        List<Running> running = new java.util.ArrayList<>();
        EmbeddedEngine engine = null;
        ProgressDisplay display = new ProgressDisplay(progress, out, ProgressDisplay.terminalAttached());
        FanOut fanOut = null;
        try {
            String[] notStarted = new String[targets.size()];
            boolean[] detached = fanOut() ? detaching.detached() : new boolean[1];
            for (int i = 0; i < targets.size(); i++) {
                if (detached[i]) {
                    running.add(new Running(targets.get(i), null, null, null)); // fed nothing until it answers again
                    continue;
                }
                try {
                    running.add(start(targets.get(i), i == 0 ? progress : new Progress(), i == 0));
                } catch (RuntimeException e) {
                    if (first || !fanOut()) {
                        throw e;
                    }
                    // Catching up another target, this one fails to start: it is left behind from the start.
                    notStarted[i] = "it did not start: " + EmbeddedEngine.rootMessage(e, null);
                    running.add(new Running(targets.get(i), null, null, null));
                }
            }
            List<SinkHandoff> handoffs = running.stream().map(Running::handoff).toList();
            fanOut = fanOut() ? new FanOut(handoffs, FanOut.stallNanos(targets), notStarted, detached) : null;
            // With several targets each applies its own transforms to what the engine hands out.
            PipelineSpec engineSpec = fanOut() ? spec.withoutTransforms() : spec;
            engine = new EmbeddedEngine(engineSpec, overrides, fanOut != null ? fanOut : handoffs.get(0),
                    () -> handoffs.stream().filter(java.util.Objects::nonNull).forEach(h -> h.snapshotDone().countDown()));
            if (copying) {
                display.start();
            }
            engine.start();
            // A later run of the engine goes on streaming where the pipeline was.
            boolean streaming = !first;
            if (streaming && fanOut != null) {
                fanOut.streaming();
            }
            boolean catchUp = false;
            long lastStatus = System.nanoTime();
            long[] reported = applied.clone();
            if (first) {
                java.util.Arrays.fill(reported, -1); // the first status line is printed even before any change
            }
            while (!stop.isDone() && !engine.ended()) {
                Thread.sleep(100);
                if (!streaming && engine.failure() == null && (!copying || allSnapshotsDone(running) || anyApplied(running))) {
                    streaming = true;
                    phase.enter(PipelinePhase.Phase.STREAMING);
                    if (fanOut != null) {
                        fanOut.streaming();
                    }
                    if (copying) {
                        display.close();
                        out.println(display.summary());
                    }
                    out.println("Streaming changes from slot " + config.slotName() + " into " + String.join(", ",
                            running.stream().map(Running::label).toList()) + " (Ctrl-C stops; run the same command to go on)");
                }
                if (fanOut == null || !streaming) {
                    if (failure(running) != null) {
                        break;
                    }
                } else {
                    detaching.fed();
                    FanOut f = fanOut;
                    catchUp = leaveFailedBehind(fanOut, running, behind) || detaching.look(f::leftBehind, i -> answer(running.get(i)));
                    if (catchUp) {
                        break;
                    }
                }
                if (streaming && System.nanoTime() - lastStatus >= STATUS_INTERVAL_MILLIS * 1_000_000L) {
                    double seconds = (System.nanoTime() - lastStatus) / 1e9;
                    if (fanOut != null) {
                        detaching.checkResyncs();
                    }
                    for (int i = 0; i < running.size(); i++) {
                        Running r = running.get(i);
                        String left = fanOut == null ? null : behind.status(i) != null ? behind.status(i) : detaching.status(i);
                        if (left != null || r.handoff() == null) {
                            if (left != null) {
                                out.println(left);
                            }
                            continue;
                        }
                        long done = applied[i] + r.handoff().changesApplied();
                        if (done != reported[i]) {
                            out.println((fanOut() ? "  " + r.named().name() + ":" : "") + status(r.handoff(), done, reported[i], seconds)
                                    + "; " + r.sink().batchStatus().get());
                            reported[i] = done;
                        }
                    }
                    lastStatus = System.nanoTime();
                }
            }
            if (!catchUp) {
                phase.enter(PipelinePhase.Phase.STOPPING);
            }
            beforeEngineStops(fanOut, running);
            engine.close();
            PipelineFailure failure = engine.failure();
            if (failure != null) {
                phase.enter(PipelinePhase.Phase.FAILED);
                throw failure;
            }
            if (catchUp) {
                return true;
            }
            for (int i = 0; i < running.size(); i++) {
                RuntimeException sinkFailure = running.get(i).handoff() == null ? null : running.get(i).handoff().failure();
                if (sinkFailure != null && (fanOut == null || fanOut.leftBehind(i) == null)) {
                    phase.enter(PipelinePhase.Phase.FAILED);
                    String message = EmbeddedEngine.rootMessage(sinkFailure, null);
                    throw new PipelineFailure(fanOut() ? "target " + running.get(i).named().name() + ": " + message : message, sinkFailure);
                }
            }
            if (!streaming) {
                phase.enter(PipelinePhase.Phase.STOPPED);
                display.close();
                out.println("Stopped during the snapshot; the same command resumes it.");
                return false;
            }
            List<String> left = new java.util.ArrayList<>();
            for (int i = 0; i < running.size(); i++) {
                Running r = running.get(i);
                long done = applied[i] + (r.handoff() == null ? 0 : r.handoff().changesApplied());
                out.println("Stopped. " + String.format(Locale.ROOT, "%,d", done) + " changes applied in this run"
                        + (fanOut() ? " to " + r.named().name() : "") + ".");
                if (fanOut != null && fanOut.leftBehind(i) != null) {
                    left.add(r.named().name() + " (" + fanOut.leftBehind(i) + ")");
                }
            }
            if (fanOut != null) {
                left.addAll(detaching.now());
            }
            for (int i = 0; i < running.size(); i++) {
                if (running.get(i).handoff() != null && (fanOut == null || fanOut.leftBehind(i) == null)) {
                    try {
                        running.get(i).named().spec().sink().afterCleanStop(spec.source(), out);
                    } catch (IllegalStateException e) {
                        throw new PipelineFailure(e.getMessage(), e);
                    }
                }
            }
            if (!left.isEmpty()) {
                phase.enter(PipelinePhase.Phase.FAILED);
                throw new PipelineFailure("Stopped with " + (left.size() == 1 ? "a target" : "targets") + " not in step: " + String.join(", ",
                        left) + ". The slot keeps the changes of a target left behind, and a detached one is re-synced once it answers; "
                        + "the same command does both.", null);
            }
            phase.enter(PipelinePhase.Phase.STOPPED);
            return false;
        } finally {
            display.close();
            beforeEngineStops(fanOut, running);
            if (engine != null) {
                engine.close();
            }
            for (int i = 0; i < running.size(); i++) {
                Running r = running.get(i);
                if (r.handoff() == null) {
                    continue;
                }
                r.handoff().close();
                applied[i] += r.handoff().changesApplied();
                r.sink().task().stop();
                String deadLetters = r.context().deadLetterSummary();
                if (deadLetters != null) {
                    out.println(fanOut() ? r.named().name() + ": " + deadLetters : deadLetters);
                }
                r.context().close();
            }
        }
    }

    /** Starts a target's sink and its hand-off; the first target's counts the rows for the progress display. */
    private Running start(NamedTarget named, Progress counted, boolean shown) {
        EmbeddedSinkContext sinkContext = new EmbeddedSinkContext(named.spec());
        RunningSink sink;
        try {
            sink = named.spec().sink().startStreaming(sinkContext, new SourceAdmin(spec.source()));
        } catch (RuntimeException e) {
            sinkContext.close();
            throw e;
        }
        if (shown) {
            counted.batching(sink.batchStatus());
        }
        SinkHandoff handoff = fanOut()
                ? new SinkHandoff(sink.task(), TargetTransforms.of(named.spec().transforms()).addressedTo(named.name()), sink.bytesSent(), counted,
                        FLUSH_INTERVAL_MILLIS, "sluice-sink-" + named.name())
                : new SinkHandoff(sink.task(), sink.bytesSent(), counted, FLUSH_INTERVAL_MILLIS);
        return new Running(named, sinkContext, sink, handoff);
    }

    /**
     * While the pipeline streams into several targets: a target whose sink failed is left behind
     * (the source may be idle, handing the fan-out nothing to find it by), and those left behind
     * are looked at. Returns whether one can catch up now.
     */
    private boolean leaveFailedBehind(FanOut fanOut, List<Running> running, LeftBehind behind) {
        for (int i = 0; i < running.size(); i++) {
            SinkHandoff h = running.get(i).handoff();
            if (h != null && h.failure() != null) {
                fanOut.leaveBehind(i, "its sink failed: " + EmbeddedEngine.rootMessage(h.failure(), null));
            }
        }
        return behind.look(i -> LeftBehind.target(fanOut, i, running.get(i).handoff(), answer(running.get(i)))) >= 0;
    }

    /** Reads what the target records, which fails while it cannot be reached. */
    private java.util.concurrent.Callable<?> answer(Running r) {
        return () -> {
            r.named().spec().sink().answer(spec.sourceName(), spec.source());
            return null;
        };
    }

    /** What watches the targets of a fan-out across the runs of its engine. */
    private record Watch(LeftBehind behind, Detaching detaching) {
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
            if (r.handoff() != null && r.handoff().failure() != null) {
                return r.handoff().failure();
            }
        }
        return null;
    }

    private static boolean allSnapshotsDone(List<Running> running) {
        return running.stream().allMatch(r -> r.handoff() == null || r.handoff().snapshotDone().getCount() == 0);
    }

    private static boolean anyApplied(List<Running> running) {
        return running.stream().anyMatch(r -> r.handoff() != null && r.handoff().changesApplied() > 0);
    }

    private static String status(SinkHandoff handoff, long applied, long reported, double seconds) {
        long since = Math.max(0, applied - Math.max(reported, 0));
        long commit = handoff.lastAppliedCommitMillis();
        String lag = commit == 0 ? "" : String.format(Locale.ROOT, ", newest applied change committed %.1f s ago",
                (System.currentTimeMillis() - commit) / 1000.0);
        return String.format(Locale.ROOT, "  %,d changes applied (%,.0f/s)%s", applied, since / Math.max(seconds, 0.001), lag);
    }
}
