package io.sluice.metrics;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.Labels;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shows Sluice's meters as JMX beans, for a Kafka Connect worker, which serves no HTTP of ours:
 * one bean per series under {@value #DOMAIN}, named {@code sluice:name=<series>,<label>=<value>...}
 * (labels in the family's order), with one attribute, {@code Value}. A series is named as the
 * Prometheus text format names it: a counter's with {@code _total}, a histogram as its
 * {@code _bucket} (with {@code le}), {@code _count} and {@code _sum} series. The Prometheus JMX
 * exporter with docs/connect.md's configuration turns them back into the same names and labels
 * the {@code sluice} command serves. Brought up to date every few seconds: beans of series that
 * appeared are registered, of those gone unregistered.
 */
public final class JmxBridge {

    /** The JMX domain of Sluice's beans. */
    public static final String DOMAIN = "sluice";
    /** How often the beans are brought up to date. */
    public static final long PERIOD_MILLIS = 2_000;

    private static final Logger LOG = LoggerFactory.getLogger(JmxBridge.class);
    private static JmxBridge running;

    /** A series' bean: its value as of the last update. */
    public interface SeriesMBean {
        double getValue();
    }

    static final class Series implements SeriesMBean {
        private volatile double value;

        @Override
        public double getValue() {
            return value;
        }
    }

    private final MBeanServer server;
    private final PrometheusRegistry registry;
    private final Map<ObjectName, Series> registered = new HashMap<>();

    JmxBridge(MBeanServer server, PrometheusRegistry registry) {
        this.server = server;
        this.registry = registry;
    }

    /** Starts showing {@link SluiceMetrics#REGISTRY} on the platform MBean server, once per process. */
    public static synchronized void ensureStarted() {
        if (running != null) {
            return;
        }
        running = new JmxBridge(ManagementFactory.getPlatformMBeanServer(), SluiceMetrics.REGISTRY);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-metrics-jmx");
            t.setDaemon(true);
            return t;
        });
        JmxBridge bridge = running;
        timer.scheduleWithFixedDelay(() -> {
            try {
                bridge.update();
            } catch (RuntimeException e) {
                LOG.debug("Bringing the JMX beans of Sluice's metrics up to date failed; tried again", e);
            }
        }, 0, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Registers, updates and unregisters beans to match the registry now. */
    synchronized void update() {
        Map<ObjectName, Double> now = new LinkedHashMap<>();
        for (Samples.Sample sample : Samples.of(registry)) {
            now.put(name(sample.series(), sample.labels(), sample.le()), sample.value());
        }
        Set<ObjectName> gone = new HashSet<>(registered.keySet());
        gone.removeAll(now.keySet());
        for (ObjectName name : gone) {
            registered.remove(name);
            try {
                server.unregisterMBean(name);
            } catch (JMException e) {
                LOG.debug("Unregistering {}", name, e);
            }
        }
        now.forEach((name, value) -> {
            Series series = registered.get(name);
            if (series == null) {
                series = new Series();
                try {
                    server.registerMBean(series, name);
                } catch (JMException e) {
                    LOG.debug("Registering {}", name, e);
                    return;
                }
                registered.put(name, series);
            }
            series.value = value;
        });
    }

    private static ObjectName name(String series, Labels labels, String le) {
        StringBuilder s = new StringBuilder(DOMAIN).append(":name=").append(series);
        for (Label label : labels) {
            s.append(',').append(label.getName()).append('=').append(value(label.getValue()));
        }
        if (le != null) {
            s.append(",le=").append(value(le));
        }
        try {
            return new ObjectName(s.toString());
        } catch (JMException e) {
            throw new IllegalArgumentException("Not a JMX name: " + s, e);
        }
    }

    /**
     * A label value as a bean name's value: as it is, or quoted when it holds {@code , = :} or is
     * empty. The characters a quoted value would have to escape ({@code " * ? \} and line ends) are
     * replaced by {@code _}: the exporter's rules take a quoted value as it stands, escapes and all.
     */
    static String value(String raw) {
        String plain = raw.replaceAll("[\"*?\\\\\n\r]", "_");
        return plain.isEmpty() || plain.chars().anyMatch(c -> ",=:".indexOf(c) >= 0) ? "\"" + plain + "\"" : plain;
    }
}
