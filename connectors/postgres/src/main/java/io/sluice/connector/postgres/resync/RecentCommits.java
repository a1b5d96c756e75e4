package io.sluice.connector.postgres.resync;

import io.sluice.connector.postgres.snapshot.VisibleTransactions;

/**
 * The last transactions the stream decoded, whatever they touched, and the commit position a
 * table began to be watched from ({@link ChangedKeys} holds what it decodes after). A transaction
 * decoded before that which a chunk's snapshot does not see (its commit is in the WAL but not yet
 * visible, as under synchronous replication, where a commit waits for the standby before others
 * see it) changed keys no one noted: such a chunk is read again.
 */
public final class RecentCommits {

    static final int SIZE = 1024;

    private final int[] xids = new int[SIZE];
    private final long[] lsns = new long[SIZE];
    private int next;
    private long last;
    private long watchedFrom;

    /** A transaction the stream decoded committed (in stream order). */
    public void committed(int xid, long commitLsn) {
        xids[next] = xid;
        lsns[next] = commitLsn;
        next = (next + 1) % SIZE;
        last = commitLsn;
    }

    /** A table begins to be watched now: its changes from the next transaction on are noted. */
    public void watchFromNow() {
        watchedFrom = last;
    }

    /** Whether a transaction decoded before the watch began is one the snapshot did not see. */
    public boolean unseenBeforeWatching(VisibleTransactions seen) {
        for (int i = 0; i < SIZE; i++) {
            if (lsns[i] != 0 && Long.compareUnsigned(lsns[i], watchedFrom) <= 0 && !seen.saw(xids[i], lsns[i])) {
                return true;
            }
        }
        return false;
    }
}
