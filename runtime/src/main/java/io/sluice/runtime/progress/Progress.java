package io.sluice.runtime.progress;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Counts what a pipeline has moved, per table and in total, against the source's estimates,
 * for the live display and the closing summary.
 */
public final class Progress {

    /** One table: rows moved and the source's estimate of its rows and bytes. */
    public static final class Table {
        private final String name;
        private final long estimatedRows;
        private final long estimatedBytes;
        private final AtomicLong rows = new AtomicLong();

        Table(String name, long estimatedRows, long estimatedBytes) {
            this.name = name;
            this.estimatedRows = estimatedRows;
            this.estimatedBytes = estimatedBytes;
        }

        public String name() {
            return name;
        }

        public long rows() {
            return rows.get();
        }

        public long estimatedRows() {
            return estimatedRows;
        }

        public long estimatedBytes() {
            return estimatedBytes;
        }
    }

    private final long startNanos = System.nanoTime();
    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private volatile String phase;
    private volatile long phaseStartNanos;
    private volatile Supplier<String> batching = () -> null;

    public void expect(String table, long estimatedRows, long estimatedBytes) {
        tables.put(table, new Table(table, Math.max(0, estimatedRows), Math.max(0, estimatedBytes)));
    }

    public void rowMoved(String table, int count) {
        Table t = tables.get(table);
        if (t == null) {
            t = tables.computeIfAbsent(table, name -> new Table(name, 0, 0));
        }
        t.rows.addAndGet(count);
        rows.addAndGet(count);
    }

    /** Names what the pipeline does after the rows (building indexes...); null while rows are copied. */
    public void phase(String description) {
        phaseStartNanos = System.nanoTime();
        phase = description;
    }

    public String phase() {
        return phase;
    }

    public double phaseSeconds() {
        return (System.nanoTime() - phaseStartNanos) / 1e9;
    }

    /** Where the sink's batch size stands (size, tuning state, throughput), read at each redraw. */
    public void batching(Supplier<String> status) {
        batching = status;
    }

    /** The sink's batch size and tuning; null when not known. */
    public String batching() {
        return batching.get();
    }

    public void bytesLoaded(long total) {
        bytes.set(total);
    }

    public long rows() {
        return rows.get();
    }

    public long bytes() {
        return bytes.get();
    }

    public long estimatedRows() {
        return tables.values().stream().mapToLong(t -> Math.max(t.estimatedRows, t.rows())).sum();
    }

    public Map<String, Table> tables() {
        return tables;
    }

    public double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Rows per second since the start. */
    public double rate() {
        double s = seconds();
        return s <= 0 ? 0 : rows() / s;
    }

    /** Seconds left at the current rate, or -1 when unknown. */
    public long etaSeconds() {
        double rate = rate();
        long left = estimatedRows() - rows();
        return rate <= 0 || left <= 0 ? -1 : (long) (left / rate);
    }
}
