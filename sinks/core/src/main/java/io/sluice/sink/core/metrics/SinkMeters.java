package io.sluice.sink.core.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.sluice.metrics.SluiceMetrics;

/**
 * The metric families every sink has, recorded by the sink core where it sees every record and
 * batch (docs/metrics.md). Every series is labelled with the target: the sink connector's name,
 * in {@code sluice run} the pipeline's.
 */
public final class SinkMeters {

    /** Upper bounds for durations, in seconds: a millisecond to ten minutes. */
    static final double[] SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};

    public static final Counter CHANGES_APPLIED = SluiceMetrics.counter("sluice_sink_changes_applied_total",
            "Streamed changes durable on the target, per table and operation (insert, update, delete, truncate, read: a row of a "
                    + "table copied into the stream)", "target", "table", "op");
    public static final Histogram COMMIT_TO_APPLIED = SluiceMetrics.histogram("sluice_sink_commit_to_applied_seconds",
            "From a change's commit on the source to its being durable on the target; observed once per run of changes of one "
                    + "table and operation made durable together, with the run's newest change", SECONDS, "target");
    public static final Gauge NEWEST_APPLIED_COMMIT = SluiceMetrics.gauge("sluice_sink_newest_applied_commit_timestamp_seconds",
            "Source commit time (Unix time) of the newest change durable on the target", "target");
    public static final Histogram WRITE_SECONDS = SluiceMetrics.histogram("sluice_sink_write_seconds",
            "Time to write one batch to the target (a target transaction, a bulk request, an outbox insert), by kind of batch",
            SECONDS, "target", "batches");
    public static final Counter WRITTEN_BYTES = SluiceMetrics.counter("sluice_sink_written_bytes_total",
            "Bytes of batches written to the target, by kind of batch", "target", "batches");
    public static final Gauge BATCH_SIZE = SluiceMetrics.gauge("sluice_sink_batch_size_bytes",
            "The size the batch size tuner fills batches to now, by kind of batch", "target", "batches");
    public static final Counter DEAD_LETTERS = SluiceMetrics.counter("sluice_sink_dead_letters_total",
            "Records the target refused and sent to the dead-letter queue, per table", "target", "table");

    private SinkMeters() {
    }
}
