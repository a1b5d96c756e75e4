package io.sluice.connector.postgres.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Readers taking ranges from the queue in any interleaving. */
class RangeQueueProperties {

    /**
     * Every range is read once; a reader keeps to its table while it has ranges; and a reader
     * only joins a table another reader is on when every table left has a reader.
     */
    @Property
    void readersSpreadOverTablesAndReadEveryRangeOnce(@ForAll @Size(min = 1, max = 8) List<@IntRange(min = 1, max = 6) Integer> rangesPerTable,
                                                     @ForAll @IntRange(min = 1, max = 4) int readers,
                                                     @ForAll @Size(max = 200) List<@IntRange(min = 0, max = 3) Integer> turns) {
        List<PageRange> all = new ArrayList<>();
        for (int count : rangesPerTable) {
            TablePlan plan = new TablePlan(null, null, count * 10L, count * 81920L, 0, 10, count, 0);
            for (int i = 0; i < count; i++) {
                all.add(plan.range(i));
            }
        }
        RangeQueue queue = new RangeQueue(all);
        PageRange[] current = new PageRange[readers];
        boolean[] started = new boolean[readers];
        Set<PageRange> read = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        List<Integer> order = new ArrayList<>(turns);
        for (int i = 0; i < all.size() + readers; i++) {
            order.add(i % readers);
        }
        for (int turn : order) {
            int reader = turn % readers;
            if (started[reader] && current[reader] == null) {
                continue; // this reader found nothing left and stopped
            }
            PageRange previous = current[reader];
            Map<TablePlan, Integer> others = new IdentityHashMap<>();
            for (int r = 0; r < readers; r++) {
                if (r != reader && current[r] != null) {
                    others.merge(current[r].plan(), 1, Integer::sum);
                }
            }
            boolean previousTableHasMore = previous != null && all.stream().anyMatch(p -> p.plan() == previous.plan() && !read.contains(p));
            Set<TablePlan> freeTables = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
            all.stream().filter(p -> !read.contains(p) && !others.containsKey(p.plan())).forEach(p -> freeTables.add(p.plan()));
            PageRange next = queue.next(previous);
            started[reader] = true;
            current[reader] = next;
            if (next == null) {
                assertThat(read).hasSize(all.size());
                continue;
            }
            assertThat(read.add(next)).as("read once").isTrue();
            if (previousTableHasMore) {
                assertThat(next.plan()).isSameAs(previous.plan());
            } else if (!freeTables.isEmpty()) {
                assertThat(freeTables).as("a table no other reader is on").contains(next.plan());
            }
        }
        for (int r = 0; r < readers; r++) {
            while (current[r] != null || !started[r]) {
                started[r] = true;
                current[r] = queue.next(current[r]);
                if (current[r] != null) {
                    assertThat(read.add(current[r])).isTrue();
                }
            }
        }
        assertThat(read).hasSize(all.size());
    }
}
