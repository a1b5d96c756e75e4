package io.sluice.runtime.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.sluice.connector.postgres.SourceChanges;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * {@link WindowChanges} against a model that applies the stream's changes one by one: for a
 * table compared by key, the snapshot with each touched key replaced by its folded state (a value
 * the stream did not send taken from the snapshot's row of the key's origin) is the table after
 * the changes; for a table compared as a whole, the snapshot's rows plus those added minus those
 * removed are. The changes are drawn as a script over a small key space, so keys come back after
 * deletes, keys move onto keys just freed, updates leave TOAST values unsent before and after a
 * key change, old images are key-only or whole, and values are NULL, empty, or text that looks
 * like the unsent marker.
 */
class WindowChangesProperties {

    private static final ComparedTable KEYED = new ComparedTable("public.t", "\"public\".\"t\"", "\"public\".\"t\"", List.of("id"),
            List.of("id", "a", "b"), List.of(), null);
    private static final ComparedTable WHOLE = new ComparedTable("public.w", "\"public\".\"w\"", "\"public\".\"w\"", List.of(),
            List.of("a", "b"), List.of(), null);
    /** Anonymize changes its key on the target: compared as a whole, folded by the key it has on the source. */
    private static final ComparedTable ANONYMIZED_KEY = new ComparedTable("public.a", "\"public\".\"a\"", "\"public\".\"a\"", List.of(),
            List.of("a", "b"), List.of("id (anonymized)"), null, List.of("id"));
    private static final int KEYS = 8;

    @Property(tries = 2000)
    void keyedFoldEqualsTheChangesApplied(@ForAll @Size(max = KEYS) Set<@IntRange(min = 0, max = KEYS - 1) Integer> initial,
                                          @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 1_000_000) Integer> script,
                                          @ForAll boolean anonymizedKey) {
        ComparedTable compared = anonymizedKey ? ANONYMIZED_KEY : KEYED;
        Map<String, Map<String, String>> snapshot = new TreeMap<>();
        for (int k : initial) {
            snapshot.put(Integer.toString(k), row(Integer.toString(k), value(k), "toast " + k));
        }
        Map<String, Map<String, String>> table = copy(snapshot);
        List<SourceChanges.Change> changes = new ArrayList<>();
        for (int c : script) {
            List<String> present = new ArrayList<>(table.keySet());
            List<String> absent = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                if (!table.containsKey(Integer.toString(k))) {
                    absent.add(Integer.toString(k));
                }
            }
            int op = c % 4;
            boolean wholeOld = (c / 32) % 3 == 0;
            if (op == 0 || present.isEmpty()) {
                if (absent.isEmpty()) {
                    continue;
                }
                String key = absent.get((c / 4) % absent.size());
                Map<String, String> after = row(key, value(c / 16), "toast " + c);
                table.put(key, after);
                changes.add(new SourceChanges.Change('i', null, after));
            } else if (op == 3) {
                String key = present.get((c / 4) % present.size());
                Map<String, String> old = table.remove(key);
                changes.add(new SourceChanges.Change('d', wholeOld ? old : Map.of("id", key), null));
            } else {
                String from = present.get((c / 4) % present.size());
                String to = op == 2 && !absent.isEmpty() ? absent.get((c / 8) % absent.size()) : from;
                Map<String, String> old = table.remove(from);
                boolean unsent = (c / 8) % 2 == 0;
                Map<String, String> applied = row(to, value(c / 16), unsent ? old.get("b") : "toast " + c);
                Map<String, String> sent = new LinkedHashMap<>(applied);
                if (unsent) {
                    sent.put("b", SourceChanges.UNCHANGED);
                }
                table.put(to, applied);
                Map<String, String> before = wholeOld ? old : !from.equals(to) ? Map.of("id", from) : null;
                changes.add(new SourceChanges.Change('u', before, sent));
            }
        }

        WindowChanges.Folded folded = WindowChanges.fold(compared, false, changes);

        assertThat(folded.unsettled()).isNull();
        Map<String, Map<String, String>> rebuilt = project(copy(snapshot), compared);
        for (WindowChanges.Touched t : folded.touched().values()) {
            String key = t.key().get(0);
            if (t.image() == null) {
                rebuilt.remove(key);
                continue;
            }
            Map<String, String> image = new HashMap<>(t.image());
            for (Map.Entry<String, String> e : t.image().entrySet()) {
                if (e.getValue() == SourceChanges.UNCHANGED) {
                    assertThat(t.origin()).as("an unsent value needs the key it was the snapshot's under").isNotNull();
                    image.put(e.getKey(), snapshot.get(t.origin().get(0)).get(e.getKey()));
                }
            }
            rebuilt.put(key, image);
        }
        assertThat(rebuilt).isEqualTo(project(table, compared));
    }

    /** The rows over the compared columns alone. */
    private static Map<String, Map<String, String>> project(Map<String, Map<String, String>> rows, ComparedTable t) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        rows.forEach((k, row) -> {
            Map<String, String> kept = new HashMap<>();
            t.columns().forEach(c -> kept.put(c, row.get(c)));
            out.put(k, kept);
        });
        return out;
    }

    @Property(tries = 2000)
    void wholeFoldMovesTheSnapshotToTheTableAfterTheChanges(@ForAll @Size(max = 6) List<@IntRange(min = 0, max = 3) Integer> initial,
                                                           @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 1_000_000) Integer> script) {
        List<Map<String, String>> snapshot = new ArrayList<>();
        for (int v : initial) {
            snapshot.add(wholeRow(value(v), "toast " + v)); // equal rows twice: a table without a key may hold them
        }
        List<Map<String, String>> table = new ArrayList<>(snapshot);
        List<SourceChanges.Change> changes = new ArrayList<>();
        for (int c : script) {
            int op = table.isEmpty() ? 0 : c % 3;
            if (op == 0) {
                Map<String, String> after = wholeRow(value(c / 4), "toast " + (c % 5));
                table.add(after);
                changes.add(new SourceChanges.Change('i', null, after));
            } else if (op == 1) {
                Map<String, String> old = table.remove((c / 3) % table.size());
                changes.add(new SourceChanges.Change('d', old, null));
            } else {
                int at = (c / 3) % table.size();
                Map<String, String> old = table.get(at);
                boolean unsent = (c / 7) % 2 == 0;
                Map<String, String> applied = wholeRow(value(c / 16), unsent ? old.get("b") : "toast " + (c % 5));
                Map<String, String> sent = new LinkedHashMap<>(applied);
                if (unsent) {
                    sent.put("b", SourceChanges.UNCHANGED);
                }
                table.set(at, applied);
                changes.add(new SourceChanges.Change('u', old, sent));
            }
        }

        WindowChanges.Folded folded = WindowChanges.fold(WHOLE, false, changes);

        assertThat(folded.unsettled()).isNull();
        Map<Map<String, String>, Integer> expected = counts(table);
        Map<Map<String, String>, Integer> rebuilt = counts(snapshot);
        folded.added().forEach(r -> rebuilt.merge(r, 1, Integer::sum));
        folded.removed().forEach(r -> rebuilt.merge(r, -1, Integer::sum));
        rebuilt.values().removeIf(n -> n == 0);
        assertThat(rebuilt).isEqualTo(expected);
    }

    @Property(tries = 200)
    void aTruncationOrAKeyOnlyImageOfAWholeTableLeavesItUnsettled(@ForAll @IntRange(min = 0, max = 1) int which) {
        SourceChanges.Change keyOnly = new SourceChanges.Change('d', Map.of("id", "1"), null);
        WindowChanges.Folded folded = which == 0 ? WindowChanges.fold(KEYED, true, List.of())
                : WindowChanges.fold(WHOLE, false, List.of(keyOnly));
        assertThat(folded.unsettled()).isNotNull();
        assertThat(folded.touched()).isEmpty();
    }

    /** Values with the edges: NULL, empty, and text equal to the unsent marker but not it. */
    private static String value(int n) {
        return switch (n % 5) {
            case 0 -> null;
            case 1 -> "";
            case 2 -> new String("\u0000unchanged");
            default -> "v" + n;
        };
    }

    private static Map<String, String> row(String id, String a, String b) {
        Map<String, String> row = new HashMap<>();
        row.put("id", id);
        row.put("a", a);
        row.put("b", b);
        return row;
    }

    private static Map<String, String> wholeRow(String a, String b) {
        Map<String, String> row = new HashMap<>();
        row.put("a", a);
        row.put("b", b);
        return row;
    }

    private static Map<String, Map<String, String>> copy(Map<String, Map<String, String>> rows) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        rows.forEach((k, v) -> out.put(k, new HashMap<>(v)));
        return out;
    }

    private static Map<Map<String, String>, Integer> counts(List<Map<String, String>> rows) {
        Map<Map<String, String>, Integer> out = new HashMap<>();
        rows.forEach(r -> out.merge(r, 1, Integer::sum));
        return out;
    }
}
