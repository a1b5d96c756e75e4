package io.sluice.sink.webhook.subscription;

import java.time.Instant;

/**
 * A subscription as stored: what it asks for, where it is, and whether it delivers.
 *
 * @param declared  {@code config} (from the sink's configuration, made again at each start) or {@code api}
 * @param position  the outbox row up to which every change is delivered or failed for good
 * @param failingSince since when its deliveries fail without a success between; null when they do not
 */
public record Subscription(SubscriptionSpec spec, String declared, Status status, String statusReason, long position,
                           Instant failingSince, Instant createdAt, Instant updatedAt) {

    /** Whether a subscription delivers. */
    public enum Status {
        ACTIVE, PAUSED, DISABLED;

        public String key() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public String name() {
        return spec.name();
    }
}
