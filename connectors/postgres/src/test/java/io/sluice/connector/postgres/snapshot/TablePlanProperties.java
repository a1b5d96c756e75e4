package io.sluice.connector.postgres.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** The split of a table into page ranges. */
class TablePlanProperties {

    /** Every page belongs to exactly one range: consecutive ranges meet, the first and last are open. */
    @Property
    void rangesCoverEveryPageOnce(@ForAll @LongRange(min = 0, max = 200_000) long pages,
                                  @ForAll @LongRange(min = 1, max = 1L << 40) long bytesPerPageTimes,
                                  @ForAll @LongRange(min = 1L << 16, max = 1L << 30) long batchBytes) {
        long bytes = pages * Math.min(bytesPerPageTimes, 1L << 20);
        long perRange = TablePlan.pagesPerRange(pages, bytes, batchBytes);
        int count = TablePlan.rangeCount(pages, perRange);
        TablePlan plan = new TablePlan(new io.sluice.connector.postgres.selection.SelectedTable("public", "t", 1, null, true), null, pages,
                bytes, 0, perRange, count, 0);
        assertThat(perRange).isPositive();
        if (count == 1) {
            assertThat(plan.range(0).predicate()).isEmpty();
            return;
        }
        assertThat(plan.range(0).fromPage()).isEqualTo(-1);
        assertThat(plan.range(count - 1).toPage()).isEqualTo(-1);
        for (int i = 1; i < count; i++) {
            assertThat(plan.range(i).fromPage()).isEqualTo(plan.range(i - 1).toPage());
        }
        assertThat(plan.range(count - 1).fromPage()).isLessThan(Math.max(pages, 1));
    }

    /** Every range of a filtered table reads only the rows the filter takes: the condition, whole, in each range's WHERE. */
    @Property
    void everyRangeCarriesTheRowFilter(@ForAll @LongRange(min = 0, max = 20_000) long pages,
                                       @ForAll @LongRange(min = 1, max = 100_000) long perRange) {
        String filter = "region = 'eu' OR (amount > 100 AND id % 7 = 0)";
        io.sluice.connector.postgres.selection.SelectedTable table =
                new io.sluice.connector.postgres.selection.SelectedTable("public", "orders", 1, null, true, filter);
        int count = TablePlan.rangeCount(pages, perRange);
        TablePlan plan = new TablePlan(table, null, pages, pages * 8192, 0, perRange, count, 0);
        for (int i = 0; i < count; i++) {
            String predicate = plan.range(i).predicate();
            assertThat(predicate).startsWith(" WHERE ").endsWith("(" + filter + ")");
            assertThat(predicate.split(java.util.regex.Pattern.quote(filter), -1)).hasSize(2);
        }
    }

    /** A range reads about batchBytes: never more than one page's worth over it (unless one page is already larger). */
    @Property
    void rangesReadAboutTheBatchSize(@ForAll @LongRange(min = 1, max = 10_000_000) long pages,
                                     @ForAll @LongRange(min = 8192, max = 1L << 22) long bytesPerPage,
                                     @ForAll @LongRange(min = 1L << 16, max = 1L << 30) long batchBytes) {
        long bytes = pages * bytesPerPage;
        long perRange = TablePlan.pagesPerRange(pages, bytes, batchBytes);
        if (bytes > batchBytes && bytesPerPage <= batchBytes) {
            assertThat(perRange * bytesPerPage).isLessThanOrEqualTo(batchBytes);
            assertThat((perRange + 1) * bytesPerPage).isGreaterThan(batchBytes);
        }
    }
}
