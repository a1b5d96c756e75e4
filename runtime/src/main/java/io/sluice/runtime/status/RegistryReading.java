package io.sluice.runtime.status;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Label;
import io.sluice.metrics.Samples;

/** One reading of Sluice's meters, as the status page needs them: each series of a family by its labels. */
final class RegistryReading {

    /** One series: its labels and value. */
    record Series(Map<String, String> labels, double value) {
    }

    private final Map<String, List<Series>> families = new LinkedHashMap<>();

    RegistryReading(PrometheusRegistry registry) {
        for (Samples.Sample sample : Samples.of(registry)) {
            if (sample.le() != null) {
                continue; // the page shows no distributions
            }
            Map<String, String> labels = new LinkedHashMap<>();
            for (Label label : sample.labels()) {
                labels.put(label.getName(), label.getValue());
            }
            families.computeIfAbsent(sample.series(), f -> new ArrayList<>()).add(new Series(labels, sample.value()));
        }
    }

    /** The series of a family (named as scraped: counters with {@code _total}); empty when it has none. */
    List<Series> series(String family) {
        return families.getOrDefault(family, List.of());
    }

    /** The sum of a family's series whose labels include these (pairs: name, value). */
    double sum(String family, String... labels) {
        double sum = 0;
        for (Series s : series(family)) {
            if (matches(s, labels)) {
                sum += s.value();
            }
        }
        return sum;
    }

    /** The largest value of a family's matching series, or NaN when none. */
    double max(String family, String... labels) {
        double max = Double.NaN;
        for (Series s : series(family)) {
            if (matches(s, labels) && (Double.isNaN(max) || s.value() > max)) {
                max = s.value();
            }
        }
        return max;
    }

    private static boolean matches(Series s, String... labels) {
        for (int i = 0; i + 1 < labels.length; i += 2) {
            if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                return false;
            }
        }
        return true;
    }
}
