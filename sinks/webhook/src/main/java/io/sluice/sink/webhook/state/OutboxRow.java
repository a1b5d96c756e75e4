package io.sluice.sink.webhook.state;

/**
 * A change read back from the outbox for a subscription.
 *
 * @param seq    its number in the outbox
 * @param replay whether it is delivered again on request (a replay), outside the subscription's place
 */
public record OutboxRow(long seq, String deliveryId, String relation, String operation, int keyHash, long lsn, long commitMillis,
                        String body, boolean replay) {

    /** Bytes it holds in memory, roughly. */
    public long size() {
        return 2L * (body.length() + deliveryId.length() + relation.length()) + 96;
    }
}
