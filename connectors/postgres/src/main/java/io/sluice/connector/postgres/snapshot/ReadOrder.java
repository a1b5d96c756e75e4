package io.sluice.connector.postgres.snapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which tables are read. Each table goes through two stages: its rows are copied,
 * then its indexes are built on the target, which overlaps the copy of the tables after it. The
 * snapshot ends when the last build ends, so a table whose indexes take long to build must not
 * come last. Johnson's rule gives the shortest total time for such a two-stage flow: first the
 * tables whose build outweighs their copy, shortest copy first; then the others, longest build
 * first.
 */
public final class ReadOrder {

    private ReadOrder() {
    }

    /** The plans in reading order. */
    public static List<TablePlan> of(List<TablePlan> plans) {
        List<TablePlan> buildHeavy = new ArrayList<>();
        List<TablePlan> copyHeavy = new ArrayList<>();
        for (TablePlan plan : plans) {
            (copyWork(plan) < buildWork(plan) ? buildHeavy : copyHeavy).add(plan);
        }
        buildHeavy.sort(Comparator.comparingLong(ReadOrder::copyWork));
        copyHeavy.sort(Comparator.comparingLong(ReadOrder::buildWork).thenComparingLong(ReadOrder::copyWork).reversed());
        List<TablePlan> order = new ArrayList<>(buildHeavy);
        order.addAll(copyHeavy);
        return order;
    }

    static long copyWork(TablePlan plan) {
        return Math.max(0, plan.bytes());
    }

    static long buildWork(TablePlan plan) {
        return Math.max(0, plan.bytes()) / 100 * plan.indexWork();
    }
}
