package io.sluice.connector.postgres.snapshot;

import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.envelope.TableSchema;

/**
 * How one table is read: its record shapes, its size, and its split into {@code rangeCount}
 * ranges of {@code pagesPerRange} heap pages. The last range has no upper bound, so pages added
 * after planning are still read (the snapshot decides which rows are visible).
 *
 * @param indexWork the estimated work of building the table's indexes on a target, in percent of
 *                  the work of copying its rows (see {@link ReadOrder})
 */
public record TablePlan(SelectedTable table, TableSchema schema, long pages, long bytes, long estimatedRows,
                        long pagesPerRange, int rangeCount, int indexWork) {

    /** Splits {@code pages} into ranges reading about {@code batchBytes} each, given that the table holds {@code bytes}. */
    static long pagesPerRange(long pages, long bytes, long batchBytes) {
        if (pages <= 0 || bytes <= batchBytes) {
            return Math.max(1, pages);
        }
        double bytesPerPage = (double) bytes / pages;
        return Math.max(1, (long) Math.floor(batchBytes / bytesPerPage));
    }

    static int rangeCount(long pages, long pagesPerRange) {
        if (pages <= pagesPerRange) {
            return 1;
        }
        long count = (pages + pagesPerRange - 1) / pagesPerRange;
        if (count > Integer.MAX_VALUE) {
            throw new IllegalStateException("Too many ranges; raise snapshot.batch.bytes");
        }
        return (int) count;
    }

    public PageRange range(int index) {
        if (rangeCount == 1) {
            return new PageRange(this, 0, -1, -1);
        }
        long from = index == 0 ? -1 : index * pagesPerRange;
        long to = index == rangeCount - 1 ? -1 : (index + 1) * pagesPerRange;
        return new PageRange(this, index, from, to);
    }
}
