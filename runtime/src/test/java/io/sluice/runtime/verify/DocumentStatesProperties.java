package io.sluice.runtime.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.sluice.connector.postgres.SourceChanges;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * What an index may hold of rows the stream changed: whatever the history (inserts, updates that
 * leave an out-of-line value unsent, key moves onto freed keys, deletes, several changes in one
 * transaction) and whatever point at or after the confirmed position each document is at, that
 * document is taken; a document older than the confirmed position is refused unless it equals a
 * state the row may rightly be in.
 */
class DocumentStatesProperties {

    private static final List<String> KEY = List.of("id");

    /** One step of a history: 0 insert, 1 update in place, 2 move to key {@code to}, 3 delete. */
    record Step(int kind, int row, int to, String value, boolean leaveToast, boolean sameTransaction, int pick) {
    }

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<String> value = Arbitraries.oneOf(Arbitraries.of("", " ", "a", "b", "\u0000unchanged", "NULL", "é"),
                Arbitraries.strings().ofMaxLength(3)).injectNull(0.1);
        Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(0, 3), Arbitraries.integers().between(1, 4),
                Arbitraries.integers().between(1, 4), value, Arbitraries.of(true, false), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 1000)).as(Step::new);
        return step.list().ofMaxSize(25);
    }

    @Property(tries = 2000)
    void everyDocumentAtOrAfterTheConfirmedPointIsTakenAndAnOlderOneIsNot(@ForAll("histories") List<Step> history,
                                                                           @ForAll("initial") Map<String, Map<String, String>> initial,
                                                                           @ForAll("confirmedAt") int confirmedAt) {
        // The source as a model: rows by id, and per id every state with the commit that made it.
        Map<String, Map<String, String>> rows = new LinkedHashMap<>(initial);
        Map<String, List<long[]>> commitsOf = new LinkedHashMap<>();
        Map<String, List<Map<String, String>>> statesOf = new LinkedHashMap<>();
        List<SourceChanges.Change> changes = new ArrayList<>();
        List<Long> commits = new ArrayList<>();
        long commit = 100;
        for (Step s : history) {
            String id = Integer.toString(s.row());
            Map<String, String> row = rows.get(id);
            commit += s.sameTransaction() && !commits.isEmpty() ? 0 : 10;
            if (s.kind() == 0 && row == null) {
                Map<String, String> after = row(id, s.value(), s.value());
                record(changes, commits, new SourceChanges.Change('i', null, after), commit);
                rows.put(id, after);
                note(statesOf, commitsOf, initial, id, commit, after);
            } else if ((s.kind() == 1 || s.kind() == 0) && row != null) {
                Map<String, String> after = row(id, s.value(), s.leaveToast() ? row.get("t") : s.value());
                Map<String, String> sent = new LinkedHashMap<>(after);
                if (s.leaveToast() && row.get("t") != null) {
                    sent.put("t", SourceChanges.UNCHANGED);
                }
                record(changes, commits, new SourceChanges.Change('u', null, sent), commit);
                rows.put(id, after);
                note(statesOf, commitsOf, initial, id, commit, after);
            } else if (s.kind() == 2 && row != null && rows.get(Integer.toString(s.to())) == null) {
                String to = Integer.toString(s.to());
                Map<String, String> after = row(to, s.value(), s.leaveToast() ? row.get("t") : s.value());
                Map<String, String> sent = new LinkedHashMap<>(after);
                if (s.leaveToast() && row.get("t") != null) {
                    sent.put("t", SourceChanges.UNCHANGED);
                }
                record(changes, commits, new SourceChanges.Change('u', Map.of("id", id), sent), commit);
                rows.remove(id);
                rows.put(to, after);
                note(statesOf, commitsOf, initial, id, commit, null);
                note(statesOf, commitsOf, initial, to, commit, after);
            } else if (s.kind() == 3 && row != null) {
                record(changes, commits, new SourceChanges.Change('d', Map.of("id", id), null), commit);
                rows.remove(id);
                note(statesOf, commitsOf, initial, id, commit, null);
            }
        }
        long confirmed = commits.isEmpty() ? 0 : confirmedAt % (commits.size() + 1) == 0 ? 0
                : commits.get(confirmedAt % (commits.size() + 1) - 1);
        Map<String, DocumentStates.Accepted> accepted = DocumentStates.fold(KEY, k -> k[0], DocumentStates.touched(KEY, k -> k[0], changes),
                initial, changes, commits, confirmed, DocumentStatesProperties::hash);

        assertThat(accepted.keySet()).isEqualTo(statesOf.keySet());
        for (String id : statesOf.keySet()) {
            List<Map<String, String>> states = statesOf.get(id);
            List<long[]> at = commitsOf.get(id);
            int first = 0;
            for (int i = 1; i < states.size(); i++) {
                if (at.get(i)[0] <= confirmed) {
                    first = i;
                }
            }
            // The index may be at any state from the last change it is known to hold on.
            for (int i = first; i < states.size(); i++) {
                Map<String, String> state = states.get(i);
                assertThat(accepted.get(id).takes(state == null ? null : hash(state))).as("%s in state %d of %s (confirmed %d)", id, i,
                        states, confirmed).isTrue();
            }
            // An older one is a difference, unless it equals a state it may be in.
            for (int i = 0; i < first; i++) {
                Map<String, String> older = states.get(i);
                boolean alsoLater = states.subList(first, states.size()).stream().anyMatch(l -> java.util.Objects.equals(l, older));
                if (!alsoLater) {
                    assertThat(accepted.get(id).takes(older == null ? null : hash(older))).as("%s in older state %d of %s (confirmed %d)",
                            id, i, states, confirmed).isFalse();
                }
            }
        }
    }

    @Provide
    Arbitrary<Map<String, Map<String, String>>> initial() {
        Arbitrary<String> value = Arbitraries.of("", "x", "\u0000unchanged").injectNull(0.2);
        return Combinators.combine(Arbitraries.of(true, false).list().ofSize(4), value.list().ofSize(4)).as((present, values) -> {
            Map<String, Map<String, String>> rows = new LinkedHashMap<>();
            for (int i = 0; i < 4; i++) {
                if (present.get(i)) {
                    rows.put(Integer.toString(i + 1), row(Integer.toString(i + 1), values.get(i), values.get(i)));
                }
            }
            return rows;
        });
    }

    @Provide
    Arbitrary<Integer> confirmedAt() {
        return Arbitraries.integers().between(0, 1000);
    }

    private static Map<String, String> row(String id, String v, String t) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("v", v);
        row.put("t", t);
        return row;
    }

    private static void record(List<SourceChanges.Change> changes, List<Long> commits, SourceChanges.Change change, long commit) {
        changes.add(change);
        commits.add(commit);
    }

    /** A new state of a row; the first note of a row starts it at its state at the point. */
    private static void note(Map<String, List<Map<String, String>>> statesOf, Map<String, List<long[]>> commitsOf,
                             Map<String, Map<String, String>> initial, String id, long commit, Map<String, String> state) {
        statesOf.computeIfAbsent(id, k -> new ArrayList<>(java.util.Collections.singletonList(initial.get(id))));
        commitsOf.computeIfAbsent(id, k -> new ArrayList<>(List.<long[]>of(new long[] {0})));
        statesOf.get(id).add(state);
        commitsOf.get(id).add(new long[] {commit});
    }

    /** A row's hash, with NULL told apart from every text. */
    private static long hash(Map<String, String> row) {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(row).forEach((k, v) -> text.append(k).append(v == null ? "\u0001" : "=" + v.length() + ":" + v).append(';'));
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.nio.ByteBuffer.wrap(d).getLong();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
