package io.sluice.sink.postgres.apply;

import io.sluice.sink.core.batch.TunedBatchSize.Closing;

/**
 * When the streamed changes gathered become a target transaction: at a source transaction's
 * boundary once the tuned batch size is reached, inside a huge source transaction only at twice
 * the size; or once the oldest has waited the apply delay and the transaction before is written
 * (group commit: while it is being written, changes keep gathering); or at once when the source
 * has handed out all it had. Pure: it answers from what it is told.
 *
 * @param maxDelayMillis how long a change may wait for more to share its transaction
 */
public record SealPolicy(long maxDelayMillis) {

    /**
     * Before a change is taken: whether what is pending goes first, as a full batch.
     *
     * @param sameTransaction whether the change belongs to the source transaction of the change before it
     * @return {@link Closing#FULL}, or null to keep gathering
     */
    public Closing beforeChange(long pendingBytes, long batchBytes, boolean sameTransaction) {
        boolean full = pendingBytes >= 2 * batchBytes || (pendingBytes >= batchBytes && !sameTransaction);
        return full ? Closing.FULL : null;
    }

    /**
     * On a tick (after a put, at an offset commit): whether what is pending goes because its time is up.
     *
     * @param waitedMillis how long the oldest pending change has waited (0 when none is pending)
     * @param writing      whether the transaction before is still being written
     * @return {@link Closing#TIMEOUT}, or null to keep gathering
     */
    public Closing onTick(boolean pending, long waitedMillis, boolean writing) {
        return pending && waitedMillis >= maxDelayMillis && !writing ? Closing.TIMEOUT : null;
    }

    /**
     * When the source has handed out all it had: what is pending goes now, unless the transaction
     * before is still being written (then it keeps gathering until asked again).
     *
     * @return {@link Closing#EARLY}, or null to keep gathering
     */
    public Closing onSourceDrained(boolean pending, boolean writing) {
        return pending && writing ? null : Closing.EARLY;
    }

    /**
     * How long until a task with pending changes should be called again: when the oldest is due,
     * or, when it is due already but the transaction before is still being written, soon.
     */
    public long wakeInMillis(long waitedMillis) {
        long due = maxDelayMillis - waitedMillis;
        return due > 0 ? due : Math.max(1, Math.min(maxDelayMillis, 10));
    }
}
