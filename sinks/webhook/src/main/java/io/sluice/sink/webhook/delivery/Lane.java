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
    long firstAttemptMillis;
    long dueMillis;
    boolean busy;

    boolean hasWork() {
        return sending != null || !queue.isEmpty();
    }

    /** Takes the next request's rows from the queue: up to {@code max}, one when the first is a replay. */
    List<OutboxRow> next(int max) {
        if (sending == null) {
            java.util.ArrayList<OutboxRow> rows = new java.util.ArrayList<>(Math.min(max, queue.size()));
            rows.add(queue.poll());
            // Replays go alone: they come from the past, and a batch of them with new changes would mix two orders.
            while (rows.size() < max && !queue.isEmpty() && !rows.get(0).replay() && !queue.peek().replay()) {
                rows.add(queue.poll());
            }
            sending = rows;
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
