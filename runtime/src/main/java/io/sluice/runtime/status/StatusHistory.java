package io.sluice.runtime.status;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The last minutes of a pipeline, for the status page's charts: every {@link #EVERY_MILLIS} the
 * rows and changes moved per second, the end-to-end lag and the slot's lag, read from the meters.
 * Keeps {@link #KEPT} samples (ten minutes).
 */
public final class StatusHistory implements AutoCloseable {

    static final long EVERY_MILLIS = 2_000;
    static final int KEPT = 300;

    /** One sample. NaN where the value is not known (no lag yet, no slot). */
    public record Sample(long atMillis, double rowsPerSecond, double changesPerSecond, double endToEndLagSeconds, double slotLagBytes) {
    }

    private final PrometheusRegistry registry;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private ScheduledExecutorService timer;
    private long lastAt;
    private double lastRows = Double.NaN;
    private double lastChanges = Double.NaN;

    public StatusHistory(PrometheusRegistry registry) {
        this.registry = registry;
    }

    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-status-history");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(() -> {
            try {
                sample(System.currentTimeMillis());
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(StatusHistory.class).debug("A status sample failed", e);
            }
        }, 0, EVERY_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Takes a sample at {@code now}: rates since the last one. */
    synchronized void sample(long now) {
        RegistryReading reading = new RegistryReading(registry);
        double rows = reading.sum("sluice_snapshot_rows_total");
        double changes = reading.sum("sluice_sink_changes_applied_total");
        double seconds = (now - lastAt) / 1000.0;
        double rowRate = Double.isNaN(lastRows) || seconds <= 0 ? 0 : Math.max(0, rows - lastRows) / seconds;
        double changeRate = Double.isNaN(lastChanges) || seconds <= 0 ? 0 : Math.max(0, changes - lastChanges) / seconds;
        samples.addLast(new Sample(now, rowRate, changeRate, reading.max("sluice_end_to_end_lag_seconds"),
                reading.max("sluice_source_slot_lag_bytes")));
        while (samples.size() > KEPT) {
            samples.removeFirst();
        }
        lastAt = now;
        lastRows = rows;
        lastChanges = changes;
    }

    /** The samples kept, oldest first. */
    public synchronized List<Sample> samples() {
        return new ArrayList<>(samples);
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
