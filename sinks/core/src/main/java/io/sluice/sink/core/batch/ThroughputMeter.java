package io.sluice.sink.core.batch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes sent by all of a sink's connections together. A batch's throughput is what all of them
 * sent while it was on its way ({@link #mark} when it leaves, {@link #since} when it is
 * committed): with several connections at once, a batch's own bytes over its own time would
 * favour sizes that keep fewer connections busy. That reading is a size's only while the batches
 * beside it are of its size too, so each sample also says whether one of another size was on its
 * way at the same time (after the tuner moves to a new size, the old size's last batches are).
 */
public final class ThroughputMeter {

    private final AtomicLong bytes = new AtomicLong();
    /** Batches on their way; guarded by this. */
    private final List<Mark> onTheirWay = new ArrayList<>();

    /** Where the meter stood when a batch left. */
    public static final class Mark {
        private final long nanos;
        private final long bytes;
        private final long plannedBytes;
        /** Guarded by the meter. */
        private boolean besideOtherSizes;

        private Mark(long nanos, long bytes, long plannedBytes) {
            this.nanos = nanos;
            this.bytes = bytes;
            this.plannedBytes = plannedBytes;
        }
    }

    /** Counts bytes as they are written to a connection. */
    public void sent(long count) {
        bytes.addAndGet(count);
    }

    /** A batch filled towards {@code plannedBytes} leaves now. */
    public Mark mark(long plannedBytes) {
        Mark mark = new Mark(System.nanoTime(), bytes.get(), plannedBytes);
        synchronized (this) {
            for (Mark other : onTheirWay) {
                if (other.plannedBytes != plannedBytes) {
                    other.besideOtherSizes = true;
                    mark.besideOtherSizes = true;
                }
            }
            onTheirWay.add(mark);
        }
        return mark;
    }

    /** The batch of {@code mark} is in: the bytes all connections sent since it left and the nanoseconds it took, as one sample. */
    public Sample since(Mark mark) {
        long now = System.nanoTime();
        long sentNow = bytes.get();
        boolean beside;
        synchronized (this) {
            onTheirWay.remove(mark);
            beside = mark.besideOtherSizes;
        }
        return new Sample(sentNow - mark.bytes, now - mark.nanos, beside);
    }

    /** The batch of {@code mark} failed: it is no longer on its way, and no sample. */
    public synchronized void forget(Mark mark) {
        onTheirWay.remove(mark);
    }

    /**
     * Bytes sent over an interval.
     *
     * @param besideOtherSizes whether a batch filled towards another size was on its way during it
     */
    public record Sample(long bytes, long nanos, boolean besideOtherSizes) {
        public double bytesPerSecond() {
            return nanos <= 0 ? 0 : bytes * 1e9 / nanos;
        }
    }
}
