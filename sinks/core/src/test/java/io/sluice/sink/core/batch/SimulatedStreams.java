package io.sluice.sink.core.batch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * Streams on a simulated link for the tuner's properties: each batch costs a fixed time, then its
 * bytes at the stream's rate, and streams do not slow each other (a window per connection).
 * Batches are handed out as {@code CopyLoader} does: a free stream takes a batch of the tuner's
 * size and reports it sent, and reports it when it ends, with its own bytes, the bytes all streams
 * moved meanwhile, and whether a batch of another size ran beside it.
 */
final class SimulatedStreams {

    final TunedBatchSize batches;
    /** The size of every batch sent, in order. */
    final List<Long> sent = new ArrayList<>();
    private final int streams;
    private final double fixedSeconds;
    private final double bytesPerSecond;
    private final double noise;
    private final Random random;
    private final List<Batch> done = new ArrayList<>();
    /** The smallest and largest noise factor a batch's times were scaled by so far. */
    double leastScale = Double.MAX_VALUE;
    double mostScale = 0;

    private record Batch(long planned, double start, double transferFrom, double end) {
    }

    SimulatedStreams(TunerSettings settings, int streams, double fixedSeconds, double bytesPerSecond, double noise, Random random) {
        this.batches = new TunedBatchSize("simulated", Optional.of(settings), settings.defaultBytes(), RememberedSizes.NONE, null, streams);
        this.streams = streams;
        this.fixedSeconds = fixedSeconds;
        this.bytesPerSecond = bytesPerSecond;
        this.noise = noise;
        this.random = random;
    }

    /** Runs at most {@code count} batches, while the tuner is in {@code state} ("CLIMBING"), or any state when null. */
    void runWhile(int count, String state) {
        PriorityQueue<Batch> running = new PriorityQueue<>(Comparator.comparingDouble(Batch::end));
        double now = 0;
        for (int i = 0; i < streams; i++) {
            running.add(start(now));
        }
        for (int n = 0; n < count && (state == null || batches.state().equals(state)); n++) {
            Batch batch = running.poll();
            now = batch.end();
            done.add(batch);
            long nanos = Math.max(1, (long) ((batch.end() - batch.start()) * 1e9));
            List<Batch> all = new ArrayList<>(done);
            all.addAll(running);
            batches.record(batch.planned(), batch.planned(), movedDuring(batch.start(), batch.end(), all), nanos,
                    TunedBatchSize.Closing.FULL, besideOtherSizes(batch, all));
            running.add(start(now));
            double earliest = running.stream().mapToDouble(Batch::start).min().orElse(now);
            done.removeIf(b -> b.end() < earliest);
        }
    }

    private Batch start(double now) {
        long planned = batches.bytes();
        batches.sent(planned, true);
        sent.add(planned);
        double scale = Math.max(0.5, 1 + noise * random.nextGaussian());
        leastScale = Math.min(leastScale, scale);
        mostScale = Math.max(mostScale, scale);
        double transferFrom = now + fixedSeconds * scale;
        return new Batch(planned, now, transferFrom, transferFrom + planned / bytesPerSecond * scale);
    }

    /** Whether a batch of another size among {@code all} (the batches done and running) was on its way while {@code batch} was: what the meter's sample says. */
    private static boolean besideOtherSizes(Batch batch, List<Batch> all) {
        return all.stream().anyMatch(b -> b.planned() != batch.planned() && b.start() < batch.end() && b.end() > batch.start());
    }

    /** Bytes all streams ({@code all}: the batches done and running) moved between two moments: what a batch's throughput meter reads. */
    private static long movedDuring(double from, double to, List<Batch> all) {
        double bytes = 0;
        for (Batch b : all) {
            double overlap = Math.min(to, b.end()) - Math.max(from, b.transferFrom());
            if (overlap > 0) {
                bytes += b.planned() * overlap / (b.end() - b.transferFrom());
            }
        }
        return Math.max(1, (long) bytes);
    }
}
