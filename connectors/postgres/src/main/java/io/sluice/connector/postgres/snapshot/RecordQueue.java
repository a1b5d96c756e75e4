package io.sluice.connector.postgres.snapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A FIFO queue bounded in bytes between the snapshot readers and the task's {@code poll}.
 * Readers block while it is full, so memory stays bounded however large the tables are; an
 * item larger than the bound is still accepted when the queue is empty, so a huge value
 * passes alone instead of blocking forever.
 */
public final class RecordQueue<T> {

    private record Entry<T>(T item, long bytes) {
    }

    private final long capacityBytes;
    private final ArrayDeque<Entry<T>> entries = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    private final Condition notEmpty = lock.newCondition();
    private long bytes;

    public RecordQueue(long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    public void put(T item, long itemBytes) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (!entries.isEmpty() && bytes + itemBytes > capacityBytes) {
                notFull.await();
            }
            entries.addLast(new Entry<>(item, itemBytes));
            bytes += itemBytes;
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Takes up to {@code maxItems}, waiting up to {@code timeoutMillis} for the first; empty when none came. */
    public List<T> drain(int maxItems, long timeoutMillis) throws InterruptedException {
        List<T> out = new ArrayList<>();
        lock.lockInterruptibly();
        try {
            long nanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (entries.isEmpty() && nanos > 0) {
                nanos = notEmpty.awaitNanos(nanos);
            }
            while (!entries.isEmpty() && out.size() < maxItems) {
                Entry<T> e = entries.removeFirst();
                bytes -= e.bytes();
                out.add(e.item());
            }
            notFull.signalAll();
            return out;
        } finally {
            lock.unlock();
        }
    }
}
