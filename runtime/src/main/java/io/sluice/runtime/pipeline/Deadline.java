package io.sluice.runtime.pipeline;

/**
 * A point in {@link System#nanoTime} time after which a wait gives up, or none: the hand-off
 * waits for a target without end unless it is one that may be left behind.
 */
record Deadline(long atNanos, boolean none) {

    static final Deadline NONE = new Deadline(0, true);

    /** The deadline {@code nanos} from now; none for {@link Long#MAX_VALUE}. */
    static Deadline within(long nanos) {
        return nanos == Long.MAX_VALUE ? NONE : new Deadline(System.nanoTime() + nanos, false);
    }

    boolean passed() {
        return !none && System.nanoTime() - atNanos > 0;
    }
}
