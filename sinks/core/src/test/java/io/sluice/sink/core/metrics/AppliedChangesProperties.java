package io.sluice.sink.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.TopicPartition;

/**
 * Counting applied changes from the ledger's reports. Invariants, for any interleaving of changes
 * and heartbeats taken on several partitions and reports of what is durable (in order, repeated,
 * stale, past the end): no change is counted before a report covers it; once every partition is
 * reported durable to its end, each table and operation is counted exactly as often as it was
 * taken; the newest durable commit time is never one of a record not yet covered, and ends as the
 * newest of all.
 */
class AppliedChangesProperties {

    private static final List<String> TABLES = List.of("public.a", "public.b", "s.c");
    private static final List<String> OPS = List.of("insert", "update", "delete");

    sealed interface Step permits Take, Beat, Report {
    }

    record Take(int partition, int table, int op, long commitMillis) implements Step {
    }

    record Beat(int partition, long commitMillis) implements Step {
    }

    /** A report that the first {@code share} of the partition's records taken so far (0 to 1.2: past the end too) are durable. */
    record Report(int partition, double share) implements Step {
    }

    @Property(tries = 1_000)
    void changesAreCountedOnceDurableAndExactlyOnce(@ForAll("histories") List<Step> history) {
        String target = "t-" + UUID.randomUUID();
        AppliedChanges applied = new AppliedChanges(target, () -> 10_000_000L);
        try {
            Map<Integer, List<Object[]>> taken = new HashMap<>(); // per partition: {offset, table|null, op, commit}
            Map<Integer, Long> durableUpTo = new HashMap<>();
            for (Step step : history) {
                if (step instanceof Take t) {
                    List<Object[]> records = taken.computeIfAbsent(t.partition(), p -> new ArrayList<>());
                    applied.taken(tp(t.partition()), records.size(), TABLES.get(t.table()), OPS.get(t.op()), t.commitMillis());
                    records.add(new Object[] {TABLES.get(t.table()), OPS.get(t.op()), t.commitMillis()});
                } else if (step instanceof Beat b) {
                    List<Object[]> records = taken.computeIfAbsent(b.partition(), p -> new ArrayList<>());
                    applied.heartbeat(tp(b.partition()), records.size(), b.commitMillis());
                    records.add(new Object[] {null, "heartbeat", b.commitMillis()});
                } else if (step instanceof Report r) {
                    int size = taken.getOrDefault(r.partition(), List.of()).size();
                    long upTo = (long) Math.floor(size * r.share());
                    applied.durable(tp(r.partition()), upTo);
                    durableUpTo.merge(r.partition(), upTo, Math::max);
                }
                // Never more than what reports cover; the newest durable time is one of a covered record.
                Map<String, Long> covered = count(taken, durableUpTo);
                for (String table : TABLES) {
                    for (String op : OPS) {
                        assertThat(counted(target, table + "/" + op)).isLessThanOrEqualTo((double) covered.getOrDefault(table + "/" + op, 0L));
                    }
                }
                long newestCovered = newest(taken, durableUpTo);
                assertThat(applied.newestDurableMillis()).isLessThanOrEqualTo(newestCovered);
            }
            Map<Integer, Long> all = new HashMap<>();
            taken.forEach((p, records) -> {
                applied.durable(tp(p), records.size());
                all.put(p, (long) records.size());
            });
            Map<String, Long> everything = count(taken, all);
            for (String table : TABLES) {
                for (String op : OPS) {
                    assertThat(counted(target, table + "/" + op)).isEqualTo((double) everything.getOrDefault(table + "/" + op, 0L));
                }
            }
            assertThat(applied.newestDurableMillis()).isEqualTo(newest(taken, all));
        } finally {
            applied.close();
            io.sluice.metrics.SluiceMetrics.forget("target", target);
        }
    }

    private static Map<String, Long> count(Map<Integer, List<Object[]>> taken, Map<Integer, Long> upTo) {
        Map<String, Long> counts = new HashMap<>();
        taken.forEach((p, records) -> {
            long limit = Math.min(records.size(), upTo.getOrDefault(p, 0L));
            for (int i = 0; i < limit; i++) {
                if (records.get(i)[0] != null) {
                    counts.merge(records.get(i)[0] + "/" + records.get(i)[1], 1L, Long::sum);
                }
            }
        });
        return counts;
    }

    private static long newest(Map<Integer, List<Object[]>> taken, Map<Integer, Long> upTo) {
        long newest = 0;
        for (Map.Entry<Integer, List<Object[]>> e : taken.entrySet()) {
            long limit = Math.min(e.getValue().size(), upTo.getOrDefault(e.getKey(), 0L));
            for (int i = 0; i < limit; i++) {
                newest = Math.max(newest, (Long) e.getValue().get(i)[2]);
            }
        }
        return newest;
    }

    private static double counted(String target, String key) {
        String[] parts = key.split("/");
        return SinkMeters.CHANGES_APPLIED.labelValues(target, parts[0], parts[1]).get();
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition("topic", partition);
    }

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<Long> commits = Arbitraries.oneOf(Arbitraries.of(0L, 1L, 9_999_999L, 10_000_000L),
                Arbitraries.longs().between(0, 20_000_000L));
        Arbitrary<Integer> partitions = Arbitraries.integers().between(0, 2);
        Arbitrary<Step> take = net.jqwik.api.Combinators.combine(partitions, Arbitraries.integers().between(0, TABLES.size() - 1),
                Arbitraries.integers().between(0, OPS.size() - 1), commits).as(Take::new);
        Arbitrary<Step> beat = net.jqwik.api.Combinators.combine(partitions, commits).as(Beat::new);
        Arbitrary<Step> report = net.jqwik.api.Combinators.combine(partitions,
                Arbitraries.oneOf(Arbitraries.of(0.0, 1.0, 1.2), Arbitraries.doubles().between(0, 1.2))).as(Report::new);
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, take), net.jqwik.api.Tuple.of(1, beat),
                net.jqwik.api.Tuple.of(2, report)).list().ofMaxSize(80);
    }
}
