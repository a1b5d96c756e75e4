package io.sluice.runtime.pipeline;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

import io.sluice.runtime.progress.TargetMeters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The targets of a pipeline that {@link FanOut} left behind, across the runs of its engine: says
 * once when one is, and tells the runtime when one can catch up. A slow target can once it holds
 * no batch (it made all it took durable); one whose sink failed can once it answers again, asked
 * at growing intervals. Catching up starts the engine again from its offsets, which wait at the
 * oldest point every target holds; a target left behind again soon after waits twice as long
 * before the next start (up to a minute), so one that cannot keep up costs the others little.
 */
final class LeftBehind {

    private static final Logger LOG = LoggerFactory.getLogger(LeftBehind.class);
    private static final long FIRST_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long LONGEST_WAIT_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** Fed this long after it caught up, a target left behind again starts its waits over. */
    private static final long SETTLED_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** What the runtime knows of one target in this run of the engine. */
    interface Target {
        /** Why FanOut left it behind; null while it is fed. */
        String leftBehind();

        /** Whether its sink failed (or did not start): it catches up once it answers again. */
        boolean failed();

        /** Whether it holds no batch and made durable all it took. */
        boolean drained();

        /** Reads what the target records, which fails while it cannot be reached. */
        void answer() throws Exception;
    }

    /**
     * A target of a fan-out as the runtime drives it.
     *
     * @param handoff its hand-off; null when it did not start
     * @param read    reads what the target records
     */
    static Target target(FanOut fanOut, int index, SinkHandoff handoff, java.util.concurrent.Callable<?> read) {
        return new Target() {
            @Override
            public String leftBehind() {
                return fanOut.leftBehind(index);
            }

            @Override
            public boolean failed() {
                return handoff == null || handoff.failure() != null;
            }

            @Override
            public boolean drained() {
                return handoff != null && handoff.drained();
            }

            @Override
            public void answer() throws Exception {
                read.call();
            }
        };
    }

    private final List<String> names;
    /** Per target, its {@code target} label on the meters. */
    private final List<String> meterLabels;
    private final PrintStream out;
    private final LongSupplier clock;
    private final long[] since;
    private final long[] wait;
    private final long[] caughtUpAt;
    private final long[] nextTry;
    private final String[] why;

    /**
     * @param names       the targets' names
     * @param meterLabels per target, its {@code target} label on the meters
     */
    LeftBehind(List<String> names, List<String> meterLabels, PrintStream out, LongSupplier clock) {
        this.names = List.copyOf(names);
        this.meterLabels = List.copyOf(meterLabels);
        this.out = out;
        this.clock = clock;
        int n = names.size();
        since = new long[n];
        wait = new long[n];
        caughtUpAt = new long[n];
        nextTry = new long[n];
        why = new String[n];
        java.util.Arrays.fill(wait, FIRST_WAIT_NANOS);
        java.util.Arrays.fill(caughtUpAt, Long.MIN_VALUE);
    }

    /**
     * Looks at every target of this run of the engine: says which were left behind since the last
     * look, and returns the first that can catch up now (-1 when none).
     */
    int look(IntFunction<Target> targets) {
        long now = clock.getAsLong();
        int ready = -1;
        for (int i = 0; i < names.size(); i++) {
            Target t = targets.apply(i);
            String reason = t.leftBehind();
            if (reason == null) {
                TargetMeters.LEFT_BEHIND.labelValues(meterLabels.get(i)).set(0);
                continue;
            }
            if (why[i] == null) {
                why[i] = reason;
                since[i] = now;
                if (caughtUpAt[i] != Long.MIN_VALUE && now - caughtUpAt[i] < SETTLED_NANOS) {
                    wait[i] = Math.min(wait[i] * 2, LONGEST_WAIT_NANOS);
                } else {
                    wait[i] = FIRST_WAIT_NANOS;
                }
                nextTry[i] = now + wait[i];
                // On the console (as every ERROR) and in the log file.
                LOG.error("Target {} is left behind: {}. The other targets go on; the slot keeps its changes (it is confirmed only as "
                        + "far as this target holds), and it catches up from there once it {}", names.get(i), reason,
                        t.failed() ? "answers again." : "has written what it took.");
            }
            // Never 0, which says the target is fed, from the moment it is left behind.
            TargetMeters.LEFT_BEHIND.labelValues(meterLabels.get(i)).set(Math.max((now - since[i]) / 1e9, 0.001));
            if (ready >= 0 || now - nextTry[i] < 0) {
                continue;
            }
            if (!t.failed()) {
                if (t.drained()) {
                    out.println("Target " + names.get(i) + " has written what it took: starting again from the offsets, where the slot kept "
                            + "its changes (the other targets skip what they hold).");
                    ready = i;
                }
                continue;
            }
            try {
                t.answer();
                out.println("Target " + names.get(i) + " answers again: starting again from the offsets, where the slot kept its changes "
                        + "(the other targets skip what they hold).");
                ready = i;
            } catch (Exception e) {
                wait[i] = Math.min(wait[i] * 2, LONGEST_WAIT_NANOS);
                nextTry[i] = now + wait[i];
                LOG.debug("Target {} does not answer yet", names.get(i), e);
            }
        }
        return ready;
    }

    /** The engine starts again: every target is fed from the offsets on. */
    void catchingUp() {
        long now = clock.getAsLong();
        for (int i = 0; i < why.length; i++) {
            if (why[i] != null) {
                caughtUpAt[i] = now;
                why[i] = null;
                TargetMeters.LEFT_BEHIND.labelValues(meterLabels.get(i)).set(0);
            }
        }
    }

    /** The status line of a target left behind; null while it is fed. */
    String status(int target) {
        if (why[target] == null) {
            return null;
        }
        return String.format(Locale.ROOT, "  %s: left behind %.0f s ago (%s); its changes wait in the slot", names.get(target),
                (clock.getAsLong() - since[target]) / 1e9, why[target]);
    }

    /** The targets left behind now, with why: empty when none. */
    List<String> now() {
        List<String> left = new java.util.ArrayList<>();
        for (int i = 0; i < why.length; i++) {
            if (why[i] != null) {
                left.add(names.get(i) + " (" + why[i] + ")");
            }
        }
        return left;
    }
}
