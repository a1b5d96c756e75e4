package io.sluice.connector.postgres.snapshot;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One table's snapshot progress: which ranges are finished (carried in every record's source
 * offset, so a restart skips them) and rows and bytes read so far.
 */
public final class TableProgress {

    static final String PAGES_PER_RANGE = "pages_per_range";
    static final String RANGES = "ranges";
    static final String DONE = "done";
    /** What the snapshot that read all of the table's rows saw, when that was not the slot's snapshot. */
    static final String SEEN_BY = "seen_by";

    private final TablePlan plan;
    private final Map<String, String> partition;
    private FinishedRanges finished;
    private volatile Map<String, Object> offset;
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final VisibleTransactions seenBy;
    /** Ranges of this run whose records are not all in the queue yet. */
    private final AtomicInteger unqueued;

    /** @param seenBy what the snapshot reading the whole table saw, when it is not the slot's; else null */
    TableProgress(TablePlan plan, Map<String, String> partition, FinishedRanges finished, VisibleTransactions seenBy) {
        this.plan = plan;
        this.seenBy = seenBy;
        this.partition = partition;
        this.finished = finished;
        this.offset = offsetOf(finished);
        this.unqueued = new AtomicInteger(plan.rangeCount() - finished.count());
    }

    /**
     * The source partition of this table's records. Its entries are in one fixed order: Connect
     * stores offsets under the partition serialized in its map's order, and {@code Map.of}'s order
     * changes from one JVM start to the next, so a run looking up an offset stored by another
     * could miss it (and copy an interrupted snapshot's tables again).
     */
    public static Map<String, String> partition(String server, String table) {
        Map<String, String> partition = new LinkedHashMap<>();
        partition.put("server", server);
        partition.put("table", table);
        return Collections.unmodifiableMap(partition);
    }

    /**
     * The same partition with its entries the other way round: how offsets stored before the
     * order was fixed may be keyed, when their JVM ordered {@code Map.of} that way.
     */
    public static Map<String, String> legacyPartition(String server, String table) {
        Map<String, String> partition = new LinkedHashMap<>();
        partition.put("table", table);
        partition.put("server", server);
        return Collections.unmodifiableMap(partition);
    }

    /** The stored offset of a table's partition, under either order of its entries; null when none. */
    public static Map<String, Object> stored(Function<Map<String, String>, Map<String, Object>> reader, String server, String table) {
        Map<String, Object> offset = reader.apply(partition(server, table));
        return offset != null ? offset : reader.apply(legacyPartition(server, table));
    }

    public TablePlan plan() {
        return plan;
    }

    public Map<String, String> partition() {
        return partition;
    }

    /** The offset for a record of a range that is not yet finished. */
    public Map<String, Object> offset() {
        return offset;
    }

    /** Queues a range's last record with the offset it is given. */
    @FunctionalInterface
    interface LastRecord {
        void queue(Map<String, Object> offset) throws InterruptedException;
    }

    /**
     * Marks a range finished. Its last record ({@code last}, null when the range holds no rows) is
     * queued with the offset that says so, and only then do records of other ranges carry the
     * mark: the ranges a committed offset calls finished are ranges whose every record is ahead
     * of it in the queue, so a restart that skips them loses nothing. (Handing the mark out first
     * let a reader of another range queue a record that claimed this range while its last row was
     * not queued yet; a restart after that record skipped the row.)
     */
    void finish(int range, LastRecord last) throws InterruptedException {
        if (last != null) {
            Map<String, Object> lastOffset;
            synchronized (this) {
                lastOffset = offsetOf(finished.with(range));
            }
            last.queue(lastOffset);
        }
        synchronized (this) {
            finished = finished.with(range);
            offset = offsetOf(finished);
        }
    }

    /**
     * Notes that a range's records are all in the queue; true for the call that completes the
     * table, after which every record of the table is ahead of anything queued next.
     */
    boolean rangeQueued() {
        return unqueued.decrementAndGet() == 0;
    }

    public synchronized boolean isFinished(int range) {
        return finished.contains(range);
    }

    public synchronized boolean isComplete() {
        return finished.count() >= plan.rangeCount();
    }

    void addRows(long count, long rowBytes) {
        rows.addAndGet(count);
        bytes.addAndGet(rowBytes);
    }

    public long rows() {
        return rows.get();
    }

    public long bytes() {
        return bytes.get();
    }

    private Map<String, Object> offsetOf(FinishedRanges ranges) {
        if (seenBy != null) {
            return Map.of(PAGES_PER_RANGE, plan.pagesPerRange(), RANGES, plan.rangeCount(), DONE, ranges.encode(), SEEN_BY, seenBy.encode());
        }
        return Map.of(PAGES_PER_RANGE, plan.pagesPerRange(), RANGES, plan.rangeCount(), DONE, ranges.encode());
    }
}
