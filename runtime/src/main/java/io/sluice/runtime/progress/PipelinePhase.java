package io.sluice.runtime.progress;

/**
 * Where a running pipeline is, for its readiness and status page: the phase it is in, since
 * when, and the progress of its copy. Written by the pipeline, read by the metrics server.
 */
public final class PipelinePhase {

    /** The phases of a run, in order. */
    public enum Phase {
        STARTING, SNAPSHOT, STREAMING, STOPPING, STOPPED, FAILED
    }

    /** A snapshot that moved no row for this long is not progressing. */
    public static final long STALLED_MILLIS = 60_000;

    private volatile Phase phase = Phase.STARTING;
    private volatile long sinceMillis = System.currentTimeMillis();
    private volatile Progress progress;
    private volatile long lastRows = -1;
    private volatile long lastRowsAtMillis = System.currentTimeMillis();

    public void enter(Phase next) {
        phase = next;
        sinceMillis = System.currentTimeMillis();
        lastRowsAtMillis = sinceMillis;
    }

    public void progress(Progress copy) {
        progress = copy;
    }

    public Phase phase() {
        return phase;
    }

    public long sinceMillis() {
        return sinceMillis;
    }

    /** The copy's progress; null when the run copies nothing. */
    public Progress progress() {
        return progress;
    }

    /**
     * Why the pipeline is not ready, or null when it is: streaming, or a snapshot whose rows moved
     * within {@link #STALLED_MILLIS} (or that began less than that ago).
     */
    public synchronized String notReady(long nowMillis) {
        Phase now = phase;
        if (now == Phase.STREAMING) {
            return null;
        }
        if (now == Phase.SNAPSHOT) {
            Progress p = progress;
            long rows = p == null ? 0 : p.rows();
            if (rows != lastRows) {
                lastRows = rows;
                lastRowsAtMillis = nowMillis;
            }
            long quiet = nowMillis - lastRowsAtMillis;
            return quiet < STALLED_MILLIS ? null
                    : "the snapshot moved no row for " + quiet / 1000 + " s";
        }
        return "the pipeline is " + now.name().toLowerCase(java.util.Locale.ROOT);
    }
}
