package io.sluice.connector.postgres.snapshot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tables whose rows were all read under one snapshot other than the slot's, by qualified
 * name, with what that snapshot saw ({@link VisibleTransactions}): the stream drops the replayed
 * changes of these tables that the snapshot already holds. A root counts only when all its
 * partitions were read whole under one snapshot, because its changes come as the root's.
 */
final class SeenWhole {

    private final Map<String, VisibleTransactions> tables = new LinkedHashMap<>();

    void put(String qualifiedName, VisibleTransactions seen) {
        tables.put(qualifiedName, seen);
    }

    /** Adds each root whose partitions among the plans were all read whole under the same snapshot. */
    void addRoots(List<TablePlan> plans) {
        Map<String, List<VisibleTransactions>> byRoot = new LinkedHashMap<>();
        for (TablePlan plan : plans) {
            if (plan.table().root() != null) {
                byRoot.computeIfAbsent(plan.table().root(), r -> new ArrayList<>()).add(tables.get(plan.table().qualifiedName()));
            }
        }
        byRoot.forEach((root, seen) -> {
            VisibleTransactions first = seen.get(0);
            if (first != null && seen.stream().allMatch(v -> v != null && v.encode().equals(first.encode()))) {
                tables.put(root, first);
            }
        });
    }

    Map<String, VisibleTransactions> asMap() {
        return Map.copyOf(tables);
    }

    /** What the stored offset of a finished table says its snapshot saw; empty when it was read under the slot's snapshot. */
    static Optional<VisibleTransactions> of(Map<String, Object> tableOffset) {
        return tableOffset != null && tableOffset.get(TableProgress.SEEN_BY) instanceof String e
                ? Optional.of(VisibleTransactions.decode(e)) : Optional.empty();
    }
}
