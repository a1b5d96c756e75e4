package io.sluice.sink.webhook.delivery;

import java.util.ArrayDeque;
import java.util.List;

import io.sluice.sink.webhook.state.OutboxRow;

/**
 * One of a subscription's queues: the changes of the keys that hash to it, sent one request at
 * a time in their order, so that a key's changes arrive in order however many lanes send at
 * once. A request that fails is tried again before anything behind it.
 */
final class Lane {

    final ArrayDeque<OutboxRow> queue = new ArrayDeque<>();
    /** The rows of the request being sent or waiting to be tried again; null when none. */
    List<OutboxRow> sending;
    int attempts;
    /** The body bytes of the rows being sent, and the batch size they were taken towards. */
    long sendingBytes;
    long plannedBytes;
    long firstAttemptMillis;
    long dueMillis;
    boolean busy;

    boolean hasWork() {
        return sending != null || !queue.isEmpty();
    }

    /**
     * Takes the next request's rows from the queue: those waiting now, up to {@code max} rows
     * and about {@code maxBytes} (never waiting for more: a batch adds no latency); one when the
     * first is a replay.
     */
    List<OutboxRow> next(int max, long maxBytes) {
        if (sending == null) {
            java.util.ArrayList<OutboxRow> rows = new java.util.ArrayList<>(Math.min(max, queue.size()));
            OutboxRow first = queue.poll();
            rows.add(first);
            long bytes = first.body().length();
            // Replays go alone: they come from the past, and a batch of them with new changes would mix two orders.
            while (rows.size() < max && bytes < maxBytes && !queue.isEmpty() && !first.replay() && !queue.peek().replay()) {
                OutboxRow next = queue.poll();
                rows.add(next);
                bytes += next.body().length();
            }
            sending = rows;
            sendingBytes = bytes;
            plannedBytes = maxBytes;
            attempts = 0;
            dueMillis = 0;
        }
        return sending;
    }

    void settled() {
        sending = null;
        attempts = 0;
        dueMillis = 0;
    }
}
