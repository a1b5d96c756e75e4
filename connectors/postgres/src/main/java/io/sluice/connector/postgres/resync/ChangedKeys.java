package io.sluice.connector.postgres.resync;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import io.sluice.connector.postgres.snapshot.VisibleTransactions;

/**
 * The keys the stream changed in the table being re-synced, by transaction, for as long as a
 * chunk's snapshot might not have seen that transaction: at a chunk's watermark, the keys of
 * transactions its snapshot did not see are the stream's (their rows in the chunk are older), and
 * the rest of the chunk is current. A transaction below a snapshot's {@code xmin} is seen by every
 * later snapshot too, and is forgotten; so this holds about what committed while one chunk was
 * read and streamed, not the whole re-sync. A truncation the snapshot did not see voids the chunk.
 */
public final class ChangedKeys {

    private record Changed(int xid, long commitLsn, List<KeyValues> keys, boolean truncated) {
    }

    private final List<Changed> changes = new ArrayList<>();
    private Changed open;

    /** Keys a transaction changed (its old and new keys); called in stream order. */
    public void changed(int xid, long commitLsn, KeyValues key) {
        transaction(xid, commitLsn, false).keys().add(key);
    }

    /** The transaction emptied the table. */
    public void truncated(int xid, long commitLsn) {
        Changed last = transaction(xid, commitLsn, true);
        if (!last.truncated()) {
            changes.set(changes.size() - 1, new Changed(xid, commitLsn, last.keys(), true));
            open = changes.get(changes.size() - 1);
        }
    }

    private Changed transaction(int xid, long commitLsn, boolean truncated) {
        if (open == null || open.xid() != xid || open.commitLsn() != commitLsn) {
            open = new Changed(xid, commitLsn, new ArrayList<>(), truncated);
            changes.add(open);
        }
        return open;
    }

    /**
     * What the stream carried that a snapshot did not see.
     *
     * @param keys      the keys changed by transactions it did not see
     * @param truncated whether one of them emptied the table
     */
    public record Unseen(Set<KeyValues> keys, boolean truncated) {
    }

    /** The changes so far that {@code seen} did not see. */
    public Unseen unseenBy(VisibleTransactions seen) {
        Set<KeyValues> keys = new HashSet<>();
        boolean truncated = false;
        for (Changed c : changes) {
            if (!seen.saw(c.xid(), c.commitLsn())) {
                keys.addAll(c.keys());
                truncated |= c.truncated();
            }
        }
        return new Unseen(keys, truncated);
    }

    /** Forgets the transactions every snapshot from now on sees: those below {@code seen}'s xmin. */
    public void forgetSeenByAll(VisibleTransactions seen) {
        for (Iterator<Changed> i = changes.iterator(); i.hasNext(); ) {
            Changed c = i.next();
            if (seen.belowXmin(c.xid())) {
                i.remove();
            }
        }
        if (changes.isEmpty() || changes.get(changes.size() - 1) != open) {
            open = null;
        }
    }

    /** Transactions remembered. */
    public int size() {
        return changes.size();
    }

    public void clear() {
        changes.clear();
        open = null;
    }
}
