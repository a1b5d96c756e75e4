package io.sluice.sink.core.batch;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes sent by all of a sink's connections together. A batch's throughput is what all of them
 * sent while it was on its way ({@link #mark} when it leaves, {@link #bytesPerSecondSince} when
 * it is committed): with several connections at once, a batch's own bytes over its own time
 * would favour sizes that keep fewer connections busy.
 */
public final class ThroughputMeter {

    private final AtomicLong bytes = new AtomicLong();

    /** Where the meter stood at one moment. */
    public record Mark(long nanos, long bytes) {
    }

    /** Counts bytes as they are written to a connection. */
    public void sent(long count) {
        bytes.addAndGet(count);
    }

    public Mark mark() {
        return new Mark(System.nanoTime(), bytes.get());
    }

    /** Bytes sent since the mark and the nanoseconds it took, as one sample. */
    public Sample since(Mark mark) {
        return new Sample(bytes.get() - mark.bytes(), System.nanoTime() - mark.nanos());
    }

    /** Bytes sent over an interval. */
    public record Sample(long bytes, long nanos) {
        public double bytesPerSecond() {
            return nanos <= 0 ? 0 : bytes * 1e9 / nanos;
        }
    }
}
