package io.sluice.connector.postgres.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * The reading order, modelled as a two-stage flow: a table's rows are copied (one after
 * another), then its indexes are built (one after another, each once its table is copied).
 */
class ReadOrderProperties {

    /** No order of the tables finishes the flow sooner than the one chosen. */
    @Property(tries = 300)
    void noOtherOrderFinishesSooner(@ForAll("plans") @Size(max = 6) List<TablePlan> plans) {
        long chosen = finish(ReadOrder.of(plans));
        long best = Long.MAX_VALUE;
        for (List<TablePlan> order : permutations(plans)) {
            best = Math.min(best, finish(order));
        }
        assertThat(chosen).isEqualTo(best);
    }

    /** Every table is read, once. */
    @Property
    void everyTableOnce(@ForAll("plans") @Size(max = 30) List<TablePlan> plans) {
        assertThat(ReadOrder.of(plans)).containsExactlyInAnyOrderElementsOf(plans);
    }

    @Provide
    Arbitrary<List<TablePlan>> plans() {
        Arbitrary<TablePlan> plan = Combinators.combine(Arbitraries.longs().between(0, 1L << 34), Arbitraries.integers().between(0, 800))
                .as((bytes, indexWork) -> new TablePlan(null, null, bytes / 8192, bytes, 0, 1, 1, indexWork));
        return plan.list();
    }

    private static long finish(List<TablePlan> order) {
        long copied = 0;
        long built = 0;
        for (TablePlan plan : order) {
            copied += ReadOrder.copyWork(plan);
            built = Math.max(built, copied) + ReadOrder.buildWork(plan);
        }
        return built;
    }

    private static List<List<TablePlan>> permutations(List<TablePlan> plans) {
        if (plans.isEmpty()) {
            return List.of(List.of());
        }
        List<List<TablePlan>> all = new ArrayList<>();
        for (int i = 0; i < plans.size(); i++) {
            List<TablePlan> rest = new ArrayList<>(plans);
            TablePlan first = rest.remove(i);
            for (List<TablePlan> tail : permutations(rest)) {
                List<TablePlan> order = new ArrayList<>();
                order.add(first);
                order.addAll(tail);
                all.add(order);
            }
        }
        return all;
    }
}
