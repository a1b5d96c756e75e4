package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;

import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.postgres.copy.RowEncoder;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * The pending changes of one target table, coalesced per key: whatever happened to a key in a
 * batch, only its last state is written (a delete, or the whole row), so each row goes to the
 * target once. The rows go by binary COPY into a temporary staging table, then one statement per
 * kind of change moves them into the table: a {@code DELETE ... USING}, an {@code UPDATE ... FROM}
 * for rows whose last change was an update, an {@code INSERT ... ON CONFLICT DO UPDATE} for the
 * rest, and for rows whose unchanged TOASTed values PostgreSQL did not send, an
 * {@code UPDATE ... FROM} that sets only the columns that were sent, so the stored values stay.
 *
 * <p>A key change whose unchanged values are not in the batch must be applied on the stored row
 * in place, after everything before it: it closes the current segment of changes, goes alone in
 * its own, and later changes start a new one. Segments are applied in order.
 *
 * <p>A table without a key (its source has {@code REPLICA IDENTITY FULL}, so changes carry the
 * whole old row) is a multiset of rows: an update takes one copy of the old row away and adds
 * the new one, a delete takes one away. In that arithmetic the order of changes does not
 * matter, so a batch comes down to a count per distinct row: one statement deletes as many
 * copies as the count says went away, one inserts as many as came.
 */
public final class ChangeTable {

    private static final short UPSERT = PendingChange.UPSERT;
    private static final short DELETE = PendingChange.DELETE;
    private static final short MOVE = PendingChange.MOVE;
    private static final short UPDATE = PendingChange.UPDATE;

    private final String target;
    private final Schema rowSchema;
    private final RowEncoder encoder;
    private final List<String> keys;
    private final int[] keyIndexes;
    /** Per column written: whether it is a key column. */
    private final boolean[] keyColumn;
    private final SegmentWriter writer;
    private final List<Segment> segments = new ArrayList<>();
    /** Where a change or key is written before it is copied out at its size: one buffer, not one per change. */
    private final WireBuffer scratch = new WireBuffer(256);
    private final WireBuffer keyScratch = new WireBuffer(32);
    private Segment open = new Segment();
    private long seq;
    private long bytes;
    private long changes;

    /**
     * @param schema     target schema
     * @param tableName  target table
     * @param encoder    writes the incoming rows as the target's columns
     * @param keys       the target's key columns (primary key or replica identity index); empty
     *                   for a table without one, whose rows are found by all their values
     * @param keyOrders  what the target's keys sort by (shared by all tables of a sink)
     */
    ChangeTable(String schema, String tableName, Schema rowSchema, RowEncoder encoder, List<String> keys, TargetKeyOrders keyOrders) {
        this.target = schema + "." + tableName;
        this.rowSchema = rowSchema;
        this.encoder = encoder;
        this.keys = List.copyOf(keys);
        this.keyIndexes = new int[keys.size()];
        this.keyColumn = new boolean[encoder.size()];
        for (int k = 0; k < keys.size(); k++) {
            keyIndexes[k] = encoder.indexOf(keys.get(k));
            if (keyIndexes[k] < 0) {
                throw new DataException("The changes of " + target + " do not carry its key column " + keys.get(k)
                        + "; the source table and the target must have the same key");
            }
            keyColumn[keyIndexes[k]] = true;
        }
        StringJoiner shape = new StringJoiner(",");
        for (int i = 0; i < encoder.size(); i++) {
            shape.add(encoder.name(i) + " " + encoder.type(i) + (encoder.asText(i) ? " text" : ""));
        }
        this.writer = new SegmentWriter(target, Identifiers.quote(schema, tableName), encoder, this.keys, keyIndexes, keyColumn,
                Identifiers.quote("sluice_apply_" + Integer.toHexString((target + "|" + shape + "|" + keys).hashCode())), keyOrders);
    }

    /** The row schema the pending changes were written with. */
    public Schema rowSchema() {
        return rowSchema;
    }

    public String target() {
        return target;
    }

    /** Approximate memory the pending changes hold. */
    public long bytes() {
        return bytes;
    }

    /** Changes taken since the last {@link #clear()}, before coalescing. */
    public long changes() {
        return changes;
    }

    public boolean isEmpty() {
        return open.states.isEmpty() && segments.isEmpty();
    }

    /** A new row. */
    public void insert(Struct after) {
        PendingChange change = encode(after, Set.of(), false);
        change.op = UPSERT;
        if (keys.isEmpty()) {
            count(change, 1);
        } else {
            put(keyOf(change), change);
        }
    }

    /**
     * A changed row.
     *
     * @param before    the old row or its key; null when the key did not change and the table's
     *                  replica identity sends no old row
     * @param unchanged columns whose values PostgreSQL did not send (unchanged TOAST): the stored values stay
     */
    public void update(Struct before, Struct after, Set<String> unchanged) {
        if (keys.isEmpty()) {
            PendingChange old = wholeRow(before, "an update");
            PendingChange now = encode(after, unchanged, false);
            count(old, -1);
            count(now.unchanged == null ? now : merge(old, now), 1);
            return;
        }
        PendingChange change = encode(after, unchanged, false);
        change.op = UPSERT;
        RowKey key = keyOf(change);
        RowKey oldKey = before == null ? key : keyOf(encode(before, Set.of(), true));
        if (!oldKey.equals(key)) {
            if (change.unchanged == null) {
                put(oldKey, deletion(before));
                put(key, change);
                return;
            }
            // The row moved to a new key but kept values only the stored row has: update it in place, in order.
            change.op = MOVE;
            change.oldKey = oldKey;
            closeSegment();
            put(key, change);
            closeSegment();
            return;
        }
        PendingChange prior = open.states.get(key);
        if (change.unchanged != null && prior != null && (prior.op == UPSERT || prior.op == UPDATE)) {
            change = merge(prior, change);
        } else if (change.unchanged == null) {
            change.op = UPDATE;
        }
        put(key, change);
    }

    /** A deleted row; {@code before} holds at least its key. */
    public void delete(Struct before) {
        if (keys.isEmpty()) {
            count(wholeRow(before, "a delete"), -1);
            return;
        }
        PendingChange change = deletion(before);
        put(keyOf(change), change);
    }

    /**
     * The end of a re-synced chunk, after everything before it: the target's rows with a key in the
     * range (after {@code from}, through {@code to}; null ends are open) and none of {@code keep}
     * are deleted. The table's row schema must be the key's ({@code keep}'s elements').
     *
     * @param order what the key columns sort by on the source: the range is left alone where the target sorts otherwise
     */
    public void keyRange(Struct from, Struct to, List<Struct> keep, List<String> order) {
        closeSegment();
        open.rangeOrder = List.copyOf(order);
        for (Struct key : keep) {
            PendingChange change = encode(key, Set.of(), true);
            change.op = PendingChange.KEEP;
            put(keyOf(change), change);
        }
        end(from, PendingChange.FROM);
        end(to, PendingChange.TO);
        if (open.states.isEmpty()) {
            // No key stays and both ends are open: the segment still deletes, so it must not be dropped as empty.
            PendingChange none = encode(new Struct(rowSchema), Set.of(), true);
            none.op = PendingChange.KEEP;
            put(new RowKey(new byte[] {PendingChange.KEEP}), none);
        }
        segments.add(open);
        open = new Segment();
    }

    private void end(Struct key, short op) {
        if (key == null) {
            return;
        }
        PendingChange change = encode(key, Set.of(), true);
        change.op = op;
        byte[] bytes = keyOf(change).bytes();
        byte[] tagged = new byte[bytes.length + 1];
        tagged[0] = (byte) op; // apart from the kept keys, one of which it may equal
        System.arraycopy(bytes, 0, tagged, 1, bytes.length);
        put(new RowKey(tagged), change);
    }

    /** Forgets the pending changes: the table is emptied before anything that follows. */
    public void truncate() {
        segments.clear();
        open = new Segment();
        bytes = 0;
    }

    private PendingChange deletion(Struct before) {
        PendingChange change = encode(before, Set.of(), true);
        change.op = DELETE;
        return change;
    }

    /**
     * The whole old row of a change to a keyless table, which is all there is to find it by:
     * only a source table with {@code REPLICA IDENTITY FULL} sends it.
     */
    private PendingChange wholeRow(Struct before, String what) {
        if (before == null) {
            throw new DataException("Cannot apply " + what + " to " + target + ": the target table has no primary key or replica "
                    + "identity index, and the change does not carry the whole old row to find it by. Add a primary key to the "
                    + "table on the source and on the target, or set REPLICA IDENTITY FULL on the source table (or exclude it)");
        }
        PendingChange old = encode(before, Set.of(), false);
        if (old.unchanged != null) {
            throw new DataException("Cannot apply " + what + " to " + target + ": the old row came without some of its values");
        }
        return old;
    }

    /** Adds {@code n} copies of a row to a keyless table's pending count of it (negative: copies that went away). */
    private void count(PendingChange row, long n) {
        changes++;
        RowKey key = new RowKey(row.data);
        PendingChange pending = open.states.get(key);
        if (pending == null) {
            row.op = UPSERT;
            row.seq = ++seq;
            row.count = n;
            open.states.put(key, row);
            bytes += row.size();
        } else if ((pending.count += n) == 0) {
            open.states.remove(key);
            bytes -= pending.size();
        }
    }

    private void put(RowKey key, PendingChange change) {
        change.seq = ++seq;
        changes++;
        PendingChange prior = open.states.remove(key);
        if (prior != null) {
            bytes -= prior.size();
        }
        open.states.put(key, change);
        bytes += change.size();
    }

    private void closeSegment() {
        if (!open.states.isEmpty()) {
            segments.add(open);
            open = new Segment();
        }
    }

    /** The changed row with the values of {@code prior} where {@code change} has none. */
    private PendingChange merge(PendingChange prior, PendingChange change) {
        WireBuffer out = new WireBuffer(change.data.length + prior.data.length);
        int[] ends = new int[encoder.size()];
        BitSet unchanged = new BitSet();
        for (int i = 0; i < ends.length; i++) {
            PendingChange from = change.unchanged.get(i) ? prior : change;
            out.writeBytes(from.data, from.start(i), from.ends[i] - from.start(i));
            ends[i] = out.size();
            if (from.unchanged != null && from.unchanged.get(i)) {
                unchanged.set(i);
            }
        }
        PendingChange merged = new PendingChange(out.toByteArray(), ends, unchanged.isEmpty() ? null : unchanged);
        merged.op = UPSERT;
        return merged;
    }

    private PendingChange encode(Struct row, Set<String> unchanged, boolean keyOnly) {
        WireBuffer out = scratch;
        out.clear();
        int[] ends = new int[encoder.size()];
        BitSet missing = null;
        for (int i = 0; i < ends.length; i++) {
            if (keyOnly && !isKey(i)) {
                out.writeInt(-1);
            } else if (!unchanged.isEmpty() && unchanged.contains(encoder.name(i))) {
                out.writeInt(-1);
                missing = missing == null ? new BitSet() : missing;
                missing.set(i);
            } else {
                encoder.write(row, i, out);
            }
            ends[i] = out.size();
        }
        return new PendingChange(out.toByteArray(), ends, missing);
    }

    private boolean isKey(int column) {
        return keyColumn[column];
    }

    private RowKey keyOf(PendingChange change) {
        WireBuffer out = keyScratch;
        out.clear();
        for (int k : keyIndexes) {
            out.writeBytes(change.data, change.start(k), change.ends[k] - change.start(k));
        }
        return new RowKey(out.toByteArray());
    }

    /**
     * Takes the pending changes out, to be written by {@link Sealed#apply} while this table
     * gathers the next ones; null when none are pending.
     */
    public Sealed seal() {
        closeSegment();
        changes = 0;
        if (segments.isEmpty()) {
            return null;
        }
        Sealed sealed = new Sealed(List.copyOf(segments));
        segments.clear();
        bytes = 0;
        return sealed;
    }

    /** Changes taken out of the table, to be written in one target transaction. */
    public final class Sealed {
        private final List<Segment> sealed;

        private Sealed(List<Segment> sealed) {
            this.sealed = sealed;
        }

        /**
         * Stages the changes and queues the statements that write them into the table, inside the
         * caller's transaction (a later segment's rows replace the staged ones only after the
         * statements queued for them ran). They can be written again if the transaction fails.
         *
         * @param createdStages staging tables already created on this connection; updated
         */
        void apply(Connection c, Statement s, Set<String> createdStages, QueuedStatements queue) throws SQLException {
            if (createdStages.add(writer.stage())) {
                s.execute(writer.stageSql());
            }
            for (int i = 0; i < sealed.size(); i++) {
                if (i > 0) {
                    queue.run(s);
                    s.execute("TRUNCATE " + writer.stage());
                }
                if (keys.isEmpty()) {
                    writer.writeCounts(c, s, sealed.get(i), queue);
                } else {
                    writer.writeKeyed(c, s, sealed.get(i), queue);
                }
            }
        }
    }


}
