package io.sluice.runtime.pipeline;

import java.util.ArrayList;
import java.util.List;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Hands every batch of the one source to each target's {@link SinkHandoff}, and lets the source
 * confirm a record only once every target has made it durable: each target marks records as it
 * would alone, through a committer of its own here, and a record is marked for the engine when
 * the last target to hold it does, so the slot is confirmed at the oldest position all targets
 * hold.
 *
 * <p>While the pipeline streams, a target that takes no batch within its bound (its queue stays
 * full, a settling batch is not durable), or whose sink fails, is left behind: it is handed no
 * further batch, so the others keep their pace, and its votes stop where it is, so the engine's
 * offsets and the slot wait there for it. Catching it up is the runtime's (see
 * {@link StreamingPipeline}): it starts the engine again from those offsets. Before the pipeline
 * streams (its snapshot), a slow target holds the others and a failed one stops the run. A
 * detached target ({@link Detaching}) is handed nothing and has no say: the others agree alone.
 */
final class FanOut implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private final List<SinkHandoff> targets;
    private final long[] stallNanos;
    private final List<Votes> votes = new ArrayList<>();
    private final Agreement<RecordChangeEvent<SourceRecord>> agreement;
    /** Per target, why it was left behind; null while it is fed. */
    private final String[] leftBehind;
    /** How many targets are left behind: the count of non-null entries of {@link #leftBehind}. */
    private int behind;
    /** Per target, whether it is detached: fed nothing, and the others agree without it ({@link Detaching}). */
    private final boolean[] detached;
    private final int fed;
    private DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> engine;
    private boolean markedSinceFinished;
    private volatile boolean streaming;
    private volatile boolean stopping;

    /**
     * @param targets    each target's hand-off; null for a target left behind from the start (it did not start)
     * @param stallNanos per target, how long it may take no batch before it is left behind
     * @param why        per target left behind from the start, why
     */
    FanOut(List<SinkHandoff> targets, long[] stallNanos, String[] why) {
        this(targets, stallNanos, why, new boolean[targets.size()]);
    }

    /** @param detached per target, whether it is detached (its hand-off null): fed nothing, with no say in what is confirmed */
    FanOut(List<SinkHandoff> targets, long[] stallNanos, String[] why, boolean[] detached) {
        this.targets = new ArrayList<>(targets);
        this.stallNanos = stallNanos.clone();
        this.leftBehind = why.clone();
        this.detached = detached.clone();
        int fedTargets = 0;
        boolean[] voting = new boolean[detached.length];
        for (int i = 0; i < detached.length; i++) {
            voting[i] = !detached[i];
            if (!detached[i]) {
                fedTargets++;
                behind += leftBehind[i] == null ? 0 : 1;
            } else {
                leftBehind[i] = null;
            }
        }
        this.fed = fedTargets;
        this.agreement = new Agreement<>(voting, e -> e.record().sourcePartition());
        for (int i = 0; i < targets.size(); i++) {
            votes.add(new Votes(i));
        }
    }

    /**
     * Every configuration and connection problem of a pipeline into several targets, one per line:
     * the one source that feeds them all is checked once, then each target's side and transforms.
     */
    static List<String> problems(PipelineSpec spec, List<NamedTarget> targets) {
        List<String> problems = new ArrayList<>(EmbeddedEngine.sourceProblems(spec.source()));
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

    /** Per target, how long it may take no batch while the pipeline streams before the others go on without it. */
    static long[] stallNanos(List<NamedTarget> targets) {
        long[] each = new long[targets.size()];
        for (int i = 0; i < each.length; i++) {
            each[i] = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(new org.apache.kafka.common.config.AbstractConfig(
                    EmbeddedSinkContext.CONFIG_DEF, targets.get(i).spec().target(), false).getLong(EmbeddedSinkContext.STALL_AFTER_MS));
        }
        return each;
    }

    /** The pipeline streams: from now on a slow or failed target is left behind rather than holding the others. */
    void streaming() {
        streaming = true;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> events, DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        synchronized (this) {
            engine = committer;
        }
        // Once a target is left behind, nothing handed out from now on can be agreed on in this run of the engine (that
        // target never gets it): it is not kept, so a long outage costs no memory.
        if (!anyLeftBehind()) {
            agreement.handedOut(events);
        }
        boolean isolate = streaming;
        boolean handed = false;
        for (int i = 0; i < targets.size(); i++) {
            if (detached[i] || leftBehind(i) != null) {
                continue;
            }
            SinkHandoff target = targets.get(i);
            try {
                if (target.handleBatch(events, votes.get(i), isolate ? stallNanos[i] : Long.MAX_VALUE)) {
                    handed = true;
                } else {
                    leave(i, "it took no batch for " + stallNanos[i] / 1_000_000 + " ms, its stall.after.ms");
                }
            } catch (RuntimeException e) {
                if (!isolate) {
                    throw e;
                }
                leave(i, "its sink failed: " + EmbeddedEngine.rootMessage(e, null));
            }
        }
        // With every target left behind nothing would hold what is read: the source waits for the runtime to start again.
        while (!handed && !stopping && allLeftBehind()) {
            Thread.sleep(100);
        }
    }

    private synchronized void leave(int target, String why) {
        if (leftBehind[target] == null && !detached[target]) {
            leftBehind[target] = why;
            behind++;
        }
    }

    /** Why the target is left behind (handed no batches, its votes where they stopped); null while it is fed. */
    synchronized String leftBehind(int target) {
        return leftBehind[target];
    }

    /** Leaves a target behind from outside the engine's thread: the runtime saw its sink fail while the source was idle. */
    void leaveBehind(int target, String why) {
        leave(target, why);
    }

    private synchronized boolean anyLeftBehind() {
        return behind > 0;
    }

    private synchronized boolean allLeftBehind() {
        return behind == fed;
    }

    /** A target has made durable every record of the event's partition up to it. */
    private synchronized void durable(int target, RecordChangeEvent<SourceRecord> event) throws InterruptedException {
        RecordChangeEvent<SourceRecord> agreed = agreement.durable(target, event);
        if (agreed != null) {
            engine.markProcessed(agreed);
            markedSinceFinished = true;
        }
    }

    /** A target ends a batch: the engine's offsets are committed when any record was marked for it since the last time. */
    private synchronized void finished() throws InterruptedException {
        if (markedSinceFinished) {
            markedSinceFinished = false;
            engine.markBatchFinished();
        }
    }

    /** Before the engine stops, which commits what is marked itself: no target may be committing then. */
    void beforeEngineStops() {
        stopping = true;
        targets.forEach(t -> {
            if (t != null) {
                t.beforeEngineStops();
            }
        });
    }

    /** One target's committer: what it marks counts as its vote. */
    private final class Votes implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
        private final int target;

        Votes(int target) {
            this.target = target;
        }

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record) throws InterruptedException {
            durable(target, record);
        }

        @Override
        public void markBatchFinished() throws InterruptedException {
            finished();
        }

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets sourceOffsets) {
            throw new UnsupportedOperationException("a target marks records without offsets of its own");
        }

        @Override
        public DebeziumEngine.Offsets buildOffsets() {
            throw new UnsupportedOperationException("a target marks records without offsets of its own");
        }
    }
}
