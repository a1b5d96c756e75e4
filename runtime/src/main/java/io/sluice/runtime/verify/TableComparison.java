package io.sluice.runtime.verify;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares one table's rows on the source and the target: the count and hash sum of all rows
 * first; when they differ, per range of the key (about a 64th of the rows each, bounds taken on
 * the source), and within each differing range of a few thousand rows at most, row by row, to
 * name the keys missing, extra or changed. A table without a key is compared as a whole.
 */
final class TableComparison {

    /** Ranges narrowed down to rows when neither side has more rows in them than this. */
    static final int ROWS_NAMED = 10_000;
    /** Keys named per table, at most. */
    static final int KEYS_SHOWN = 10;
    private static final int RANGES = 64;

    /**
     * What a comparison found.
     *
     * @param ranges the differing key ranges, as {@code column from .. to} text
     */
    record Outcome(ComparedTable table, boolean equal, long sourceRows, long targetRows, List<String> ranges, Set<String> missing,
                   Set<String> extra, Set<String> changed, String unsettled) {

        static Outcome unsettled(ComparedTable table, String why) {
            return new Outcome(table, false, 0, 0, List.of(), Set.of(), Set.of(), Set.of(), why);
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
            if (!missing.isEmpty()) {
                out.append("; missing on the target: ").append(shown(missing));
            }
            if (!extra.isEmpty()) {
                out.append("; not on the source: ").append(shown(extra));
            }
            if (!changed.isEmpty()) {
                out.append("; changed: ").append(shown(changed));
            }
            if (!ranges.isEmpty()) {
                out.append("; in ").append(String.join(", ", ranges));
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
        String exclude = t.keyed() ? KeySet.notAmong(t.key(), types.of(t.key()), window.touched().keySet()) : null;
        TableSide s = new TableSide(source, t.source(), t.columns(), t.filter(), exclude);
        TableSide d = new TableSide(target, t.target(), t.columns(), null, exclude);
        TableSide.Sums sourceSums = s.total();
        TableSide.Sums targetSums = d.total();
        if (!t.keyed()) {
            TouchedRows.Delta added = TouchedRows.sums(t, types, window.added(), source);
            TouchedRows.Delta removed = TouchedRows.sums(t, types, window.removed(), source);
            sourceSums = new TableSide.Sums(sourceSums.rows() + added.rows() - removed.rows(),
                    sourceSums.hash().add(added.hash()).subtract(removed.hash()));
            return new Outcome(t, sourceSums.equals(targetSums), sourceSums.rows(), targetSums.rows(), List.of(), Set.of(), Set.of(),
                    Set.of(), null);
        }
        TouchedRows.Found touched = TouchedRows.check(t, types, window, source, target);
        Set<String> missing = new TreeSet<>(touched.missing());
        Set<String> extra = new TreeSet<>(touched.extra());
        Set<String> changed = new TreeSet<>(touched.changed());
        List<String> ranges = new ArrayList<>();
        if (!sourceSums.equals(targetSums)) {
            String column = t.key().get(0);
            String type = types.type(column);
            boolean collatable = types.collatable(column);
            long step = Math.max(1000, sourceSums.rows() / RANGES + 1);
            List<String> bounds = s.bounds(column, type, collatable, step);
            Map<Integer, TableSide.Sums> sourceRanges = s.ranges(column, type, collatable, bounds);
            Map<Integer, TableSide.Sums> targetRanges = d.ranges(column, type, collatable, bounds);
            Set<Integer> differing = new TreeSet<>(sourceRanges.keySet());
            differing.addAll(targetRanges.keySet());
            differing.removeIf(r -> java.util.Objects.equals(sourceRanges.get(r), targetRanges.get(r)));
            for (int r : differing) {
                long rows = Math.max(rowsOf(sourceRanges.get(r)), rowsOf(targetRanges.get(r)));
                if (rows > ROWS_NAMED) {
                    ranges.add(describe(column, bounds, r));
                    continue;
                }
                Map<String, Long> here = s.rows(t.key(), column, type, collatable, bounds, r);
                Map<String, Long> there = d.rows(t.key(), column, type, collatable, bounds, r);
                Set<String> keys = new HashSet<>(here.keySet());
                keys.addAll(there.keySet());
                for (String k : keys) {
                    Long a = here.get(k);
                    Long b = there.get(k);
                    if (b == null) {
                        missing.add(k);
                    } else if (a == null) {
                        extra.add(k);
                    } else if (!a.equals(b)) {
                        changed.add(k);
                    }
                }
            }
        }
        boolean equal = sourceSums.equals(targetSums) && touched.none();
        return new Outcome(t, equal, sourceSums.rows() + touched.expected(), targetSums.rows() + touched.held(), ranges, missing, extra,
                changed, null);
    }

    private static long rowsOf(TableSide.Sums sums) {
        return sums == null ? 0 : sums.rows();
    }

    /** The key range of range {@code r}, for the report. */
    private static String describe(String column, List<String> bounds, int r) {
        if (bounds.isEmpty()) {
            return "all of " + column;
        }
        if (r == 0) {
            return column + " < " + bounds.get(0);
        }
        if (r >= bounds.size()) {
            return column + " >= " + bounds.get(bounds.size() - 1);
        }
        return column + " from " + bounds.get(r - 1) + " to before " + bounds.get(r);
    }
}
