package io.sluice.sink.postgres.apply;

import java.util.LinkedHashMap;
import java.util.List;

/** Changes of one table applied together, in the order they were last changed; within one, every key has at most one state. */
final class Segment {
    final LinkedHashMap<RowKey, PendingChange> states = new LinkedHashMap<>();
    /**
     * For the end of a re-synced chunk, what its key columns sort by on the source; null for a
     * segment of changes. Such a segment stages the keys that stay ({@link PendingChange#KEEP})
     * and the range's ends ({@link PendingChange#FROM}, {@link PendingChange#TO}).
     */
    List<String> rangeOrder;
}
