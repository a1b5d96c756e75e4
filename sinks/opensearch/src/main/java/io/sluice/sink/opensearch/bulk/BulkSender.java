package io.sluice.sink.opensearch.bulk;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.retry.RetryPolicy;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.metrics.OpenSearchMeters;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one {@code _bulk} request (the {@link BulkQueue} sends several at once) and settles every
 * item: written; older than the stored version (a replay: done); refused for now (429, 5xx, per
 * item or for the whole request, or the cluster unreachable) and sent again, only those, with
 * jittered exponential backoff until the retry timeout; or refused for good (a mapping or
 * parsing error), handed back to be dead-lettered.
 */
public final class BulkSender {

    private static final Logger LOG = LoggerFactory.getLogger(BulkSender.class);

    /** Some writes were refused for now: the attempt is made again with them. */
    static final class RefusedForNow extends Exception {
        RefusedForNow(String message) {
            super(message, null, false, false);
        }
    }

    private final ClusterClient client;
    private final long retryTimeoutMillis;
    private final OpenSearchMeters meters;

    /** @param meters where what becomes of the items is counted */
    public BulkSender(ClusterClient client, long retryTimeoutMillis, OpenSearchMeters meters) {
        this.meters = meters;
        this.client = client;
        this.retryTimeoutMillis = retryTimeoutMillis;
    }

    /** The cluster, for messages. */
    public String address() {
        return client.address().display();
    }

    /** Sends the batch and returns once every item is settled; throws when retrying gave up. */
    public BulkOutcome settle(BulkBatch batch) throws InterruptedException {
        List<BulkItem> pending = new ArrayList<>(batch.items());
        int[] written = {0};
        int[] older = {0};
        List<BulkOutcome.Rejected> rejected = new ArrayList<>();
        RetryPolicy.reconnecting(retryTimeoutMillis).run(() -> {
            int[] length = new int[1];
            byte[] body = batch.bodyOf(pending, length);
            ClusterClient.Answer answer = client.bulk(body, length[0]);
            if (answer.status() == 429 || answer.status() >= 500) {
                meters.refusedForNow(pending.size());
                throw new RefusedForNow("OpenSearch answered " + answer.status() + " to a _bulk request of " + pending.size() + " writes: "
                        + answer.brief());
            }
            if (!answer.ok()) {
                throw new ConnectException("OpenSearch refused a _bulk request of " + pending.size() + " writes (" + answer.status() + "): "
                        + answer.brief());
            }
            List<BulkResponses.Item> items = BulkResponses.failures(answer.body(), pending.size());
            if (items.isEmpty()) {
                written[0] += pending.size();
                pending.clear();
                return null;
            }
            List<BulkItem> again = new ArrayList<>();
            String lastReason = null;
            for (int i = 0; i < items.size(); i++) {
                BulkResponses.Item result = items.get(i);
                BulkItem item = pending.get(i);
                if (result.written()) {
                    written[0]++;
                } else if (result.olderThanStored()) {
                    older[0]++;
                } else if (result.transientFailure()) {
                    again.add(item);
                    lastReason = result.status() + " " + result.reason();
                } else {
                    rejected.add(new BulkOutcome.Rejected(item, result.reason() == null ? "status " + result.status() : result.reason()));
                }
            }
            pending.clear();
            pending.addAll(again);
            meters.refusedForNow(again.size());
            if (!pending.isEmpty()) {
                throw new RefusedForNow(pending.size() + " of the writes were refused for now (last: " + lastReason + ")");
            }
            return null;
        }, new RetryPolicy.Failures() {
            @Override
            public boolean isTransient(Exception failure) {
                return failure instanceof RefusedForNow || failure instanceof IOException;
            }

            @Override
            public void retrying(Exception failure, long pauseMillis) {
                meters.retried();
                LOG.warn("Writing to OpenSearch at {}: {}; sending {} write(s) again in {} ms", client.address().display(),
                        failure.getMessage(), pending.size(), pauseMillis);
            }

            @Override
            public RuntimeException giveUp(Exception failure, boolean timedOut) {
                if (failure instanceof RuntimeException runtime && !timedOut) {
                    return runtime;
                }
                return new ConnectException("OpenSearch at " + client.address().display() + " did not take " + pending.size()
                        + " write(s)" + (timedOut ? " within retry.timeout.ms (" + retryTimeoutMillis + " ms)" : "") + ": "
                        + failure.getMessage() + ". Nothing past them was confirmed to the source; when the cluster takes writes "
                        + "again, restart the task and they are sent again", failure);
            }
        });
        meters.settled(written[0], older[0], rejected.size());
        return new BulkOutcome(written[0], older[0], rejected);
    }
}
