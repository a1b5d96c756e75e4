package io.sluice.runtime.verify;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import io.sluice.schemas.naming.Identifiers;

/**
 * Compares one table's rows on the source and the target: the count and hash sum of all rows
 * first; when they differ, per range of the key's first column (about a 64th of the rows each),
 * and again within each differing range, until a differing range holds few enough rows to be
 * read row by row and its keys missing, extra or changed are named. A table without a key is
 * compared as a whole.
 */
final class TableComparison {

    /** Ranges narrowed down to rows when neither side has more rows in them than this. */
    static final int ROWS_NAMED = 10_000;
    /** Keys named per table in the report, at most. */
    static final int KEYS_SHOWN = 10;
    private static final int RANGES = 64;
    /** Times a range is cut again, at most: 64^4 ranges reach single rows of any table a server holds. */
    private static final int DEPTH = 4;

    /** What a comparison found. */
    record Outcome(ComparedTable table, boolean equal, long sourceRows, long targetRows, Differences found, String unsettled) {

        static Outcome unsettled(ComparedTable table, String why) {
            return new Outcome(table, false, 0, 0, new Differences(), why);
        }

        /** One line for the report. */
        String line() {
            StringBuilder out = new StringBuilder(table.name()).append(": ");
            if (unsettled != null) {
                return out.append("NOT COMPARED: ").append(unsettled).toString();
            }
            if (equal) {
                out.append("equal (").append(sourceRows).append(" rows").append(table.keyed() ? "" : "; no key: compared as a whole")
                        .append(')');
                return out.toString();
            }
            out.append("DIFFERS: ").append(sourceRows).append(" rows on the source, ").append(targetRows).append(" on the target");
            if (!table.keyed()) {
                return out.append(" (no key: compared as a whole)").toString();
            }
            if (!found.missing.isEmpty()) {
                out.append("; missing on the target: ").append(shown(found.missing.keySet()));
            }
            if (!found.extra.isEmpty()) {
                out.append("; not on the source: ").append(shown(found.extra.keySet()));
            }
            if (!found.changed.isEmpty()) {
                out.append("; changed: ").append(shown(found.changed.keySet()));
            }
            if (!found.ranges.isEmpty()) {
                out.append("; in ").append(String.join(", ", found.ranges));
            }
            return out.toString();
        }

        private static String shown(Set<String> keys) {
            List<String> first = keys.stream().limit(KEYS_SHOWN).toList();
            return String.join(" ", first) + (keys.size() > first.size() ? " and " + (keys.size() - first.size()) + " more" : "");
        }
    }

    private TableComparison() {
    }

    /**
     * Compares the table's rows on the source's snapshot with the target's, where the target has
     * applied on top of the snapshot the changes {@code window} folds.
     */
    static Outcome compare(ComparedTable t, Connection source, Connection target, WindowChanges.Folded window) throws SQLException {
        if (window.unsettled() != null) {
            return Outcome.unsettled(t, window.unsettled());
        }
        ColumnTypes types = ColumnTypes.of(source, t.source());
        // Keys the window touched leave the sums: of both sides when rows are matched by key, of the source's alone when the
        // table is compared as a whole (the target's rows cannot be told by key), where their last images join instead.
        String exclude = KeySet.notAmong(t.sourceKey(), types.of(t.sourceKey()), window.touched().keySet());
        TableSide s = new TableSide(source, t.source(), t.columns(), t.filter(), exclude);
        TableSide d = new TableSide(target, t.target(), t.columns(), null, t.keyed() ? exclude : null);
        BothSides.Results<TableSide.Sums> totals = BothSides.run(s::total, d::total);
        TableSide.Sums sourceSums = totals.source();
        TableSide.Sums targetSums = totals.target();
        Differences found = new Differences();
        if (!t.keyed()) {
            TouchedRows.Delta added = window.touched().isEmpty() ? TouchedRows.sums(t, types, window.added(), source)
                    : TouchedRows.lastImages(t, types, window, source);
            TouchedRows.Delta removed = TouchedRows.sums(t, types, window.removed(), source);
            sourceSums = new TableSide.Sums(sourceSums.rows() + added.rows() - removed.rows(),
                    sourceSums.hash().add(added.hash()).subtract(removed.hash()));
            return new Outcome(t, sourceSums.equals(targetSums), sourceSums.rows(), targetSums.rows(), found, null);
        }
        TouchedRows.Found touched = TouchedRows.check(t, types, window, source, target, found);
        if (!sourceSums.equals(targetSums)) {
            new Narrowing(t, types, s, d, found).range(null, null, sourceSums.rows(), targetSums.rows(), 0);
        }
        return new Outcome(t, found.none() && sourceSums.equals(targetSums), sourceSums.rows() + touched.expected(),
                targetSums.rows() + touched.held(), found, null);
    }

    /** Cuts a differing range into parts until the differing ones can be read row by row. */
    private record Narrowing(ComparedTable t, ColumnTypes types, TableSide s, TableSide d, Differences found) {

        /** A differing range of the first key column: from {@code low} on (null: the start) up to before {@code high} (null: the end). */
        void range(String low, String high, long sourceRows, long targetRows, int depth) throws SQLException {
            String column = t.key().get(0);
            String range = condition(column, low, high);
            if (Math.max(sourceRows, targetRows) <= ROWS_NAMED) {
                rows(range);
                return;
            }
            TableSide larger = sourceRows >= targetRows ? s : d;
            List<String> bounds = (depth >= DEPTH ? List.<String>of()
                    : larger.bounds(column, types.collatable(column), Math.max(1000, Math.max(sourceRows, targetRows) / RANGES + 1), range))
                    .stream().filter(b -> !b.equals(low)).toList(); // a part from low up to before low is empty
            if (bounds.isEmpty()) {
                found.ranges.add(describe(column, low, high)); // one value of the first column holds that many rows
                return;
            }
            BothSides.Results<Map<Integer, TableSide.Sums>> parts = BothSides.run(
                    () -> s.ranges(column, types.type(column), types.collatable(column), bounds, range),
                    () -> d.ranges(column, types.type(column), types.collatable(column), bounds, range));
            Map<Integer, TableSide.Sums> here = parts.source();
            Map<Integer, TableSide.Sums> there = parts.target();
            Set<Integer> differing = new TreeSet<>(here.keySet());
            differing.addAll(there.keySet());
            for (int p : differing) {
                if (!Objects.equals(here.get(p), there.get(p))) {
                    range(p == 0 ? low : bounds.get(p - 1), p == bounds.size() ? high : bounds.get(p), rowsOf(here.get(p)),
                            rowsOf(there.get(p)), depth + 1);
                }
            }
        }

        private void rows(String range) throws SQLException {
            BothSides.Results<Map<List<String>, Long>> rows = BothSides.run(() -> s.rows(t.key(), range), () -> d.rows(t.key(), range));
            Map<List<String>, Long> here = rows.source();
            Map<List<String>, Long> there = rows.target();
            Set<List<String>> keys = new HashSet<>(here.keySet());
            keys.addAll(there.keySet());
            for (List<String> k : keys) {
                Long a = here.get(k);
                Long b = there.get(k);
                if (b == null) {
                    found.missing(k);
                } else if (a == null) {
                    found.extra(k);
                } else if (!a.equals(b)) {
                    found.changed(k);
                }
            }
        }

        /** The rows from {@code low} up to before {@code high} (either null: open), compared as the cuts were made. */
        private String condition(String column, String low, String high) {
            if (low == null && high == null) {
                return null;
            }
            boolean collatable = types.collatable(column);
            String k = Identifiers.quote(column) + (collatable ? " COLLATE \"C\"" : "");
            String c = collatable ? " COLLATE \"C\"" : "";
            String type = types.type(column);
            String lower = low == null ? null : k + " >= " + Identifiers.literal(low) + "::" + type + c;
            String upper = high == null ? null : k + " < " + Identifiers.literal(high) + "::" + type + c;
            return lower == null ? upper : upper == null ? lower : lower + " AND " + upper;
        }
    }

    private static long rowsOf(TableSide.Sums sums) {
        return sums == null ? 0 : sums.rows();
    }

    /** A key range, for the report. */
    private static String describe(String column, String low, String high) {
        if (low == null && high == null) {
            return "all of " + column;
        }
        if (low == null) {
            return column + " < " + high;
        }
        if (high == null) {
            return column + " >= " + low;
        }
        return column + " from " + low + " to before " + high;
    }
}
