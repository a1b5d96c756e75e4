package io.sluice.runtime.pipeline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Which record of each source partition every target has made durable: targets mark records
 * one partition at a time, each newer than the last it marked there, and a record counts once
 * the last target to get that far marks it (or a newer one). Only the last record of each
 * partition in a batch is kept until then, as the targets mark only those.
 *
 * @param <R> a record, known by identity
 */
final class Agreement<R> {

    private final int targets;
    /** Per target, whether it has a say: a detached target is fed nothing, and the others agree without it. */
    private final boolean[] voting;
    private final Function<R, Object> partitionOf;
    /** Per partition, the records kept and not yet agreed on, oldest first, with their place. */
    private final Map<Object, ArrayDeque<Placed<R>>> pending = new HashMap<>();
    private final Map<R, Long> places = new IdentityHashMap<>();
    /** Per target, per partition, the place of the newest record it marked. */
    private final List<Map<Object, Long>> marked = new ArrayList<>();
    private long next;

    Agreement(int targets, Function<R, Object> partitionOf) {
        this(all(targets), partitionOf);
    }

    /** @param voting per target, whether it has a say */
    Agreement(boolean[] voting, Function<R, Object> partitionOf) {
        this.targets = voting.length;
        this.voting = voting.clone();
        this.partitionOf = partitionOf;
        for (int i = 0; i < targets; i++) {
            marked.add(new HashMap<>());
        }
    }

    /** A batch handed to every target, in order: its last record of each partition is kept. */
    synchronized void handedOut(List<R> batch) {
        Map<Object, R> lastOf = new LinkedHashMap<>();
        for (R r : batch) {
            lastOf.put(partitionOf.apply(r), r);
        }
        lastOf.forEach((partition, r) -> {
            long place = next++;
            places.put(r, place);
            pending.computeIfAbsent(partition, p -> new ArrayDeque<>()).add(new Placed<>(r, place));
        });
    }

    /**
     * Target {@code target} has made durable every record of the record's partition up to it.
     *
     * @return the newest record of that partition all targets have now made durable, when that
     *         is newer than the one returned before; else null
     */
    synchronized R durable(int target, R record) {
        Long place = places.get(record);
        if (place == null) {
            return null; // agreed on already, or not one kept
        }
        Object partition = partitionOf.apply(record);
        marked.get(target).merge(partition, place, Math::max);
        long all = Long.MAX_VALUE;
        for (int t = 0; t < targets; t++) {
            if (!voting[t]) {
                continue;
            }
            Long p = marked.get(t).get(partition);
            if (p == null) {
                return null;
            }
            all = Math.min(all, p);
        }
        ArrayDeque<Placed<R>> queue = pending.get(partition);
        Placed<R> newest = null;
        while (queue != null && !queue.isEmpty() && queue.peekFirst().place() <= all) {
            newest = queue.pollFirst();
            places.remove(newest.record());
        }
        return newest == null ? null : newest.record();
    }

    private static boolean[] all(int targets) {
        boolean[] every = new boolean[targets];
        java.util.Arrays.fill(every, true);
        return every;
    }

    private record Placed<R>(R record, long place) {
    }
}
