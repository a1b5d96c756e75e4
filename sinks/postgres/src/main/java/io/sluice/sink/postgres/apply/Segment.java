package io.sluice.sink.postgres.apply;

import java.util.LinkedHashMap;

/** Changes of one table applied together, in the order they were last changed; within one, every key has at most one state. */
final class Segment {
    final LinkedHashMap<RowKey, PendingChange> states = new LinkedHashMap<>();
}
