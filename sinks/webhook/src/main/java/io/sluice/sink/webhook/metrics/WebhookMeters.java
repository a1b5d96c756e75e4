package io.sluice.sink.webhook.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.sluice.metrics.SluiceMetrics;

/** The webhook sink's metric families (docs/metrics.md), per target and subscription. */
public final class WebhookMeters {

    /** Upper bounds for request latencies, in seconds. */
    private static final double[] SECONDS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

    public static final Counter DELIVERIES = SluiceMetrics.counter("sluice_webhook_deliveries_total",
            "Changes sent to a subscription, by the outcome of the attempt: delivered, retrying, throttled (429, 502-504), "
                    + "failed (for good, kept in the delivery log) or gone (410: the subscription is disabled)",
            "target", "subscription", "outcome");
    public static final Histogram ATTEMPT_SECONDS = SluiceMetrics.histogram("sluice_webhook_attempt_seconds",
            "Time from sending a request to a subscription's receiver to its answer (or failure)", SECONDS, "target", "subscription");
    public static final Gauge BACKLOG = SluiceMetrics.gauge("sluice_webhook_backlog_rows",
            "Outbox rows past the subscription's place (of every table; a subscription to fewer tables gets fewer of them), "
                    + "on the process delivering it", "target", "subscription");
    public static final Gauge STATE = SluiceMetrics.gauge("sluice_webhook_subscription_state",
            "1 for the subscription's state now (active, paused, disabled), 0 for the others", "target", "subscription", "state");

    private WebhookMeters() {
    }
}
