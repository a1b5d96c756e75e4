package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Invariants of the fan-out's agreement, with batches over a few source partitions handed out
 * while targets make them durable at their own pace, in any interleaving: a record is confirmed
 * only when every target holds it (never past the slowest target), confirmations of a partition
 * only move forward, and once every target holds everything, every partition's last record is
 * confirmed. Detached targets (any set but all) are fed nothing and mark nothing: the others
 * agree alone, and everything is confirmed once they all hold it.
 */
class AgreementProperties {

    /** A record: its partition, and its batch (for the check), compared by identity as the engine's are. */
    private static final class Rec {
        final int partition;
        final int batch;

        Rec(int partition, int batch) {
            this.partition = partition;
            this.batch = batch;
        }
    }

    /** One step: hand out the next batch (target -1), or let a target make durable up to some batch. */
    private record Step(int target, int advance) {
    }

    @Property(tries = 2000)
    void confirmsOnlyWhatEveryTargetHoldsAndEverythingOnceAllDo(@ForAll @IntRange(min = 1, max = 4) int targets,
                                                                @ForAll("batches") List<List<Integer>> batches,
                                                                @ForAll("steps") List<Step> steps,
                                                                @ForAll @IntRange(min = 0, max = 15) int detachedMask) {
        boolean[] voting = new boolean[targets];
        boolean anyVoting = false;
        for (int t = 0; t < targets; t++) {
            voting[t] = (detachedMask >> t & 1) == 0;
            anyVoting |= voting[t];
        }
        if (!anyVoting) {
            voting[0] = true; // the last target fed is never detached
        }
        List<List<Rec>> handed = new ArrayList<>();
        for (int b = 0; b < batches.size(); b++) {
            List<Rec> batch = new ArrayList<>();
            for (int p : batches.get(b)) {
                batch.add(new Rec(p, b));
            }
            handed.add(batch);
        }
        Agreement<Rec> agreement = new Agreement<>(voting, r -> r.partition);
        int[] durableUpTo = new int[targets]; // batches below this are durable on the target
        Map<Integer, Rec>[] lastMarked = newMaps(targets);
        Map<Integer, Integer> confirmedBatch = new HashMap<>();
        int out = 0;
        List<Step> all = new ArrayList<>(steps);
        // Then everything: every batch handed out, every target durable through the last.
        for (int i = 0; i < batches.size(); i++) {
            all.add(new Step(-1, 0));
        }
        for (int t = 0; t < targets; t++) {
            all.add(new Step(t, batches.size()));
        }
        for (Step step : all) {
            if (step.target() < 0 || step.target() >= targets) {
                if (out < handed.size()) {
                    agreement.handedOut(handed.get(out++));
                }
                continue;
            }
            int t = step.target();
            if (!voting[t]) {
                continue; // detached: handed nothing, so it marks nothing
            }
            int upTo = Math.min(out, durableUpTo[t] + step.advance());
            durableUpTo[t] = Math.max(durableUpTo[t], upTo);
            // As SinkHandoff marks: per partition, the newest record of the durable batches, when newer than the last it marked.
            Map<Integer, Rec> newest = new HashMap<>();
            for (int b = 0; b < durableUpTo[t]; b++) {
                for (Rec r : handed.get(b)) {
                    newest.put(r.partition, r);
                }
            }
            for (Rec r : newest.values()) {
                if (lastMarked[t].get(r.partition) == r) {
                    continue;
                }
                lastMarked[t].put(r.partition, r);
                Rec agreed = agreement.durable(t, r);
                if (agreed != null) {
                    int slowest = Integer.MAX_VALUE;
                    for (int v = 0; v < targets; v++) {
                        if (voting[v]) {
                            slowest = Math.min(slowest, durableUpTo[v]);
                        }
                    }
                    assertThat(agreed.batch).as("confirmed only what every target holds").isLessThan(slowest);
                    Integer before = confirmedBatch.put(agreed.partition, agreed.batch);
                    assertThat(before == null || before < agreed.batch).as("confirmations move forward").isTrue();
                }
            }
        }
        Map<Integer, Integer> lastBatchOf = new HashMap<>();
        for (List<Rec> batch : handed) {
            for (Rec r : batch) {
                lastBatchOf.put(r.partition, r.batch);
            }
        }
        assertThat(confirmedBatch).as("every partition confirmed through its last record").isEqualTo(lastBatchOf);
    }

    @SuppressWarnings("unchecked")
    private static Map<Integer, Rec>[] newMaps(int n) {
        Map<Integer, Rec>[] maps = new Map[n];
        for (int i = 0; i < n; i++) {
            maps[i] = new HashMap<>();
        }
        return maps;
    }

    @Provide
    Arbitrary<List<List<Integer>>> batches() {
        // Few partitions, so they repeat within and across batches; empty batches too.
        return Arbitraries.integers().between(0, 3).list().ofMaxSize(6).list().ofMaxSize(12);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        return Combinators.combine(Arbitraries.integers().between(-1, 3), Arbitraries.integers().between(0, 3)).as(Step::new)
                .list().ofMaxSize(40);
    }
}
