package io.sluice.connector.postgres.snapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The page ranges still to read, table by table in reading order. A reader keeps to its table
 * while it has ranges; a reader that needs a new table takes the first one no other reader is
 * on, and only when every table left has a reader does it join one. Tables are thus read side by
 * side, each finishing as early as it can, and a sink can load each in its own stream (and its
 * own transaction) without the readers of one table waiting on another.
 */
final class RangeQueue {

    private final List<Deque<PageRange>> tables = new ArrayList<>();
    private final Map<TablePlan, Integer> readers = new IdentityHashMap<>();
    private int size;

    /** @param ranges the ranges to read, grouped by table in reading order */
    RangeQueue(List<PageRange> ranges) {
        Map<TablePlan, Deque<PageRange>> byTable = new IdentityHashMap<>();
        List<TablePlan> order = new ArrayList<>();
        for (PageRange range : ranges) {
            byTable.computeIfAbsent(range.plan(), p -> {
                order.add(p);
                return new ArrayDeque<>();
            }).add(range);
        }
        order.forEach(p -> tables.add(byTable.get(p)));
        size = ranges.size();
    }

    synchronized int size() {
        return size;
    }

    /**
     * The next range for a reader that has just finished {@code previous} (null at its start);
     * null when nothing is left.
     */
    synchronized PageRange next(PageRange previous) {
        TablePlan current = previous == null ? null : previous.plan();
        if (current != null) {
            readers.merge(current, -1, Integer::sum);
        }
        Deque<PageRange> chosen = null;
        for (Deque<PageRange> table : tables) {
            if (!table.isEmpty() && table.peek().plan() == current) {
                chosen = table;
                break;
            }
        }
        if (chosen == null) {
            chosen = tables.stream().filter(t -> !t.isEmpty() && readers.getOrDefault(t.peek().plan(), 0) == 0).findFirst()
                    .orElseGet(() -> tables.stream().filter(t -> !t.isEmpty()).findFirst().orElse(null));
        }
        if (chosen == null) {
            return null;
        }
        PageRange range = chosen.poll();
        readers.merge(range.plan(), 1, Integer::sum);
        size--;
        return range;
    }
}
