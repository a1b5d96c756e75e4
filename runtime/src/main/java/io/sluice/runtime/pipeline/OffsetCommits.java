package io.sluice.runtime.pipeline;

import io.debezium.engine.DebeziumEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the engine's batches, which commits their offsets (the offsets file, two fsyncs, and then
 * the source confirms them), either at once on the caller's thread or soon on a thread of its
 * own. Streamed changes whose target keeps their positions take the second way: on the engine's
 * thread the fsyncs held up reading the source, for tens of milliseconds where the disk was busy
 * (a diagnostic run at 5,000 rows/s: most of its late changes came while the file was written).
 * Commits never overlap: the engine's committer is one, shared by its batches.
 */
final class OffsetCommits implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommits.class);

    private final Object committing = new Object();
    private final Thread thread;
    /** The committer to end a batch with, once the thread gets to it; null when none is asked for. */
    private DebeziumEngine.RecordCommitter<?> requested;
    private boolean stopped;

    OffsetCommits() {
        thread = new Thread(this::run, "sluice-offsets");
        thread.setDaemon(true);
        thread.start();
    }

    /** Ends the batch now, on this thread, after any commit under way. */
    void now(DebeziumEngine.RecordCommitter<?> committer) throws InterruptedException {
        synchronized (committing) {
            committer.markBatchFinished();
        }
    }

    /** Ends the batch soon, on the commits' own thread; requests that come meanwhile go in one commit. */
    synchronized void soon(DebeziumEngine.RecordCommitter<?> committer) {
        if (!stopped) {
            requested = committer;
            notifyAll();
        }
    }

    private void run() {
        try {
            while (true) {
                DebeziumEngine.RecordCommitter<?> committer;
                synchronized (this) {
                    while (requested == null && !stopped) {
                        wait();
                    }
                    if (stopped) {
                        return;
                    }
                    committer = requested;
                    requested = null;
                }
                try {
                    now(committer);
                } catch (RuntimeException e) {
                    // What was marked stays marked: the next commit (or the engine's as it stops) writes it.
                    LOG.warn("Committing the source's offsets failed ({}); the next commit tries again", e.getMessage());
                    LOG.debug("Committing the source's offsets", e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops taking requests, after the commit under way and the one asked for last: before the
     * engine stops, which commits what is marked itself and must not meet a commit of this thread.
     */
    @Override
    public void close() {
        DebeziumEngine.RecordCommitter<?> last;
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            last = requested;
            requested = null;
            notifyAll();
        }
        try {
            thread.join(60_000);
            if (last != null) {
                now(last);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debug("Committing the source's offsets before the engine stops", e);
        }
    }
}
