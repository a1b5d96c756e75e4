package io.sluice.sink.webhook.metrics;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.sluice.sink.webhook.state.DeliveryLog.Outcome;
import io.sluice.sink.webhook.subscription.Subscription;

/** One subscription's data points: attempts by outcome, their latency, its backlog. */
public final class SubscriptionMeters {

    private final Map<Outcome, CounterDataPoint> outcomes = new EnumMap<>(Outcome.class);
    private final DistributionDataPoint latency;
    private final GaugeDataPoint backlog;

    public SubscriptionMeters(String target, String subscription) {
        for (Outcome outcome : Outcome.values()) {
            outcomes.put(outcome, WebhookMeters.DELIVERIES.labelValues(target, subscription, outcome.name().toLowerCase(Locale.ROOT)));
        }
        latency = WebhookMeters.ATTEMPT_SECONDS.labelValues(target, subscription);
        backlog = WebhookMeters.BACKLOG.labelValues(target, subscription);
    }

    /** An attempt that carried {@code changes} ended so, after {@code latencyMillis}. */
    public void attempted(Outcome outcome, int changes, long latencyMillis) {
        outcomes.get(outcome).inc(changes);
        latency.observe(latencyMillis / 1000.0);
    }

    /** Outbox rows past the subscription's place. */
    public void backlog(long rows) {
        backlog.set(Math.max(0, rows));
    }

    /** Shows a subscription's state: 1 for it, 0 for the others. */
    public static void state(String target, String subscription, Subscription.Status status) {
        for (Subscription.Status s : Subscription.Status.values()) {
            WebhookMeters.STATE.labelValues(target, subscription, s.key()).set(s == status ? 1 : 0);
        }
    }

    /** Removes the series of a subscription that is gone. */
    public static void forget(String target, String subscription) {
        for (var family : java.util.List.of(WebhookMeters.DELIVERIES, WebhookMeters.ATTEMPT_SECONDS, WebhookMeters.BACKLOG,
                WebhookMeters.STATE)) {
            family.removeIf(values -> values.get(0).equals(target) && values.get(1).equals(subscription));
        }
    }
}
