package io.sluice.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.StatefulMetric;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The meters of this process: one registry that the source, the sink core and each sink record
 * into, and that the {@code sluice} command serves on {@code --metrics} (and a Connect worker
 * shows over JMX). Families are made once, in one class per module, through the factories here,
 * which also keep each family's description for docs/metrics.md. Every series carries the
 * pipeline (or target) it belongs to, so a task that stops removes its own with {@link #forget}.
 */
public final class SluiceMetrics {

    /** The registry every Sluice meter is in. */
    public static final PrometheusRegistry REGISTRY = new PrometheusRegistry();

    /** A family as docs/metrics.md lists it: the name as scraped, its type, what it measures and its labels. */
    public record Described(String name, String type, String help, List<String> labels) {
    }

    private static final Map<String, Described> DESCRIBED = new ConcurrentSkipListMap<>();
    private static final List<Labelled> FAMILIES = new ArrayList<>();

    private record Labelled(StatefulMetric<?, ?> metric, List<String> labels) {
    }

    private SluiceMetrics() {
    }

    /** A counter; {@code name} ends in {@code _total}, as scraped. */
    public static Counter counter(String name, String help, String... labels) {
        if (!name.endsWith("_total")) {
            throw new IllegalArgumentException("A counter's name ends in _total: " + name);
        }
        Counter counter = Counter.builder().name(name).help(help).labelNames(labels).register(REGISTRY);
        return described(counter, name, "counter", help, labels);
    }

    public static Gauge gauge(String name, String help, String... labels) {
        Gauge gauge = Gauge.builder().name(name).help(help).labelNames(labels).register(REGISTRY);
        return described(gauge, name, "gauge", help, labels);
    }

    /** A classic histogram with these upper bounds (in the unit its name ends with). */
    public static Histogram histogram(String name, String help, double[] upperBounds, String... labels) {
        Histogram histogram = Histogram.builder().name(name).help(help).classicOnly().classicUpperBounds(upperBounds)
                .labelNames(labels).register(REGISTRY);
        return described(histogram, name, "histogram", help, labels);
    }

    /**
     * A gauge whose values are read at each scrape from {@code callback}, which calls back once per
     * series with its value and label values. Its series come and go with what the callback knows.
     */
    public static GaugeWithCallback callbackGauge(String name, String help, Consumer<GaugeWithCallback.Callback> callback,
                                                  String... labels) {
        GaugeWithCallback gauge = GaugeWithCallback.builder().name(name).help(help).labelNames(labels).callback(callback)
                .register(REGISTRY);
        describe(name, "gauge", help, labels);
        return gauge;
    }

    private static void describe(String name, String type, String help, String... labels) {
        if (!name.startsWith("sluice_")) {
            throw new IllegalArgumentException("A Sluice metric's name starts with sluice_: " + name);
        }
        DESCRIBED.put(name, new Described(name, type, help, List.of(labels)));
    }

    private static <M extends StatefulMetric<?, ?>> M described(M metric, String name, String type, String help, String... labels) {
        describe(name, type, help, labels);
        synchronized (FAMILIES) {
            FAMILIES.add(new Labelled(metric, List.of(labels)));
        }
        return metric;
    }

    /** Every family made so far, by name. */
    public static Collection<Described> described() {
        return DESCRIBED.values();
    }

    /** Removes every series whose {@code label} is {@code value}: what a stopped task measured is no longer there. */
    public static void forget(String label, String value) {
        synchronized (FAMILIES) {
            for (Labelled family : FAMILIES) {
                int at = family.labels().indexOf(label);
                if (at >= 0) {
                    family.metric().removeIf(values -> value.equals(values.get(at)));
                }
            }
        }
    }

    /** Seconds from milliseconds, as Prometheus measures time. */
    public static double seconds(long millis) {
        return millis / 1000.0;
    }
}
