package io.sluice.connector.postgres.resync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.sluice.connector.postgres.snapshot.VisibleTransactions;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The rule a re-synced chunk is handed out by, against a model of the source. Transactions
 * change keys and commit in stream order, their IDs handed out in another order (near the 32-bit
 * wrap too); a chunk is read under a snapshot taken at some point, which may miss transactions
 * whose commits the stream has already decoded (synchronous replication makes a commit visible
 * late); the table began to be watched somewhat before; the watermark commits later. The target
 * starts corrupted and gets every streamed change before the watermark. Invariant: either the
 * chunk is refused (only when a transaction decoded before the watch began was not yet visible
 * to it; it is then read again), or the chunk's rows except the keys of unseen transactions, with
 * every other key deleted, leave the target exactly as the source was at the watermark.
 */
class ResyncRuleProperties {

    /** A change: the key's new value, or its deletion (null). */
    record Change(int key, Integer value) {
    }

    record Tx(long fullXid, List<Change> changes) {
        int xid() {
            return (int) fullXid;
        }
    }

    /**
     * @param txs     in commit (stream) order
     * @param watch   transactions before this index were decoded before the table was watched
     * @param snap    transactions before this index had committed when the chunk's snapshot was taken
     * @param mark    transactions before this index commit before the watermark
     * @param lagging indexes (below {@code snap}) whose commits were not yet visible to the snapshot
     */
    record Scenario(List<Tx> txs, int watch, int snap, int mark, Set<Integer> lagging, Map<Integer, Integer> corrupted) {
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<Change> change = Combinators.combine(Arbitraries.integers().between(0, 7),
                Arbitraries.integers().between(0, 3).injectNull(0.3)).as(Change::new);
        Arbitrary<List<List<Change>>> bodies = change.list().ofMinSize(1).ofMaxSize(3).list().ofMaxSize(12);
        Arbitrary<Long> base = Arbitraries.of((1L << 32) + 1000, (1L << 32) + Integer.MAX_VALUE - 5, (2L << 32) - 7);
        Arbitrary<Map<Integer, Integer>> corrupted = Arbitraries.maps(Arbitraries.integers().between(-2, 9),
                Arbitraries.integers().between(0, 9)).ofMaxSize(8);
        return Combinators.combine(bodies, base, Arbitraries.integers().between(0, 1000).list().ofSize(4), corrupted,
                Arbitraries.integers().between(0, 11).set()).as((b, first, cuts, c, lag) -> {
                    int n = b.size();
                    // IDs in another order than commits: a permutation drawn from the cuts.
                    List<Integer> order = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        order.add(i);
                    }
                    java.util.Collections.rotate(order, n == 0 ? 0 : cuts.get(3) % n);
                    if (n > 1 && cuts.get(3) % 2 == 0) {
                        java.util.Collections.swap(order, 0, n - 1);
                    }
                    List<Tx> txs = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        txs.add(new Tx(first + order.get(i), b.get(i)));
                    }
                    int snap = n == 0 ? 0 : cuts.get(0) % (n + 1);
                    int watch = snap == 0 ? 0 : cuts.get(1) % (snap + 1);
                    int mark = snap + (n - snap == 0 ? 0 : cuts.get(2) % (n - snap + 1));
                    // A commit that is not visible yet still holds its rows' locks: no visible transaction after it touches them.
                    Set<Integer> lagging = new HashSet<>();
                    for (int i : lag) {
                        if (i >= snap) {
                            continue;
                        }
                        boolean touchedLater = false;
                        for (int j = i + 1; j < snap; j++) {
                            for (Change x : b.get(j)) {
                                touchedLater |= b.get(i).stream().anyMatch(y -> y.key() == x.key());
                            }
                        }
                        if (!touchedLater) {
                            lagging.add(i);
                        }
                    }
                    return new Scenario(txs, watch, snap, mark, lagging, c);
                });
    }

    @Property(tries = 2000)
    void theTargetEndsAsTheSourceWasAtTheWatermark(@ForAll("scenarios") Scenario s) {
        List<Tx> txs = s.txs();
        long[] lsn = new long[txs.size()];
        for (int i = 0; i < lsn.length; i++) {
            lsn[i] = 0x1_0000_0000L + 100L * (i + 1);
        }
        // The snapshot: what had committed visibly before it; everything else with an ID below xmax is in progress.
        long xmax = 0;
        for (int i = 0; i < s.snap(); i++) {
            xmax = Math.max(xmax, txs.get(i).fullXid() + 1);
        }
        if (xmax == 0) {
            xmax = txs.isEmpty() ? (1L << 32) + 2000 : txs.stream().mapToLong(Tx::fullXid).min().getAsLong();
        }
        TreeSet<Long> inProgress = new TreeSet<>();
        for (int i = 0; i < txs.size(); i++) {
            boolean visible = i < s.snap() && !s.lagging().contains(i);
            if (!visible && txs.get(i).fullXid() < xmax) {
                inProgress.add(txs.get(i).fullXid());
            }
        }
        long xmin = inProgress.isEmpty() ? xmax : inProgress.first();
        long takenAt = s.snap() == 0 ? 0x1_0000_0000L : lsn[s.snap() - 1] + 1;
        VisibleTransactions seen = new VisibleTransactions(xmin, xmax, inProgress.stream().mapToLong(Long::longValue).toArray(), takenAt);

        Map<Integer, Integer> chunk = new HashMap<>();
        for (int i = 0; i < s.snap(); i++) {
            if (!s.lagging().contains(i)) {
                apply(chunk, txs.get(i));
            }
        }
        RecentCommits recent = new RecentCommits();
        ChangedKeys changed = new ChangedKeys();
        Map<Integer, Integer> source = new HashMap<>();
        Map<Integer, Integer> target = new HashMap<>(s.corrupted());
        for (int i = 0; i < s.mark(); i++) {
            if (i == s.watch()) {
                recent.watchFromNow();
            }
            Tx tx = txs.get(i);
            if (i >= s.watch()) {
                for (Change c : tx.changes()) {
                    changed.changed(tx.xid(), lsn[i], new KeyValues(new Object[] {c.key()}));
                }
            }
            recent.committed(tx.xid(), lsn[i]);
            apply(source, tx);
            apply(target, tx);
        }
        if (s.watch() >= s.mark()) {
            recent.watchFromNow();
        }
        if (recent.unseenBeforeWatching(seen)) {
            boolean laggedBeforeWatch = s.lagging().stream().anyMatch(i -> i < s.watch());
            assertThat(laggedBeforeWatch).as("a chunk is read again only for a transaction decoded unseen before the watch").isTrue();
            return;
        }
        ChangedKeys.Unseen unseen = changed.unseenBy(seen);
        Set<Integer> keep = new HashSet<>(chunk.keySet());
        unseen.keys().forEach(k -> keep.add((Integer) k.values()[0]));
        chunk.forEach((k, v) -> {
            if (!unseen.keys().contains(new KeyValues(new Object[] {k}))) {
                target.put(k, v);
            }
        });
        target.keySet().retainAll(keep);
        assertThat(target).isEqualTo(source);
    }

    private static void apply(Map<Integer, Integer> rows, Tx tx) {
        for (Change c : tx.changes()) {
            if (c.value() == null) {
                rows.remove(c.key());
            } else {
                rows.put(c.key(), c.value());
            }
        }
    }
}
