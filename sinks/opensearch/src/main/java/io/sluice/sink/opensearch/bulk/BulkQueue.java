package io.sluice.sink.opensearch.bulk;

import java.util.concurrent.TimeUnit;

import io.sluice.sink.core.batch.InFlightBatches;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.ledger.OffsetLedger;
import org.apache.kafka.connect.errors.DataException;

/**
 * The {@code _bulk} requests of a task: the open batch writes are gathered into, sent when full
 * or due, up to {@code inFlight} at once ({@link InFlightBatches}, which tells the tuner each
 * request's time and the ledger what became durable, oldest first), and settled in the order
 * sent: written counts, refusals as older, items OpenSearch refused for good to the dead letters.
 * Requests may finish in any order: the external versions order the documents.
 */
public final class BulkQueue implements AutoCloseable {

    private final OffsetLedger ledger;
    private final DeadLetters deadLetters;
    private final TunedBatchSize batchSize;
    private final int maxDocuments;
    private final long delayNanos;
    private final InFlightBatches<BulkBatch, BulkOutcome> inFlight;
    private BulkBatch open;
    private long written;
    private long olderThanStored;
    private long bytesSent;

    /**
     * @param inFlight     requests out at once, at most
     * @param maxDocuments documents in one request, at most
     * @param delayMillis  how long an open batch may wait for more before it goes
     */
    public BulkQueue(BulkSender sender, OffsetLedger ledger, DeadLetters deadLetters, TunedBatchSize batchSize, int inFlight,
                     int maxDocuments, long delayMillis) {
        this.ledger = ledger;
        this.deadLetters = deadLetters;
        this.batchSize = batchSize;
        this.maxDocuments = maxDocuments;
        this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
        this.inFlight = new InFlightBatches<>("OpenSearch at " + sender.address(), "sluice-opensearch-bulk", inFlight, inFlight, batchSize,
                ledger, sender::settle, this::settled);
    }

    /** The batch to add a write to, opened when none is. */
    public BulkBatch batch() {
        if (open == null) {
            open = new BulkBatch(batchSize.bytes());
        }
        return open;
    }

    /** A batch of its own (for writes that settle at once, like a truncate's deletes). */
    public BulkBatch separateBatch() {
        return new BulkBatch(batchSize.bytes());
    }

    /** Sends the open batch when it holds its planned bytes or the most documents. */
    public void sendIfFull() {
        if (open != null && (open.bytes() >= open.plannedBytes() || open.size() >= maxDocuments)) {
            send(TunedBatchSize.Closing.FULL);
        }
    }

    /** Sends the open batch when its time is up, settles what has finished; whether a batch is still open (to be woken for). */
    public boolean sendIfDue() {
        if (open != null && open.ageNanos() >= delayNanos) {
            send(TunedBatchSize.Closing.TIMEOUT);
        }
        inFlight.settleFinished();
        return open != null;
    }

    /** Sends the open batch (first settling the oldest when as many as allowed are out); what was taken is durable once it is written. */
    private void send(TunedBatchSize.Closing closing) {
        BulkBatch batch = open;
        open = null;
        if (batch == null || batch.isEmpty()) {
            return;
        }
        bytesSent += batch.bytes();
        inFlight.send(batch, batch.plannedBytes(), batch.bytes(), closing, ledger.takenSoFar());
    }

    /** Sends a batch of its own and waits until it and every request before it are settled. */
    public void sendAndSettle(BulkBatch batch) {
        bytesSent += batch.bytes();
        inFlight.send(batch, batch.plannedBytes(), batch.bytes(), TunedBatchSize.Closing.EARLY, null);
        inFlight.awaitAll();
    }

    /** Tells the ledger what is durable: with no batch open, every record taken, once the requests out are written. */
    public void confirmDurable() {
        inFlight.settleFinished();
        if (open == null) {
            inFlight.durableOnceWritten(ledger.takenSoFar());
        }
    }

    /** Sends the open batch and waits until every request is settled. */
    public void writeAll() {
        send(TunedBatchSize.Closing.EARLY);
        inFlight.awaitAll();
    }

    private void settled(BulkOutcome outcome) {
        written += outcome.written();
        olderThanStored += outcome.olderThanStored();
        for (BulkOutcome.Rejected r : outcome.rejected()) {
            deadLetters.reject(r.item().record(), r.item().table(), new DataException("OpenSearch refused " + r.item().describe()
                    + " in index " + r.item().index() + ": " + r.reason()));
        }
    }

    /** Documents written (indexed or deleted) so far. */
    public long written() {
        return written;
    }

    /** Writes OpenSearch refused as older than the version it stores (replays). */
    public long olderThanStored() {
        return olderThanStored;
    }

    /** Bytes of _bulk bodies sent so far. */
    public long bytesSent() {
        return bytesSent;
    }

    /** Stops once the requests being sent are done (interrupting their retries after ten seconds). */
    @Override
    public void close() {
        inFlight.close();
    }
}
