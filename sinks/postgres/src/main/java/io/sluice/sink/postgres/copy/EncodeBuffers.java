package io.sluice.sink.postgres.copy;

import java.util.ArrayDeque;

import io.sluice.schemas.codec.WireBuffer;

/**
 * Buffers of encoded rows that COPYs have finished with, handed to the next batches. A chunk of
 * decoded rows is an array of up to 16 MB: allocated anew for each, it is seldom small enough
 * for the young generation of a small heap, lands in the old one, and fills it until a full
 * collection (a snapshot of decoded rows in a 512 MB heap ran three of them per million rows).
 * Reused, the same few arrays serve the whole load. Only buffers in the range a chunk is sized
 * to are kept, so one oversized row does not keep its buffer alive for the rest of the run.
 */
public final class EncodeBuffers {

    /** Smaller buffers are cheap to allocate and would only crowd the pool. */
    static final int MIN_KEPT = 1 << 16;
    /** A chunk is sized up to 16 MB; a buffer that grew well past that held an oversized row. */
    static final int MAX_KEPT = 32 << 20;

    private final int keep;
    private final ArrayDeque<WireBuffer> free = new ArrayDeque<>();

    /** @param keep how many buffers to hold at most: as many as chunks can be in flight, and one being filled */
    public EncodeBuffers(int keep) {
        this.keep = keep;
    }

    /** An empty buffer: a kept one when there is one, else a new one of {@code capacity} bytes. */
    public synchronized WireBuffer take(int capacity) {
        WireBuffer buffer = free.pollFirst();
        if (buffer == null) {
            return new WireBuffer(capacity);
        }
        buffer.clear();
        return buffer;
    }

    /** Takes back a buffer nobody reads any more. */
    public synchronized void give(WireBuffer buffer) {
        int capacity = buffer.array().length;
        if (free.size() < keep && capacity >= MIN_KEPT && capacity <= MAX_KEPT) {
            free.addLast(buffer);
        }
    }

    synchronized int kept() {
        return free.size();
    }
}
