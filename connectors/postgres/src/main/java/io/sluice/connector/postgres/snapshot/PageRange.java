package io.sluice.connector.postgres.snapshot;

/**
 * One read of the snapshot: heap pages {@code [fromPage, toPage)} of a table, selected with
 * TID-range predicates (planned as a TID range scan, no index needed). -1 means unbounded.
 */
public record PageRange(TablePlan plan, int index, long fromPage, long toPage) {

    /** The WHERE clause: the range's pages and the table's row filter; empty for a whole table of every row. */
    public String predicate() {
        java.util.List<String> conditions = new java.util.ArrayList<>();
        if (fromPage >= 0) {
            conditions.add("ctid >= '(" + fromPage + ",0)'::tid");
        }
        if (toPage >= 0) {
            conditions.add("ctid < '(" + toPage + ",0)'::tid");
        }
        String filter = plan.table().filterClause();
        if (!filter.isEmpty()) {
            conditions.add(filter);
        }
        return conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions);
    }

    @Override
    public String toString() {
        return plan.table().qualifiedName() + " range " + (index + 1) + "/" + plan.rangeCount();
    }
}
