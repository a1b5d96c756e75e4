package io.sluice.runtime.verify;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import io.sluice.connector.postgres.SourceChanges;
import io.sluice.connector.postgres.SourceRows;
import io.sluice.sink.opensearch.OpenSearchDocuments;

/**
 * What an index may rightly hold of the rows the stream changed between the source's point and
 * the end of the index's read: each such row went through states (the row at the point, then the
 * row after each change), and the index holds one of them, no older than the last change the
 * target is known to have applied. Anything else is a difference.
 */
final class DocumentStates {

    /**
     * The states a document may be in: the hashes of the bodies it may have, whether it may be
     * absent, and whether some state could not be known (a value the stream did not send and no
     * earlier state holds), in which case any document is taken.
     */
    record Accepted(Set<Long> hashes, boolean absent, boolean unknown, String[] key) {
        boolean takes(Long hash) {
            return unknown || (hash == null ? absent : hashes.contains(hash));
        }
    }

    /** A state of a row: its text by column, or null for no row (deleted, moved to another key, out of the filter). */
    private record State(long commit, Map<String, String> row, boolean unknown) {
    }

    private DocumentStates() {
    }

    /**
     * @param changes   the stream's changes of the table after the point, in commit order
     * @param confirmed the position the target is known to hold every change through
     * @param source    reads in the point's snapshot
     * @return per document id, the states it may be in
     */
    static Map<String, Accepted> of(SourceRows rows, SourceChanges.Table changes, long confirmed, Connection source,
                                    OpenSearchDocuments documents, List<String> fields) throws SQLException {
        List<String> key = rows.key();
        Function<String[], String> idOf = k -> id(rows, key, k);
        Map<String, String[]> keys = touched(key, idOf, changes.changes());
        Map<String, Map<String, String>> initial = new LinkedHashMap<>();
        rows.byKeys(source, new ArrayList<>(keys.values()), texts -> {
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < texts.length; i++) {
                row.put(rows.columns().get(i), texts[i]);
            }
            initial.put(idOf.apply(keyOf(key, row)), row);
        });
        return fold(key, idOf, keys, initial, changes.changes(), changes.commits(), confirmed,
                row -> IndexComparison.hash(documents.body(rows.row(texts(rows, row))), fields));
    }

    /**
     * The states each touched row went through, and which of them the index may hold.
     *
     * @param key     the key columns, in key order
     * @param idOf    a document's id from its key's text values
     * @param touched the keys the changes touch, by id ({@link #touched})
     * @param initial the rows of the touched keys at the point, by id (a key without one is absent)
     * @param commits each change's commit position
     * @param hash    a row's document, as the hash it is compared by
     */
    static Map<String, Accepted> fold(List<String> key, Function<String[], String> idOf, Map<String, String[]> touched,
                                      Map<String, Map<String, String>> initial,
                                      List<SourceChanges.Change> changes, List<Long> commits, long confirmed,
                                      ToLongFunction<Map<String, String>> hash) {
        Map<String, List<State>> states = new LinkedHashMap<>();
        Map<String, Map<String, String>> current = new LinkedHashMap<>();
        for (String id : touched.keySet()) {
            current.put(id, initial.get(id));
            states.put(id, new ArrayList<>(List.of(new State(0, initial.get(id), false))));
        }
        for (int i = 0; i < changes.size(); i++) {
            SourceChanges.Change c = changes.get(i);
            long commit = commits.get(i);
            String[] oldKey = keyOf(key, c.before());
            String[] newKey = keyOf(key, c.after());
            String oldId = oldKey == null ? null : idOf.apply(oldKey);
            String newId = newKey == null ? null : idOf.apply(newKey);
            if (c.op() == 'd') {
                if (oldId != null) {
                    current.put(oldId, null);
                    states.get(oldId).add(new State(commit, null, false));
                }
                continue;
            }
            if (newId == null) {
                continue; // an image without its key (never sent so): nothing to place
            }
            Map<String, String> previous = current.get(oldId != null ? oldId : newId);
            Map<String, String> next = new LinkedHashMap<>();
            boolean known = true;
            for (Map.Entry<String, String> e : c.after().entrySet()) {
                if (e.getValue() == SourceChanges.UNCHANGED) {
                    // Not sent: unchanged since the row's state before, under its old key when the change moved it.
                    if (previous == null || !previous.containsKey(e.getKey())) {
                        known = false;
                    } else {
                        next.put(e.getKey(), previous.get(e.getKey()));
                    }
                } else {
                    next.put(e.getKey(), e.getValue());
                }
            }
            if (oldId != null && !oldId.equals(newId)) {
                current.put(oldId, null);
                states.get(oldId).add(new State(commit, null, false));
            }
            current.put(newId, next);
            states.get(newId).add(new State(commit, next, !known));
        }
        Map<String, Accepted> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<State>> e : states.entrySet()) {
            List<State> all = e.getValue();
            // The target holds every change through the confirmed position: no state before the last such change.
            int first = 0;
            for (int i = 1; i < all.size(); i++) {
                if (Long.compareUnsigned(all.get(i).commit(), confirmed) <= 0) {
                    first = i;
                }
            }
            Set<Long> hashes = new HashSet<>();
            boolean absent = false;
            boolean unknown = false;
            for (State s : all.subList(first, all.size())) {
                if (s.unknown()) {
                    unknown = true;
                } else if (s.row() == null) {
                    absent = true;
                } else {
                    hashes.add(hash.applyAsLong(s.row()));
                }
            }
            out.put(e.getKey(), new Accepted(hashes, absent, unknown, touched.get(e.getKey())));
        }
        return out;
    }

    /** The keys the changes' images name, by document id, in the order first named. */
    static Map<String, String[]> touched(List<String> key, Function<String[], String> idOf, List<SourceChanges.Change> changes) {
        Map<String, String[]> keys = new LinkedHashMap<>();
        for (SourceChanges.Change c : changes) {
            for (Map<String, String> image : java.util.Arrays.asList(c.before(), c.after())) {
                String[] k = keyOf(key, image);
                if (k != null) {
                    keys.putIfAbsent(idOf.apply(k), k);
                }
            }
        }
        return keys;
    }

    private static String[] texts(SourceRows rows, Map<String, String> row) {
        String[] texts = new String[rows.columns().size()];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = row.get(rows.columns().get(i));
        }
        return texts;
    }

    private static String id(SourceRows rows, List<String> key, String[] values) {
        Map<String, String> texts = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            texts.put(key.get(i), values[i]);
        }
        return OpenSearchDocuments.id(rows.key(texts));
    }

    /** The key's text values in an image, in key order; null when the image is missing or lacks them. */
    private static String[] keyOf(List<String> key, Map<String, String> image) {
        if (image == null) {
            return null;
        }
        String[] values = new String[key.size()];
        for (int i = 0; i < values.length; i++) {
            String v = image.get(key.get(i));
            if (v == null || v == SourceChanges.UNCHANGED) {
                return null;
            }
            values[i] = v;
        }
        return values;
    }
}
