package io.sluice.sink.core.batch;

/**
 * Bounds the bytes of batches in flight. A batch waits until it fits; one that is larger than
 * the whole budget goes when nothing else is in flight, so any batch size makes progress. With
 * the budget fixed, larger batches mean fewer of them in flight at once: the trade the batch
 * size tuner weighs against the cost of each batch's round trips.
 */
public final class ByteBudget {

    private final long limit;
    private long used;

    public ByteBudget(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("A byte budget must be positive, not " + limit);
        }
        this.limit = limit;
    }

    /** Waits until {@code bytes} fit, then takes them. */
    public synchronized void acquire(long bytes) throws InterruptedException {
        while (used > 0 && used + bytes > limit) {
            wait();
        }
        used += bytes;
    }

    public synchronized void release(long bytes) {
        used -= bytes;
        notifyAll();
    }

    public synchronized long used() {
        return used;
    }
}
