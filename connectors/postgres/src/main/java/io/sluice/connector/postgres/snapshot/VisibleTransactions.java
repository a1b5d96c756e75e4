package io.sluice.connector.postgres.snapshot;

import java.util.Arrays;

import io.sluice.schemas.postgres.Lsn;

/**
 * The transactions a snapshot saw, as PostgreSQL's {@code pg_current_snapshot()} describes
 * them: every transaction below {@code xmin}, and those from {@code xmin} up to {@code xmax}
 * that were not in progress, plus the WAL insert position read just after it was taken, which
 * every commit it saw lies below.
 *
 * <p>A table read whole under a snapshot of its own (a snapshot resumed after the slot's own
 * snapshot was lost with a crash) already holds the changes of the transactions that snapshot
 * saw; the stream, which replays from the slot's older position, drops them for that table.
 * Transaction IDs in pgoutput are 32 bits; a snapshot's are 64 (with the epoch): a committed
 * transaction's full ID is within 2^31 of the snapshot's {@code xmax}, which recovers it.
 *
 * @param inProgress sorted
 * @param takenAt    the WAL insert position just after the snapshot was taken
 */
public record VisibleTransactions(long xmin, long xmax, long[] inProgress, long takenAt) {

    /** From the text of a {@code pg_snapshot} ({@code xmin:xmax:xip,xip,...}) and the position read after it. */
    public static VisibleTransactions of(String snapshot, long takenAt) {
        String[] parts = snapshot.split(":", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("Not a snapshot: " + snapshot);
        }
        long[] xip = parts[2].isEmpty() ? new long[0] : Arrays.stream(parts[2].split(",")).mapToLong(Long::parseLong).sorted().toArray();
        return new VisibleTransactions(Long.parseLong(parts[0]), Long.parseLong(parts[1]), xip, takenAt);
    }

    /** Reads what {@link #encode()} wrote. */
    public static VisibleTransactions decode(String encoded) {
        int at = encoded.lastIndexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("Not an encoded snapshot: " + encoded);
        }
        return of(encoded.substring(0, at), Lsn.parse(encoded.substring(at + 1)));
    }

    /** A compact text form for source offsets. */
    public String encode() {
        StringBuilder b = new StringBuilder().append(xmin).append(':').append(xmax).append(':');
        for (int i = 0; i < inProgress.length; i++) {
            b.append(i == 0 ? "" : ",").append(inProgress[i]);
        }
        return b.append('@').append(Lsn.format(takenAt)).toString();
    }

    /** Whether the snapshot saw the transaction with this (32-bit) ID that committed at {@code commitLsn}. */
    public boolean saw(int xid, long commitLsn) {
        if (Long.compareUnsigned(commitLsn, takenAt) > 0) {
            return false; // committed after the snapshot was taken
        }
        long full = widen(xid);
        if (full < xmin) {
            return true;
        }
        return full < xmax && Arrays.binarySearch(inProgress, full) < 0;
    }

    /** Whether the transaction with this (32-bit) ID is below the snapshot's xmin: this snapshot and every later one saw it. */
    public boolean belowXmin(int xid) {
        return widen(xid) < xmin;
    }

    /**
     * The full ID with these low 32 bits nearest to {@code xmax}: PostgreSQL keeps every ID in
     * use within 2^31 of the next one, so a transaction that commits around the snapshot is there.
     */
    long widen(int xid) {
        long full = (xmax & ~0xFFFF_FFFFL) | Integer.toUnsignedLong(xid);
        if (full >= xmax + HALF) {
            return full - (1L << 32);
        }
        return full < xmax - HALF ? full + (1L << 32) : full;
    }

    private static final long HALF = 1L << 31;

    @Override
    public boolean equals(Object o) {
        return o instanceof VisibleTransactions v && v.xmin == xmin && v.xmax == xmax && v.takenAt == takenAt
                && Arrays.equals(v.inProgress, inProgress);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(xmin) * 31 + Long.hashCode(xmax) * 17 + Arrays.hashCode(inProgress) + Long.hashCode(takenAt);
    }

    @Override
    public String toString() {
        return encode();
    }
}
