package io.sluice.connector.postgres.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;

/**
 * Readers of one table's ranges, interleaved in every order the engine draws, including while
 * a reader is between learning its range is finished and queuing the range's last record. The
 * invariant is the one a restart relies on: whatever record's offset is committed last, every
 * range it calls finished has all its records ahead of it in the queue (or was finished before
 * the run), so skipping those ranges loses no row.
 */
class TableProgressProperties {

    private static final int RANGES = 12;

    private record Queued(int range, Map<String, Object> offset) {
    }

    @Property(tries = 2000)
    void aCommittedOffsetCallsFinishedOnlyRangesWhollyAheadOfIt(
            @ForAll @Size(min = 1, max = 5) @UniqueElements List<@IntRange(min = 0, max = RANGES - 1) Integer> readRanges,
            @ForAll @Size(min = 5, max = 5) List<@IntRange(min = 0, max = 4) Integer> rowsPerRange,
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 7) Integer> schedule,
            @ForAll @Size(max = RANGES) Set<@IntRange(min = 0, max = RANGES - 1) Integer> finishedBefore) {
        FinishedRanges initial = FinishedRanges.none();
        for (int r : finishedBefore) {
            if (!readRanges.contains(r)) {
                initial = initial.with(r);
            }
        }
        TablePlan plan = new TablePlan(null, null, RANGES, RANGES * 8192L, 0, 1, RANGES, 0);
        TableProgress progress = new TableProgress(plan, TableProgress.partition("it", "public.t"), initial, null);
        Readers readers = new Readers(progress, readRanges, rowsPerRange, schedule.iterator());
        readers.runAll();

        Set<Integer> complete = new HashSet<>();
        for (int r = 0; r < RANGES; r++) {
            if (initial.contains(r) || (readRanges.contains(r) && readers.rows(r) == 0)) {
                complete.add(r);
            }
        }
        int[] seen = new int[RANGES];
        for (Queued q : readers.queue) {
            seen[q.range()]++;
            if (seen[q.range()] == readers.rows(q.range())) {
                complete.add(q.range());
            }
            FinishedRanges claimed = FinishedRanges.decode((String) q.offset().get(TableProgress.DONE));
            for (int r = 0; r < RANGES; r++) {
                if (claimed.contains(r)) {
                    assertThat(complete).as("range %d is called finished by a record of range %d", r, q.range()).contains(r);
                }
            }
        }
        FinishedRanges atEnd = FinishedRanges.decode((String) progress.offset().get(TableProgress.DONE));
        assertThat(atEnd.count()).as("at the end every range read or skipped is finished")
                .isEqualTo(initial.count() + readRanges.size());
        readRanges.forEach(r -> assertThat(atEnd.contains(r)).isTrue());
    }

    /** Readers stepped by a drawn schedule, following the protocol of {@link RangeReader}. */
    private static final class Readers {
        private final TableProgress progress;
        private final List<Integer> ranges;
        private final int[] rows;
        private final int[] queuedRows;
        private final boolean[] busy;
        private final boolean[] done;
        private final Iterator<Integer> schedule;
        final List<Queued> queue = new ArrayList<>();

        Readers(TableProgress progress, List<Integer> ranges, List<Integer> rowsPerRange, Iterator<Integer> schedule) {
            this.progress = progress;
            this.ranges = ranges;
            this.rows = new int[ranges.size()];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = rowsPerRange.get(i);
            }
            this.queuedRows = new int[ranges.size()];
            this.busy = new boolean[ranges.size()];
            this.done = new boolean[ranges.size()];
            this.schedule = schedule;
        }

        int rows(int range) {
            int i = ranges.indexOf(range);
            return i < 0 ? 0 : rows[i];
        }

        void runAll() {
            Integer next;
            while ((next = pick()) != null) {
                step(next);
            }
        }

        /** The reader the schedule names, or the next one that can move; null when none can. */
        private Integer pick() {
            int start = schedule.hasNext() ? schedule.next() : 0;
            for (int k = 0; k < ranges.size(); k++) {
                int i = (start + k) % ranges.size();
                if (!busy[i] && !done[i]) {
                    return i;
                }
            }
            return null;
        }

        private void step(int i) {
            int range = ranges.get(i);
            if (queuedRows[i] < rows[i] - 1) {
                queue.add(new Queued(range, progress.offset()));
                queuedRows[i]++;
                return;
            }
            busy[i] = true;
            try {
                progress.finish(range, rows[i] == 0 ? null : offset -> {
                    // Others move while this reader holds its last record.
                    int others = schedule.hasNext() ? schedule.next() % 4 : 0;
                    for (int k = 0; k < others; k++) {
                        Integer other = pick();
                        if (other != null) {
                            step(other);
                        }
                    }
                    queue.add(new Queued(range, offset));
                    queuedRows[i]++;
                });
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            busy[i] = false;
            done[i] = true;
        }
    }
}
