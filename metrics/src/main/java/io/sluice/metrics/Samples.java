package io.sluice.metrics;

import java.util.ArrayList;
import java.util.List;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

/**
 * Sluice's series in a registry, one value each, named as the text format names them (counters
 * with {@code _total}, histograms as cumulative {@code _bucket}s with {@code le}, {@code _count}
 * and {@code _sum}): what the JMX beans and the status page read, so both see what a scrape sees.
 */
public final class Samples {

    /** One value of a series; {@code le} is a bucket's upper bound, null for anything but a bucket. */
    public record Sample(String series, Labels labels, String le, double value) {
    }

    private Samples() {
    }

    /** Every value of every {@code sluice_} family now. */
    public static List<Sample> of(PrometheusRegistry registry) {
        List<Sample> samples = new ArrayList<>();
        for (MetricSnapshot snapshot : registry.scrape(name -> name.startsWith("sluice_"))) {
            String family = snapshot.getMetadata().getPrometheusName();
            for (DataPointSnapshot point : snapshot.getDataPoints()) {
                if (point instanceof CounterSnapshot.CounterDataPointSnapshot c) {
                    samples.add(new Sample(family + "_total", point.getLabels(), null, c.getValue()));
                } else if (point instanceof GaugeSnapshot.GaugeDataPointSnapshot g) {
                    samples.add(new Sample(family, point.getLabels(), null, g.getValue()));
                } else if (point instanceof HistogramSnapshot.HistogramDataPointSnapshot h) {
                    ClassicHistogramBuckets buckets = h.getClassicBuckets();
                    long cumulative = 0;
                    for (int i = 0; i < buckets.size(); i++) {
                        cumulative += buckets.getCount(i);
                        samples.add(new Sample(family + "_bucket", point.getLabels(), le(buckets.getUpperBound(i)), cumulative));
                    }
                    samples.add(new Sample(family + "_count", point.getLabels(), null, h.getCount()));
                    samples.add(new Sample(family + "_sum", point.getLabels(), null, h.getSum()));
                }
            }
        }
        return samples;
    }

    private static String le(double bound) {
        return bound == Double.POSITIVE_INFINITY ? "+Inf" : Double.toString(bound);
    }
}
