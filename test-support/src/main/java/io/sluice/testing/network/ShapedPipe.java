package io.sluice.testing.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One direction of one proxied connection through a {@link LinkShape}: a reader takes bytes in
 * as the window and the shared bandwidth allow and stamps each chunk with its arrival time; a
 * writer hands chunks on when they arrive. Arrivals never go back in time, so bytes stay in
 * order as TCP keeps them.
 */
final class ShapedPipe {

    private static final int CHUNK = 16 * 1024;
    private static final Chunk END = new Chunk(null, 0, 0);

    private final InputStream in;
    private final OutputStream out;
    private final Supplier<LinkShape> shape;
    private final Bandwidth bandwidth;
    private final Runnable closeBoth;
    private final BlockingQueue<Chunk> line = new LinkedBlockingQueue<>();
    /** Reader only: (acknowledged-at nanos, bytes) of what is in flight, oldest first. */
    private final ArrayDeque<long[]> unacknowledged = new ArrayDeque<>();
    private long inFlight;
    private long lastArrival;

    private record Chunk(byte[] bytes, int length, long arrivalNanos) {
    }

    /** A direction's bandwidth, shared by every connection's pipe in that direction. */
    static final class Bandwidth {
        private long nextFreeNanos;

        /** Takes the link for {@code bytes}; returns when they are all on it (serialized). */
        long transmit(long bytes, long bytesPerSecond) {
            long done;
            synchronized (this) {
                long now = System.nanoTime();
                long start = Math.max(now, nextFreeNanos);
                done = start + (bytesPerSecond == 0 ? 0 : bytes * 1_000_000_000L / bytesPerSecond);
                nextFreeNanos = done;
            }
            sleepUntil(done);
            return done;
        }
    }

    ShapedPipe(InputStream in, OutputStream out, Supplier<LinkShape> shape, Bandwidth bandwidth, Runnable closeBoth) {
        this.in = in;
        this.out = out;
        this.shape = shape;
        this.bandwidth = bandwidth;
        this.closeBoth = closeBoth;
    }

    void start(String name) {
        Thread reader = new Thread(this::read, name + "-in");
        Thread writer = new Thread(this::write, name + "-out");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    private void read() {
        try {
            while (true) {
                LinkShape link = shape.get();
                int room = awaitWindow(link);
                byte[] buffer = new byte[room];
                int n = in.read(buffer);
                if (n < 0) {
                    break;
                }
                long sent = bandwidth.transmit(n, link.bytesPerSecond());
                long delay = link.delay().toNanos();
                long jitter = link.jitter().toNanos();
                long oneWay = delay + (jitter == 0 ? 0 : ThreadLocalRandom.current().nextLong(-jitter, jitter + 1));
                long arrival = Math.max(lastArrival, sent + oneWay);
                lastArrival = arrival;
                if (link.bytesInFlight() > 0) {
                    unacknowledged.addLast(new long[] {arrival + oneWay, n});
                    inFlight += n;
                }
                line.put(new Chunk(buffer, n, arrival));
            }
        } catch (IOException | InterruptedException e) {
            // the connection closed
        } finally {
            line.add(END);
        }
    }

    /** Waits until the window has room; returns how many bytes may be read now. */
    private int awaitWindow(LinkShape link) {
        if (link.bytesInFlight() == 0) {
            unacknowledged.clear();
            inFlight = 0;
            return CHUNK;
        }
        while (true) {
            long now = System.nanoTime();
            while (!unacknowledged.isEmpty() && unacknowledged.peekFirst()[0] <= now) {
                inFlight -= unacknowledged.pollFirst()[1];
            }
            long room = link.bytesInFlight() - inFlight;
            if (room > 0) {
                return (int) Math.min(CHUNK, room);
            }
            sleepUntil(unacknowledged.peekFirst()[0]);
        }
    }

    private void write() {
        try {
            while (true) {
                Chunk chunk = line.take();
                if (chunk == END) {
                    break;
                }
                sleepUntil(chunk.arrivalNanos());
                out.write(chunk.bytes(), 0, chunk.length());
                if (line.isEmpty()) {
                    out.flush();
                }
            }
        } catch (IOException | InterruptedException e) {
            // the connection closed
        } finally {
            closeBoth.run();
        }
    }

    static void sleepUntil(long nanos) {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }
}
