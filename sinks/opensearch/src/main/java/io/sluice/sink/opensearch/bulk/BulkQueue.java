package io.sluice.sink.opensearch.bulk;

import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.ledger.OffsetLedger;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;

/**
 * The {@code _bulk} requests of a task: the open batch writes are gathered into, sent when full
 * or due, up to {@code inFlight} at once, and settled oldest first — written counts, refusals as
 * older, items OpenSearch refused for good to the dead letters, each request's time to the batch
 * tuner. What is durable is told to the ledger by epochs: the oldest epoch with a request still
 * out or a batch still open bounds what may be confirmed.
 */
public final class BulkQueue {

    private final BulkSender sender;
    private final OffsetLedger ledger;
    private final DeadLetters deadLetters;
    private final TunedBatchSize batchSize;
    private final int maxInFlight;
    private final int maxDocuments;
    private final long delayNanos;
    /** Requests sent and not settled, oldest first. */
    private final ArrayDeque<Future<BulkOutcome>> inFlight = new ArrayDeque<>();
    /** The ledger epoch of each request in flight, in the same order. */
    private final ArrayDeque<Long> inFlightEpochs = new ArrayDeque<>();
    private BulkBatch open;
    private long written;
    private long olderThanStored;
    private long bytesSent;

    /**
     * @param maxDocuments documents in one request, at most
     * @param delayMillis  how long an open batch may wait for more before it goes
     */
    public BulkQueue(BulkSender sender, OffsetLedger ledger, DeadLetters deadLetters, TunedBatchSize batchSize, int inFlight,
                     int maxDocuments, long delayMillis) {
        this.sender = sender;
        this.ledger = ledger;
        this.deadLetters = deadLetters;
        this.batchSize = batchSize;
        this.maxInFlight = inFlight;
        this.maxDocuments = maxDocuments;
        this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
    }

    /** The batch to add a write to, opened at the ledger's epoch when none is. */
    public BulkBatch batch() {
        if (open == null) {
            open = new BulkBatch(ledger.epoch(), batchSize.bytes());
        }
        return open;
    }

    /** A batch of its own (for writes that settle at once, like a truncate's deletes), at the ledger's epoch. */
    public BulkBatch separateBatch() {
        return new BulkBatch(ledger.epoch(), batchSize.bytes());
    }

    /** Sends the open batch when it holds its planned bytes or the most documents. */
    public void sendIfFull() throws InterruptedException {
        if (open != null && (open.bytes() >= open.plannedBytes() || open.size() >= maxDocuments)) {
            open.closing(TunedBatchSize.Closing.FULL);
            send();
        }
    }

    /** Sends the open batch when its time is up, settles what has finished; whether a batch is still open (to be woken for). */
    public boolean sendIfDue() throws InterruptedException {
        if (open != null && open.ageNanos() >= delayNanos) {
            open.closing(TunedBatchSize.Closing.TIMEOUT);
            send();
        }
        settleFinished();
        return open != null;
    }

    /** Sends the open batch, first waiting for the oldest in flight when as many as allowed are out. */
    private void send() throws InterruptedException {
        if (open == null || open.isEmpty()) {
            open = null;
            return;
        }
        while (inFlight.size() >= maxInFlight) {
            settle(inFlight.peekFirst());
        }
        inFlightEpochs.addLast(open.epoch());
        inFlight.addLast(sender.send(open));
        bytesSent += open.bytes();
        open = null;
    }

    /** Sends a batch of its own and waits until it is settled. */
    public void sendAndSettle(BulkBatch batch) throws InterruptedException {
        bytesSent += batch.bytes();
        settle(sender.send(batch));
    }

    /** Tells the ledger what is durable: every epoch before the oldest with a request out or a batch open. */
    public void confirmDurable() {
        long oldest = ledger.endEpoch();
        if (!inFlightEpochs.isEmpty()) {
            oldest = Math.min(oldest, inFlightEpochs.peekFirst());
        }
        if (open != null) {
            oldest = Math.min(oldest, open.epoch());
        }
        ledger.confirmBefore(oldest);
    }

    /** Sends the open batch and waits until every request is settled. */
    public void writeAll() throws InterruptedException {
        if (open != null) {
            open.closing(TunedBatchSize.Closing.EARLY);
        }
        send();
        while (!inFlight.isEmpty()) {
            settle(inFlight.peekFirst());
        }
    }

    /** Settles the requests at the head of the queue that are done (in order, so the epochs confirmed stay a prefix). */
    private void settleFinished() throws InterruptedException {
        while (!inFlight.isEmpty() && inFlight.peekFirst().isDone()) {
            settle(inFlight.peekFirst());
        }
    }

    private void settle(Future<BulkOutcome> future) throws InterruptedException {
        BulkOutcome outcome;
        try {
            outcome = future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof ConnectException c ? c : new ConnectException("Writing to OpenSearch failed: " + cause, cause);
        }
        if (inFlight.peekFirst() == future) {
            inFlight.removeFirst();
            inFlightEpochs.removeFirst();
        }
        written += outcome.written();
        olderThanStored += outcome.olderThanStored();
        for (BulkOutcome.Rejected r : outcome.rejected()) {
            deadLetters.reject(r.item().record(), r.item().table(), new DataException("OpenSearch refused " + r.item().describe()
                    + " in index " + r.item().index() + ": " + r.reason()));
        }
        BulkBatch batch = outcome.batch();
        batchSize.record(batch.plannedBytes(), batch.bytes(), outcome.nanos(), batch.closing());
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
}
