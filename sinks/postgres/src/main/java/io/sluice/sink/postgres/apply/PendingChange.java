package io.sluice.sink.postgres.apply;

import java.util.BitSet;

/** One row's pending state in a {@link ChangeTable}: its values as COPY fields (length-prefixed), end offsets per column. */
final class PendingChange {

    /** A whole row to insert, or to update where the target has its key. */
    static final short UPSERT = 1;
    static final short DELETE = 2;
    /** A row moved to a new key, with values only the stored row has: updated in place. */
    static final short MOVE = 3;
    /** A whole row whose last change in the batch was an update of it under the same key: most likely on the target already. */
    static final short UPDATE = 4;
    /** A key in a re-synced chunk's range whose row stays. */
    static final short KEEP = 5;
    /** The key a re-synced chunk's range starts after. */
    static final short FROM = 6;
    /** The last key of a re-synced chunk's range. */
    static final short TO = 7;
    /** Heap a pending change takes beyond its values, measured roughly: its object, array headers, its key and map entry. */
    private static final int OVERHEAD = 200;

    final byte[] data;
    final int[] ends;
    /** Columns whose values were not sent; null when all were. */
    final BitSet unchanged;
    short op;
    long seq;
    RowKey oldKey;
    /** For a keyless table: copies of the row added (negative: taken away) by the pending changes. */
    long count;

    PendingChange(byte[] data, int[] ends, BitSet unchanged) {
        this.data = data;
        this.ends = ends;
        this.unchanged = unchanged;
    }

    int start(int column) {
        return column == 0 ? 0 : ends[column - 1];
    }

    long size() {
        return data.length + 4L * ends.length + OVERHEAD;
    }
}
