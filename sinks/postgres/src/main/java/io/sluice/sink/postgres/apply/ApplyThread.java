package io.sluice.sink.postgres.apply;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * The thread target transactions run on: one at a time, in the order given, while the caller
 * gathers the next. The first failure is kept: nothing given after it runs, as that would leave
 * a gap on the target, and every later wait rethrows it. Methods other than {@link #failed} are
 * called from one thread, the caller's.
 */
final class ApplyThread implements AutoCloseable {

    /** The target, for messages. */
    private final String target;
    private ExecutorService executor;
    /** The work given last, if any: what came before it ran first. */
    private Future<?> last;
    /** Why work could not be done; set on the apply thread. */
    private volatile RuntimeException failed;

    ApplyThread(String target) {
        this.target = target;
    }

    /** Whether work given is still running or waiting to run. */
    boolean busy() {
        return last != null && !last.isDone();
    }

    /** Runs {@code work} after everything given before, unless something failed; returns at once. */
    void then(Runnable work) {
        last = executor().submit(() -> {
            if (failed != null) {
                return; // something before failed: going on would leave a gap
            }
            try {
                work.run();
            } catch (RuntimeException e) {
                failed = e;
                throw e;
            }
        });
    }

    /** Waits until everything given is done; rethrows why something could not be. */
    void await() {
        if (last != null) {
            Future<?> waiting = last;
            last = null;
            outcome(waiting);
        }
        throwIfFailed();
    }

    /** Runs {@code work} after everything given before, and waits for its result. */
    <T> T call(Callable<T> work) {
        await();
        return outcome(executor().submit(work));
    }

    /** Rethrows why work could not be done, if something failed. */
    void throwIfFailed() {
        RuntimeException e = failed;
        if (e != null) {
            throw e;
        }
    }

    private <T> T outcome(Future<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (failed == null) {
                failed = e.getCause() instanceof RuntimeException r ? r : new ConnectException(e.getCause());
            }
            throw failed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while waiting for changes to be applied to " + target, e);
        }
    }

    private ExecutorService executor() {
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "sluice-apply");
                t.setDaemon(true);
                return t;
            });
        }
        return executor;
    }

    /** Stops once the work given is done, interrupting it if that takes longer than ten seconds. */
    @Override
    public void close() {
        if (executor != null) {
            executor.shutdown();
            try {
                if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                    executor.shutdownNow();
                    executor.awaitTermination(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
