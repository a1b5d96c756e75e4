package io.sluice.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import io.prometheus.jmx.JmxCollector;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import org.junit.jupiter.api.Test;

/**
 * The JMX beans, read back by the Prometheus JMX exporter with the configuration users are given
 * (docker/connect/sluice-jmx-exporter.yaml), give the series the {@code sluice} command serves:
 * same names, same labels (values with commas, equals signs and empty ones too), same values; and
 * a series gone is gone from JMX. Two differences the exporter imposes, which docs/connect.md
 * states: a histogram's buckets keep its own name (a series may not be named {@code _bucket}
 * there), and {@code " * ? \} in a label value read as {@code _}.
 */
class JmxBridgeTest {

    static final Path CONFIG = Path.of("..", "docker", "connect", "sluice-jmx-exporter.yaml");

    @Test
    void theExporterReadsTheBeansBackAsTheSameSeries() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        Counter counter = Counter.builder().name("sluice_jmxtest_changes_total").help("c").labelNames("target", "table", "op").register(registry);
        Gauge gauge = Gauge.builder().name("sluice_jmxtest_lag_bytes").help("g").labelNames("pipeline", "slot").register(registry);
        Gauge plain = Gauge.builder().name("sluice_jmxtest_plain").help("p").register(registry);
        Histogram histogram = Histogram.builder().name("sluice_jmxtest_write_seconds").help("h").classicOnly()
                .classicUpperBounds(0.1, 1, 10).labelNames("target", "batches").register(registry);
        counter.labelValues("t1", "public.orders", "insert").inc(41);
        counter.labelValues("t1", "odd,name=x", "update").inc(2);
        counter.labelValues("t\"q", "", "delete").inc();
        gauge.labelValues("p1", "sluice_p1").set(123_456_789_012L);
        plain.set(-1.5);
        histogram.labelValues("t1", "stream-apply").observe(0.05);
        histogram.labelValues("t1", "stream-apply").observe(5);
        histogram.labelValues("t1", "stream-apply").observe(50);

        JmxBridge bridge = new JmxBridge(ManagementFactory.getPlatformMBeanServer(), registry);
        bridge.update();
        PrometheusRegistry exported = new PrometheusRegistry();
        new JmxCollector(CONFIG.toFile()).register(exported);

        Map<String, Double> expected = onConnect(series(registry.scrape()));
        Map<String, Double> read = series(exported.scrape(name -> name.startsWith("sluice_jmxtest")));
        assertThat(read).isEqualTo(expected);
        assertThat(expected).containsKey("sluice_jmxtest_write_seconds{batches=stream-apply,le=+Inf,target=t1}")
                .containsKey("sluice_jmxtest_changes_total{op=delete,target=t_q}")
                .containsKey("sluice_jmxtest_changes_total{op=update,table=odd,name=x,target=t1}");

        counter.remove("t1", "public.orders", "insert");
        bridge.update();
        assertThat(series(exported.scrape(name -> name.startsWith("sluice_jmxtest")))).isEqualTo(onConnect(series(registry.scrape())));
        registry.clear();
        bridge.update();
        assertThat(series(exported.scrape(name -> name.startsWith("sluice_jmxtest")))).isEmpty();
    }

    /**
     * The series as the exporter shows them: a histogram's buckets under its own name (a name may not
     * end in _bucket there), and the characters JMX would escape in a label value as {@code _}.
     */
    static Map<String, Double> onConnect(Map<String, Double> series) {
        Map<String, Double> out = new TreeMap<>();
        series.forEach((key, value) -> out.put(key.replace("_bucket{", "{").replaceAll("[\"*?\\\\]", "_"), value));
        return out;
    }

    /** Every series as the text format writes it ({@code name{sorted labels}}), with its value. */
    static Map<String, Double> series(Iterable<MetricSnapshot> snapshots) {
        Map<String, Double> out = new TreeMap<>();
        for (MetricSnapshot s : snapshots) {
            String family = s.getMetadata().getPrometheusName();
            for (DataPointSnapshot p : s.getDataPoints()) {
                if (s instanceof CounterSnapshot) {
                    out.put(key(family + "_total", p, null), ((CounterSnapshot.CounterDataPointSnapshot) p).getValue());
                } else if (s instanceof GaugeSnapshot) {
                    out.put(key(family, p, null), ((GaugeSnapshot.GaugeDataPointSnapshot) p).getValue());
                } else if (s instanceof UnknownSnapshot) {
                    out.put(key(family, p, null), ((UnknownSnapshot.UnknownDataPointSnapshot) p).getValue());
                } else if (s instanceof HistogramSnapshot) {
                    HistogramSnapshot.HistogramDataPointSnapshot h = (HistogramSnapshot.HistogramDataPointSnapshot) p;
                    long cumulative = 0;
                    for (int i = 0; i < h.getClassicBuckets().size(); i++) {
                        cumulative += h.getClassicBuckets().getCount(i);
                        double bound = h.getClassicBuckets().getUpperBound(i);
                        out.put(key(family + "_bucket", p, bound == Double.POSITIVE_INFINITY ? "+Inf" : Double.toString(bound)),
                                (double) cumulative);
                    }
                    out.put(key(family + "_count", p, null), (double) h.getCount());
                    out.put(key(family + "_sum", p, null), h.getSum());
                }
            }
        }
        return out;
    }

    private static String key(String name, DataPointSnapshot point, String le) {
        Map<String, String> labels = new TreeMap<>();
        for (Label l : point.getLabels()) {
            if (!l.getValue().isEmpty()) { // to Prometheus a label with an empty value is no label
                labels.put(l.getName(), l.getValue());
            }
        }
        if (le != null) {
            labels.put("le", le);
        }
        return name + labels.toString().replace(" ", "");
    }
}
