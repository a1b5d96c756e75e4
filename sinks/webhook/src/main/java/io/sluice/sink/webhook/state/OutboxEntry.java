package io.sluice.sink.webhook.state;

import java.util.List;

/**
 * A change as the outbox keeps it, written once for every subscription.
 *
 * @param deliveryId the {@code webhook-id} its deliveries carry
 * @param source     the source's name (its topic prefix)
 * @param relation   the source table, {@code schema.table}
 * @param operation  {@code insert}, {@code update}, {@code delete}, {@code truncate} or {@code read} (a snapshot row)
 * @param keyHash    a hash of the table and the row's key: deliveries of one key keep their order
 * @param changed    the columns an update changed; null when the event cannot tell (no full before image)
 * @param lsn        the commit LSN of its transaction; 0 for snapshot rows
 * @param commitMillis when its transaction committed (snapshot rows: when the snapshot was taken)
 * @param body       the change as JSON (as {@code payload.ChangePayload} writes it)
 * @param onlyFor    the one subscription it is for (a row of that subscription's backfill); null for every subscription
 */
public record OutboxEntry(String deliveryId, String source, String relation, String operation, int keyHash, List<String> changed, long lsn,
                          long commitMillis, byte[] body, String onlyFor) {

    /** An entry for every subscription. */
    public OutboxEntry(String deliveryId, String source, String relation, String operation, int keyHash, List<String> changed, long lsn,
                       long commitMillis, byte[] body) {
        this(deliveryId, source, relation, operation, keyHash, changed, lsn, commitMillis, body, null);
    }
}
