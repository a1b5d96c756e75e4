package io.sluice.plugin.docs;

import java.util.Map;
import java.util.TreeMap;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;

/** What a Prometheus JMX exporter scrape holds of Sluice (and of Connect's failed tasks): each series as {@code name{label=value,...}} (labels sorted), with its value. */
final class JmxSeries {

    private JmxSeries() {
    }

    static Map<String, Double> of(PrometheusRegistry exporter) {
        Map<String, Double> out = new TreeMap<>();
        for (MetricSnapshot s : exporter.scrape(name -> name.startsWith("sluice_") || name.startsWith("kafka_connect_connector_failed_task"))) {
            String family = s.getMetadata().getPrometheusName();
            for (DataPointSnapshot p : s.getDataPoints()) {
                Map<String, String> labels = new TreeMap<>();
                for (Label l : p.getLabels()) {
                    labels.put(l.getName(), l.getValue());
                }
                String key = labels.toString().replace(" ", "");
                if (s instanceof CounterSnapshot) {
                    out.put(family + "_total" + key, ((CounterSnapshot.CounterDataPointSnapshot) p).getValue());
                } else if (s instanceof GaugeSnapshot) {
                    out.put(family + key, ((GaugeSnapshot.GaugeDataPointSnapshot) p).getValue());
                } else if (s instanceof UnknownSnapshot) {
                    out.put(family + key, ((UnknownSnapshot.UnknownDataPointSnapshot) p).getValue());
                }
            }
        }
        return out;
    }
}
