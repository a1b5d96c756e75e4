package io.sluice.connector.postgres.snapshot;

/**
 * One read of the snapshot: heap pages {@code [fromPage, toPage)} of a table, selected with
 * TID-range predicates (planned as a TID range scan, no index needed). -1 means unbounded.
 */
public record PageRange(TablePlan plan, int index, long fromPage, long toPage) {

    /** The WHERE clause, empty for a whole table. */
    public String predicate() {
        if (fromPage < 0 && toPage < 0) {
            return "";
        }
        StringBuilder where = new StringBuilder(" WHERE ");
        if (fromPage >= 0) {
            where.append("ctid >= '(").append(fromPage).append(",0)'::tid");
        }
        if (toPage >= 0) {
            where.append(fromPage >= 0 ? " AND " : "").append("ctid < '(").append(toPage).append(",0)'::tid");
        }
        return where.toString();
    }

    @Override
    public String toString() {
        return plan.table().qualifiedName() + " range " + (index + 1) + "/" + plan.rangeCount();
    }
}
