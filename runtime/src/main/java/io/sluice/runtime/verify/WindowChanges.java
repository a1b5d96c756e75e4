package io.sluice.runtime.verify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.SourceChanges;

/**
 * What a table's changes between the source's point and the target's position mean for its
 * comparison: the target holds the source's snapshot with those changes on top. For a table
 * compared by key, each key a change touched is taken out of the sums of both sides and checked
 * alone: the target must hold the key's last image (or lack it, if its last change deleted it).
 * A table compared as a whole whose source rows have a key (one Anonymize changes) is folded by
 * that key too: the touched keys leave the source's sums and their last images join them. For a
 * table without a key, the rows the changes added and removed are known when every image is
 * whole (inserts, and updates and deletes under REPLICA IDENTITY FULL), and move the source's
 * sums. Anything else (a truncation, an image without the key, an update of a table
 * compared as a whole that sends only the old key) leaves the table unsettled for this round.
 */
final class WindowChanges {

    /**
     * A key's last state: {@code image} (null: deleted) over the compared columns, where a value
     * the stream did not send ({@link SourceChanges#UNCHANGED}) is the row's at the point under
     * key {@code origin}.
     */
    record Touched(List<String> key, Map<String, String> image, List<String> origin) {
    }

    /**
     * @param unsettled why the table cannot be compared in this round; null when it can
     * @param touched   per key a change touched (key texts in key order), its last state; for a table compared by key
     * @param added     whole images the changes added; for a table compared as a whole
     * @param removed   whole images the changes removed; for a table compared as a whole
     */
    record Folded(String unsettled, Map<List<String>, Touched> touched, List<Map<String, String>> added,
                  List<Map<String, String>> removed) {

        static Folded none() {
            return new Folded(null, Map.of(), List.of(), List.of());
        }

        boolean quiet() {
            return unsettled == null && touched.isEmpty() && added.isEmpty() && removed.isEmpty();
        }
    }

    private WindowChanges() {
    }

    /** Folds the changes the stream carried of the table (of its partitions too, each named by the stream). */
    static Folded fold(ComparedTable t, List<SourceChanges.Table> carried) {
        List<SourceChanges.Change> changes = new ArrayList<>();
        carried.forEach(c -> changes.addAll(c.changes()));
        return fold(t, carried.stream().anyMatch(SourceChanges.Table::truncated), changes);
    }

    /** Folds changes in commit order; {@code truncated}: one of them emptied the table. */
    static Folded fold(ComparedTable t, boolean truncated, List<SourceChanges.Change> changes) {
        if (truncated) {
            return unsettled("it was emptied (TRUNCATE) while it was compared");
        }
        if (changes.isEmpty()) {
            return Folded.none();
        }
        // A table compared as a whole whose source rows have a key (anonymized on the target) is folded by that key.
        return !t.sourceKey().isEmpty() ? byKey(t, t.sourceKey(), changes) : whole(t, changes);
    }

    private static Folded byKey(ComparedTable t, List<String> keyColumns, List<SourceChanges.Change> changes) {
        Map<List<String>, Touched> last = new LinkedHashMap<>();
        for (SourceChanges.Change c : changes) {
            List<String> from = c.before() == null ? null : key(keyColumns, c.before());
            List<String> to = c.after() == null ? null : key(keyColumns, c.after());
            if ((c.before() != null && from == null) || (c.after() != null && to == null)) {
                return unsettled("a change's image lacks its key");
            }
            if (c.op() == 'd') {
                last.put(from, new Touched(from, null, null));
                continue;
            }
            List<String> source = c.op() == 'u' ? (from != null ? from : to) : null;
            Touched before = source == null ? null : last.get(source);
            List<String> origin = source == null ? null : before == null ? source : before.origin();
            Map<String, String> image = new HashMap<>();
            for (String column : t.columns()) {
                String v = c.after().containsKey(column) ? c.after().get(column) : SourceChanges.UNCHANGED;
                if (v == SourceChanges.UNCHANGED && before != null && before.image() != null) {
                    v = before.image().get(column);
                }
                image.put(column, v);
            }
            if (unsent(image) && origin == null) {
                return unsettled("an inserted row's image lacks a value");
            }
            if (from != null && !from.equals(to)) {
                last.put(from, new Touched(from, null, null));
            }
            last.put(to, new Touched(to, image, origin));
        }
        return new Folded(null, last, List.of(), List.of());
    }

    private static Folded whole(ComparedTable t, List<SourceChanges.Change> changes) {
        List<Map<String, String>> added = new ArrayList<>();
        List<Map<String, String>> removed = new ArrayList<>();
        for (SourceChanges.Change c : changes) {
            Map<String, String> before = c.before() == null ? null : whole(t, c.before(), null);
            if (c.op() != 'i' && before == null) {
                return unsettled("it is compared as a whole and a change sent only its old key (REPLICA IDENTITY FULL sends whole rows)");
            }
            Map<String, String> after = c.after() == null ? null : whole(t, c.after(), before);
            if (c.after() != null && after == null) {
                return unsettled("a change's image lacks a value");
            }
            if (before != null) {
                removed.add(before);
            }
            if (after != null) {
                added.add(after);
            }
        }
        return new Folded(null, Map.of(), added, removed);
    }

    /** The image over the compared columns, unsent values taken from {@code base}; null when a value is not known. */
    private static Map<String, String> whole(ComparedTable t, Map<String, String> image, Map<String, String> base) {
        Map<String, String> out = new HashMap<>();
        for (String column : t.columns()) {
            String v = image.containsKey(column) ? image.get(column) : SourceChanges.UNCHANGED;
            if (v == SourceChanges.UNCHANGED) {
                if (base == null) {
                    return null;
                }
                v = base.get(column);
            }
            out.put(column, v);
        }
        return out;
    }

    /** The key's texts in key order; null when the image lacks one of its columns. */
    private static List<String> key(List<String> keyColumns, Map<String, String> image) {
        List<String> out = new ArrayList<>(keyColumns.size());
        for (String column : keyColumns) {
            String v = image.get(column);
            if (v == null || v == SourceChanges.UNCHANGED) {
                return null;
            }
            out.add(v);
        }
        return out;
    }

    /** Whether the image has a value the stream did not send (by identity: no value sent is the marker object). */
    static boolean unsent(Map<String, String> image) {
        for (String v : image.values()) {
            if (v == SourceChanges.UNCHANGED) {
                return true;
            }
        }
        return false;
    }

    private static Folded unsettled(String why) {
        return new Folded(why, Map.of(), List.of(), List.of());
    }
}
