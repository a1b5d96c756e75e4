package io.sluice.sink.core.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Where a sink task's metrics go. On a Connect worker, the task's plugin metrics (KIP-877):
 * the worker reports them with its own, over JMX as {@code kafka.connect:type=plugins,...}
 * tagged with the connector and task. Outside a worker (the {@code sluice} runtime), a registry
 * of its own reported over JMX under the {@code sluice} domain, tagged {@code task=sink-N}.
 */
public final class SinkMetrics implements AutoCloseable {

    /** The JMX domain of metrics outside a Connect worker. */
    public static final String JMX_DOMAIN = "sluice";
    private static final AtomicInteger TASKS = new AtomicInteger();

    private final PluginMetrics plugin;
    private final Metrics owned;
    private final String target;

    private SinkMetrics(PluginMetrics plugin, Metrics owned, String target) {
        this.plugin = plugin;
        this.owned = owned;
        this.target = target;
    }

    /** The worker's plugin metrics for the task, or a registry of its own when there is no worker (null context). */
    public static SinkMetrics of(SinkTaskContext context) {
        return of(context, "sink");
    }

    /**
     * As {@link #of(SinkTaskContext)}, for a target of this name: the {@code target} label of its
     * series in {@link io.sluice.metrics.SluiceMetrics}.
     */
    public static SinkMetrics of(SinkTaskContext context, String target) {
        if (context != null) {
            try {
                PluginMetrics metrics = context.pluginMetrics();
                if (metrics != null) {
                    return new SinkMetrics(metrics, null, target);
                }
            } catch (NoSuchMethodError | AbstractMethodError | UnsupportedOperationException e) {
                // A worker older than Kafka 4.1: fall through to a registry of our own.
            }
        }
        Metrics metrics = new Metrics(new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM, new KafkaMetricsContext(JMX_DOMAIN));
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("task", "sink-" + TASKS.incrementAndGet());
        return new SinkMetrics(new PluginMetricsImpl(metrics, tags), metrics, target);
    }

    public PluginMetrics plugin() {
        return plugin;
    }

    /** The target's name, which its series are labelled with. */
    public String target() {
        return target;
    }

    /** Closes the task's registry, and removes the target's series. */
    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
        io.sluice.metrics.SluiceMetrics.forget("target", target);
    }
}
