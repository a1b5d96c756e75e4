package io.sluice.sink.postgres.schema;

import java.util.ArrayList;
import java.util.List;

/**
 * The statements that bring a target enum type's labels to the source's, in the source's sort
 * order. A source only adds labels ({@code ADD VALUE}, anywhere in the order) and renames them
 * ({@code RENAME VALUE}, keeping the place): a label only the target has, sitting where the
 * source has a label the target lacks, was renamed; every other missing label is added next to
 * its nearest neighbour the target has. Labels the target has and the source never had stay.
 */
final class EnumLabels {

    private EnumLabels() {
    }

    /**
     * @param type the type, quoted
     * @param have the target's labels in sort order
     * @param want the source's labels in sort order
     */
    static List<String> changes(String type, List<String> have, List<String> want) {
        List<String> out = new ArrayList<>();
        List<String> now = new ArrayList<>(have);
        for (int i = 0; i < now.size(); i++) {
            String label = now.get(i);
            if (want.contains(label)) {
                continue;
            }
            String before = i == 0 ? null : now.get(i - 1);
            if (before != null && !want.contains(before)) {
                continue;
            }
            int place = before == null ? 0 : want.indexOf(before) + 1;
            if (place < want.size() && !now.contains(want.get(place))) {
                out.add("ALTER TYPE " + type + " RENAME VALUE " + literal(label) + " TO " + literal(want.get(place)));
                now.set(i, want.get(place));
            }
        }
        for (int j = 0; j < want.size(); j++) {
            String label = want.get(j);
            if (now.contains(label)) {
                continue;
            }
            String after = null;
            for (int k = j - 1; k >= 0 && after == null; k--) {
                after = now.contains(want.get(k)) ? want.get(k) : null;
            }
            String before = null;
            for (int k = j + 1; k < want.size() && before == null && after == null; k++) {
                before = now.contains(want.get(k)) ? want.get(k) : null;
            }
            String add = "ALTER TYPE " + type + " ADD VALUE IF NOT EXISTS " + literal(label);
            if (after != null) {
                out.add(add + " AFTER " + literal(after));
                now.add(now.indexOf(after) + 1, label);
            } else if (before != null) {
                out.add(add + " BEFORE " + literal(before));
                now.add(now.indexOf(before), label);
            } else {
                out.add(add);
                now.add(label);
            }
        }
        return out;
    }

    private static String literal(String label) {
        return "'" + label.replace("'", "''") + "'";
    }
}
