package io.sluice.sink.webhook.subscription;

import java.time.Instant;

/**
 * A subscription as stored: what it asks for, where it is, and whether it delivers.
 *
 * @param declared  {@code config} (from the sink's configuration, made again at each start) or {@code api}
 * @param position  the outbox row up to which every change is delivered or failed for good
 * @param failingSince since when its deliveries fail without a success between; null when they do not
 * @param backfill  where its backfill is; null when it never asked for one
 * @param backfillNote what the backfill's state says more: the tables asked for, why it failed, what to do
 */
public record Subscription(SubscriptionSpec spec, String declared, Status status, String statusReason, long position,
                           Instant failingSince, Instant createdAt, Instant updatedAt, Backfill backfill, String backfillNote) {

    /** Where a backfill is: the current rows of the subscription's tables, re-synced for it alone. */
    public enum Backfill {
        /** Asked for, not yet handed to the source. */
        PENDING,
        /** The source has a re-sync request for each of its tables. */
        REQUESTED,
        /** Its first rows are in the outbox. */
        STARTED,
        /** The source could not be asked; the note says why. */
        FAILED,
        /** Made before anything reached the outbox: it gets the pipeline's snapshot like every subscription. */
        NOT_NEEDED;

        public String key() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public static Backfill of(String key) {
            return key == null ? null : valueOf(key.toUpperCase(java.util.Locale.ROOT));
        }
    }

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
