package io.sluice.sink.core.batch;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.sink.core.ledger.OffsetLedger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Sealed batches on their way to a target, written on threads of their own while the task
 * gathers the next: the one place where a sink's writes overlap its gathering. Every sink's
 * batches go through it, so three things are done once, in the order the batches were sent and
 * on the task's thread: the batch size tuner is told how long each batch took, the ledger is told
 * what became durable, and a sink sees each batch's outcome.
 *
 * <p>With one thread the batches are written one after another, in order (a target that keeps
 * its position in the data's transaction needs that); with more, several are out at once and
 * finish in any order (a target ordered by versions). Either way at most {@code maxOutstanding}
 * are sent and not settled, which bounds memory when the target is the slower.
 *
 * <p>The first failure is kept: nothing sent after it is written (that would leave a gap on the
 * target), and every later call rethrows it. Methods are called from one thread, the task's.
 *
 * @param <B> a sealed batch
 * @param <R> what writing one gives back
 */
public final class InFlightBatches<B, R> implements AutoCloseable {

    /** Writes one sealed batch to the target, retrying as the target needs; throws when it cannot. */
    @FunctionalInterface
    public interface Write<B, R> {
        R write(B batch) throws Exception;
    }

    /** What a sink does with a written batch's outcome; called on the task's thread, in the order batches were sent. */
    @FunctionalInterface
    public interface Settle<R> {
        void settled(R outcome);
    }

    /** A batch sent (or a mark placed after those sent) and not yet settled. */
    private record Outstanding<R>(Future<Timed<R>> written, long plannedBytes, long bytes, TunedBatchSize.Closing closing,
                                  Map<TopicPartition, Long> durableUpTo, boolean mark) {
    }

    private record Timed<R>(R outcome, long nanos) {
    }

    private static final Timed<Object> MARK = new Timed<>(null, -1);

    private final String target;
    private final String threadName;
    private final int threads;
    private final int maxOutstanding;
    private final TunedBatchSize batchSize;
    private final OffsetLedger ledger;
    private final Write<B, R> write;
    private final Settle<R> settle;
    private final ArrayDeque<Outstanding<R>> outstanding = new ArrayDeque<>();
    private ExecutorService executor;
    /** Why a batch could not be written; set on a writing thread. */
    private volatile RuntimeException failed;
    /** Set when closing: batches not yet begun are not written. */
    private volatile boolean closed;

    /**
     * @param target         the target, for messages
     * @param threadName     the name of the writing threads
     * @param threads        how many batches are written at once; 1 writes them in the order sent
     * @param maxOutstanding how many may be sent and not settled; a send waits for the oldest beyond that
     * @param batchSize      told how long each batch took, by how it was closed
     * @param ledger         told what is durable once every batch before a mark is written
     * @param settle         what the sink does with each outcome, or null
     */
    public InFlightBatches(String target, String threadName, int threads, int maxOutstanding, TunedBatchSize batchSize,
                           OffsetLedger ledger, Write<B, R> write, Settle<R> settle) {
        if (threads < 1 || maxOutstanding < threads) {
            throw new IllegalArgumentException("threads " + threads + " and maxOutstanding " + maxOutstanding);
        }
        this.target = target;
        this.threadName = threadName;
        this.threads = threads;
        this.maxOutstanding = maxOutstanding;
        this.batchSize = batchSize;
        this.ledger = ledger;
        this.write = write;
        this.settle = settle;
    }

    /**
     * Sends a sealed batch, first settling the oldest while as many as allowed are out.
     *
     * @param plannedBytes the batch size it was gathered to
     * @param bytes        its size
     * @param closing      why it was sealed, for the tuner (null: not a measure of the size, it is not told)
     * @param durableUpTo  what the ledger may mark durable once this batch and every one before it are written; null for nothing
     */
    public void send(B batch, long plannedBytes, long bytes, TunedBatchSize.Closing closing, Map<TopicPartition, Long> durableUpTo) {
        throwIfFailed();
        while (outstanding.size() >= maxOutstanding) {
            settleOldest();
        }
        Future<Timed<R>> written = executor().submit(() -> {
            if (failed != null || closed) {
                return null; // something before failed (writing this would leave a gap), or closing
            }
            long started = System.nanoTime();
            try {
                return new Timed<>(write.write(batch), System.nanoTime() - started);
            } catch (Exception e) {
                failed = asRuntime(e);
                throw e;
            }
        });
        outstanding.addLast(new Outstanding<>(written, plannedBytes, bytes, closing, durableUpTo, false));
    }

    /** Marks {@code upTo} durable once every batch sent so far is written: at once when none is out. */
    @SuppressWarnings("unchecked")
    public void durableOnceWritten(Map<TopicPartition, Long> upTo) {
        settleFinished();
        if (outstanding.isEmpty()) {
            ledger.markDurable(upTo);
            return;
        }
        if (outstanding.peekLast().mark()) {
            outstanding.removeLast(); // a mark after the same batches: this one says as much and more
        }
        outstanding.addLast(new Outstanding<>(CompletableFuture.completedFuture((Timed<R>) MARK), 0, 0, null, upTo, true));
    }

    /** Whether a batch sent is still being written or waiting to be. */
    public boolean busy() {
        settleFinished();
        return !outstanding.isEmpty();
    }

    /** Batches sent and not settled. */
    public int outstanding() {
        return outstanding.size();
    }

    /** Settles, oldest first, the batches that are written; stops at the first still out, so what is marked stays a prefix. */
    public void settleFinished() {
        while (!outstanding.isEmpty() && outstanding.peekFirst().written().isDone()) {
            settleOldest();
        }
        throwIfFailed();
    }

    /** Waits until every batch sent is written and settled; rethrows why one could not be. */
    public void awaitAll() {
        while (!outstanding.isEmpty()) {
            settleOldest();
        }
        throwIfFailed();
    }

    /**
     * Runs {@code work} once every batch sent is written, on the writing thread (so work that
     * shares the writer's connection may use it), and returns its result.
     */
    public <T> T call(Callable<T> work) {
        awaitAll();
        Future<T> result = executor().submit(work);
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw asRuntime(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while waiting for " + target, e);
        }
    }

    /** Rethrows why a batch could not be written, if one could not. */
    public void throwIfFailed() {
        RuntimeException e = failed;
        if (e != null) {
            throw e;
        }
    }

    private void settleOldest() {
        Outstanding<R> oldest = outstanding.peekFirst();
        Timed<R> timed;
        try {
            timed = oldest.written().get();
        } catch (ExecutionException e) {
            if (failed == null) {
                failed = asRuntime(e.getCause());
            }
            throw failed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while waiting for writes to " + target, e);
        }
        outstanding.removeFirst();
        if (timed == null) {
            throwIfFailed(); // skipped after an earlier failure
            return;
        }
        if (!oldest.mark()) {
            batchSize.written(oldest.bytes(), timed.nanos());
            if (oldest.closing() != null) {
                batchSize.record(oldest.plannedBytes(), oldest.bytes(), timed.nanos(), oldest.closing());
            }
            if (settle != null) {
                settle.settled(timed.outcome());
            }
        }
        if (oldest.durableUpTo() != null) {
            ledger.markDurable(oldest.durableUpTo());
        }
    }

    private RuntimeException asRuntime(Throwable e) {
        return e instanceof RuntimeException r ? r : new ConnectException("Writing to " + target + " failed: " + e, e);
    }

    private ExecutorService executor() {
        if (executor == null) {
            AtomicInteger n = new AtomicInteger();
            executor = Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, threads == 1 ? threadName : threadName + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        return executor;
    }

    /**
     * Stops once the batch being written is done, interrupting it if that takes longer than ten
     * seconds; batches not yet written are not. What was not written the source sends again.
     */
    @Override
    public void close() {
        closed = true;
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
