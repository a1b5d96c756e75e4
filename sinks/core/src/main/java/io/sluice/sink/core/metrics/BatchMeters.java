package io.sluice.sink.core.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;

/** One kind of batch of one target (the PostgreSQL sink's stream applies, say): how long each took, its bytes, the tuned size. */
public final class BatchMeters {

    private final DistributionDataPoint seconds;
    private final CounterDataPoint bytes;
    private final GaugeDataPoint size;

    public BatchMeters(String target, String kind) {
        seconds = SinkMeters.WRITE_SECONDS.labelValues(target, kind);
        bytes = SinkMeters.WRITTEN_BYTES.labelValues(target, kind);
        size = SinkMeters.BATCH_SIZE.labelValues(target, kind);
    }

    /** A batch of {@code batchBytes} was written in {@code nanos}; the tuner fills batches to {@code sizeNow} now. */
    public void written(long batchBytes, long nanos, long sizeNow) {
        seconds.observe(nanos / 1e9);
        bytes.inc(Math.max(0, batchBytes));
        size.set(sizeNow);
    }
}
