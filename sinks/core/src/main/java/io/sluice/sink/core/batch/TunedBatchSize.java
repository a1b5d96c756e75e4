package io.sluice.sink.core.batch;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

import io.sluice.sink.core.metrics.BatchMeters;
import io.sluice.sink.core.metrics.ByteCounts;
import io.sluice.sink.core.metrics.SinkMetrics;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch size of one kind of a sink's batches, tuned by a {@link BatchSizeTuner} or fixed,
 * safe to share between the thread that fills batches and those that write them. Writers
 * report each batch with {@link #record}; every step of the search is logged, and
 * {@link #register} shows the size, throughput and state as metrics.
 */
public final class TunedBatchSize {

    private static final Logger LOG = LoggerFactory.getLogger(TunedBatchSize.class);
    /** Where written batches show on the process's metrics; null until registered. */
    private volatile BatchMeters meters;

    /** Why a batch was sent. */
    public enum Closing {
        /** It reached the batch size: a measurement. */
        FULL,
        /** Its time was up before it filled: the source sets the pace. */
        TIMEOUT,
        /** Something else sent it early (a flush, the end of a table, a schema change): not a measurement. */
        EARLY
    }

    private final String what;
    /** How to tune, starting where the last run ended once that is known (see {@link #tuner()}); null for a fixed size. */
    private TunerSettings settings;
    private final RememberedSizes remembered;
    /** The batches' name where sizes are remembered ({@code snapshot-copy}). */
    private final String kind;
    /** Made at the first use, so that reading where the last run ended overlaps the sink's start. */
    private BatchSizeTuner tuner;
    /** Full batches in a row since tuning stopped on batches the source did not fill. */
    private int fullSinceSourceBound;
    /** Searches of tuners replaced by a fresh one. */
    private int earlierSearches;
    private final long fixedBytes;
    private final int streams;
    private long lastSize;
    /** Whether the next full batch is the first at a new size; its time overlapped batches of the size before, so it is not counted. */
    private boolean warmingUp = true;
    private int logged;
    /** Whether this run kept a size: one tuned to, or the best so far when the load ended. */
    private boolean kept;
    private double lastBytesPerSecond;

    /**
     * @param what       the batches, for logs and metrics ("snapshot COPY")
     * @param settings   how to tune; empty for a fixed size
     * @param fixedBytes the size without tuning (the tuner's default)
     */
    public TunedBatchSize(String what, Optional<TunerSettings> settings, long fixedBytes) {
        this(what, settings, fixedBytes, RememberedSizes.NONE, null);
    }

    /**
     * A tuned size that starts where the last run's tuning ended, if {@code remembered} knows, and
     * keeps each size it tunes to there.
     *
     * @param kind the batches' name in {@code remembered} and in metrics ({@code snapshot-copy})
     */
    public TunedBatchSize(String what, Optional<TunerSettings> settings, long fixedBytes, RememberedSizes remembered, String kind) {
        this(what, settings, fixedBytes, remembered, kind, 1);
    }

    /**
     * @param streams how many batches are written at once: with more than one, a climb opens
     *                with a round of sizes side by side (see {@link #sent})
     */
    public TunedBatchSize(String what, Optional<TunerSettings> settings, long fixedBytes, RememberedSizes remembered, String kind,
                          int streams) {
        this.streams = Math.max(1, streams);
        this.what = what;
        this.remembered = remembered;
        this.kind = kind;
        this.settings = settings.orElse(null);
        this.fixedBytes = fixedBytes;
        this.lastSize = -1;
    }

    /** The tuner, made at the first call: it starts where the last run's tuning ended, when that is remembered. */
    private BatchSizeTuner tuner() {
        if (tuner == null && settings != null) {
            OptionalLong last = kind == null ? OptionalLong.empty() : remembered.read(kind);
            if (last.isPresent()) {
                settings = settings.startingAt(last.getAsLong());
                LOG.info("Batch size tuning ({}): starting at {}, where the last run's tuning ended", what,
                        ByteCounts.format(settings.defaultBytes()));
            }
            // A remembered size is near the best already: measured carefully, without the coarse climb's far steps.
            tuner = new BatchSizeTuner(settings, last.isEmpty(), streams);
            lastSize = tuner.batchBytes();
        }
        return tuner;
    }

    /** The size to fill the next batch to. */
    public synchronized long bytes() {
        return settings == null ? fixedBytes : tuner().batchBytes();
    }

    /**
     * A batch is committed.
     *
     * @param plannedBytes the size it was filled towards ({@link #bytes()} when it was started)
     * @param bytes        the bytes the measurement covers
     * @param nanos        the time they took
     */
    public synchronized void record(long plannedBytes, long bytes, long nanos, Closing closing) {
        record(plannedBytes, bytes, bytes, nanos, closing, false);
    }

    /**
     * A full batch goes out now, filled towards {@code plannedBytes}: with several streams, the
     * climb's opening round fills the next batch to its next size.
     *
     * @param alongside whether it runs beside the other streams' batches (not queued behind
     *                  batches on the same connection): one that does not ends the opening round
     */
    public synchronized void sent(long plannedBytes, boolean alongside) {
        if (settings != null) {
            tuner().sent(plannedBytes, alongside);
        }
    }

    /**
     * A batch is committed, one of several written at once.
     *
     * @param plannedBytes the size it was filled towards ({@link #bytes()} when it was started)
     * @param ownBytes     its own bytes
     * @param bytes        the bytes the measurement covers (all streams', while it was on its way)
     * @param nanos        the time they took
     * @param besideOtherSizes whether a batch filled towards another size was on its way at the same
     *                     time: the bytes then are not this size's alone, so outside the opening
     *                     round the batch is no measurement
     */
    public synchronized void record(long plannedBytes, long ownBytes, long bytes, long nanos, Closing closing, boolean besideOtherSizes) {
        if (nanos > 0) {
            lastBytesPerSecond = bytes * 1e9 / nanos;
        }
        if (settings == null || closing == Closing.EARLY) {
            return;
        }
        BatchSizeTuner tuner = tuner();
        if (tuner.state() == BatchSizeTuner.State.SOURCE_BOUND && resumed(closing)) {
            return;
        }
        if (closing == Closing.FULL && tuner.roundBatch(plannedBytes, ownBytes, nanos)) {
            lastBytesPerSecond = tuner.lastBytesPerSecond();
            logSteps();
            return;
        }
        long size = tuner.batchBytes();
        if (size != lastSize) {
            lastSize = size;
            warmingUp = true;
        }
        if (closing == Closing.FULL && plannedBytes != size) {
            return; // filled towards a size the tuner has moved on from
        }
        if (closing == Closing.FULL && besideOtherSizes) {
            // After the tuner moves on, the old size's last batches run beside the new size's first
            // ones, and the all-streams meter reads both: counted, a size was judged partly by its
            // neighbour's bytes, and the careful search ended a step or more off the best size
            // (SeveralStreamsProperties). Such a batch also ends the new size's warm-up.
            warmingUp = false;
            return;
        }
        if (closing == Closing.FULL && warmingUp) {
            // Left out in the climb too: counting it made the climb's steps cheaper, but through a
            // 200 ms link from 1 MB the load ran 5% slower (bench/results/batch-tuning-20261128-111245).
            warmingUp = false;
            return;
        }
        tuner.record(bytes, nanos, closing == Closing.TIMEOUT);
        logSteps();
    }

    /**
     * A stream's load changes: batches that did not fill a while ago say nothing of a backlog
     * now. Once {@code minSamples} batches in a row fill, tuning starts over.
     */
    private boolean resumed(Closing closing) {
        fullSinceSourceBound = closing == Closing.FULL ? fullSinceSourceBound + 1 : 0;
        if (fullSinceSourceBound < settings.minSamples()) {
            return true;
        }
        fullSinceSourceBound = 0;
        LOG.info("Batch size tuning ({}): {} batches in a row filled; tuning again", what, settings.minSamples());
        earlierSearches += tuner.searches();
        tuner = new BatchSizeTuner(settings);
        logged = 0;
        lastSize = tuner.batchBytes();
        warmingUp = true;
        return true;
    }

    private void logSteps() {
        List<BatchSizeTuner.Step> path = tuner.path();
        for (; logged < path.size(); logged++) {
            BatchSizeTuner.Step step = path.get(logged);
            LOG.info("Batch size tuning ({}): {}", what, describe(step));
            if (step.state() == BatchSizeTuner.State.TUNED && step.samples() == 0 && kind != null) {
                remembered.write(kind, step.bytes(), step.meanBytesPerSecond());
                kept = true;
            }
        }
    }

    /** One step of the search in words. */
    static String describe(BatchSizeTuner.Step step) {
        String size = ByteCounts.format(step.bytes());
        String rate = ByteCounts.format((long) step.meanBytesPerSecond()) + "/s";
        String measured = size + " at " + rate + " over " + step.samples() + " batches";
        return switch (step.state()) {
            case CLIMBING -> "climbing: " + size + " at " + rate + " over 1 batch";
            case BASELINE -> "starting size " + measured;
            case SEARCHING -> measured + "; searching " + ByteCounts.format(step.lowBytes()) + " .. " + ByteCounts.format(step.highBytes());
            case TUNED -> step.samples() == 0 ? "tuned to " + size + " (" + rate + ")"
                    : "throughput fell to " + rate + " at " + size + "; measuring it again and searching anew";
            case UNSTABLE -> "measurements never settled (" + measured + "); keeping " + size;
            case SOURCE_BOUND -> "batches close before they fill: the source sets the pace; keeping " + size;
        };
    }

    /** Tuning state, or "FIXED" without tuning. */
    public synchronized String state() {
        return settings == null ? "FIXED" : tuner().state().name();
    }

    /** Throughput of the last batch reported, in bytes per second. */
    public synchronized double lastBytesPerSecond() {
        return lastBytesPerSecond;
    }

    /** The size the tuner's climb ended at; 0 before, or without a climb or tuning. */
    synchronized long climbEndedBytes() {
        return settings == null ? 0 : tuner().climbEndedBytes();
    }

    /** The search so far; empty without tuning. */
    public synchronized List<BatchSizeTuner.Step> path() {
        return settings == null ? List.of() : tuner().path();
    }

    /**
     * The load ends (a snapshot's last rows are in) while the search still runs: keeps the best
     * size measured so far, so the next run starts there instead of climbing again. A 250 MB
     * table through a long link ends before a careful search does. Does nothing once tuned (that
     * size is kept already), when tuning gave up, or without tuning.
     */
    public synchronized void keepBestSoFar() {
        if (settings == null || tuner == null || kind == null || kept) {
            return; // after a size tuned to (and kept), a search begun on a drop is no better guess for the next run
        }
        BatchSizeTuner.State state = tuner.state();
        if (state == BatchSizeTuner.State.UNSTABLE || state == BatchSizeTuner.State.SOURCE_BOUND) {
            return;
        }
        tuner.bestSoFar().ifPresent(best -> {
            kept = true;
            LOG.info("Batch size tuning ({}): the load ended before the search; keeping {}, the best measured ({}/s), for the next run",
                    what, ByteCounts.format(best.bytes()), ByteCounts.format((long) best.meanBytesPerSecond()));
            remembered.write(kind, best.bytes(), best.meanBytesPerSecond());
        });
    }

    /** A short status for a progress display: "batch 16.0 MB (searching), 38.2 MB/s". */
    public synchronized String status() {
        return String.format(Locale.ROOT, "%s batch %s (%s), %s/s", what, ByteCounts.format(bytes()), state().toLowerCase(Locale.ROOT).replace('_', ' '),
                ByteCounts.format((long) lastBytesPerSecond));
    }

    /**
     * Adds gauges for the size, the throughput and the state to {@code metrics}, tagged with
     * {@code batches} = {@code kind}.
     */
    /** Shows the size as metrics of the task ({@link #register(PluginMetrics, String)}) and of the process, per written batch. */
    public void register(SinkMetrics metrics, String kind) {
        register(metrics.plugin(), kind);
        meters = new BatchMeters(metrics.target(), kind);
    }

    /** A batch of {@code bytes} was written in {@code nanos}, however it was sealed: shown on the process's metrics. */
    public void written(long bytes, long nanos) {
        BatchMeters m = meters;
        if (m != null) {
            m.written(bytes, nanos, bytes());
        }
    }

    public void register(PluginMetrics metrics, String kind) {
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("batches", kind);
        add(metrics, "batch-size-bytes", "Size batches are filled to now (" + what + ")", tags, (Gauge<Long>) (c, now) -> bytes());
        add(metrics, "batch-throughput-bytes-per-second", "Throughput of the last batch (" + what + ")", tags,
                (Gauge<Double>) (c, now) -> lastBytesPerSecond());
        add(metrics, "batch-tuning-state", "CLIMBING, BASELINE, SEARCHING, TUNED, UNSTABLE, SOURCE_BOUND or FIXED (" + what + ")", tags,
                (Gauge<String>) (c, now) -> state());
        add(metrics, "batch-tuning-searches", "Searches started: the first, and one after each lasting drop (" + what + ")", tags,
                (Gauge<Integer>) (c, now) -> searches());
    }

    private synchronized int searches() {
        return settings == null ? 0 : earlierSearches + tuner().searches();
    }

    private static void add(PluginMetrics metrics, String name, String description, LinkedHashMap<String, String> tags, Gauge<?> gauge) {
        MetricName metricName = metrics.metricName(name, description, tags);
        metrics.addMetric(metricName, gauge);
    }
}
