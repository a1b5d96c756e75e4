package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.copy.CopyFraming;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.postgres.copy.RowEncoder;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pending changes of one target table, coalesced per key: whatever happened to a key in a
 * batch, only its last state is written (a delete, or the whole row), so each row goes to the
 * target once. The rows go by binary COPY into a temporary staging table, then one statement per
 * kind of change moves them into the table: a {@code DELETE ... USING}, an
 * {@code INSERT ... ON CONFLICT DO UPDATE}, and for rows whose unchanged TOASTed values PostgreSQL
 * did not send, an {@code UPDATE ... FROM} that sets only the columns that were sent, so the
 * stored values stay.
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

    private static final Logger LOG = LoggerFactory.getLogger(ChangeTable.class);
    private static final byte[] HEADER = CopyFraming.header();
    private static final byte[] TRAILER = CopyFraming.trailer();
    private static final short UPSERT = 1;
    private static final short DELETE = 2;
    private static final short MOVE = 3;
    /** Heap a pending change takes beyond its values, measured roughly: its object, array headers, its key and map entry. */
    private static final int OVERHEAD = 200;

    private final String target;
    private final String table;
    private final Schema rowSchema;
    private final RowEncoder encoder;
    private final List<String> keys;
    private final int[] keyIndexes;
    /** Per column written: whether it is a key column. */
    private final boolean[] keyColumn;
    private final String stage;
    private final List<Segment> segments = new ArrayList<>();
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
     */
    public ChangeTable(String schema, String tableName, Schema rowSchema, RowEncoder encoder, List<String> keys) {
        this.target = schema + "." + tableName;
        this.table = Identifiers.quote(schema, tableName);
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
        this.stage = Identifiers.quote("sluice_apply_" + Integer.toHexString((target + "|" + shape + "|" + keys).hashCode()));
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
        Change change = encode(after, Set.of(), false);
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
            Change old = wholeRow(before, "an update");
            Change now = encode(after, unchanged, false);
            count(old, -1);
            count(now.unchanged == null ? now : merge(old, now), 1);
            return;
        }
        Change change = encode(after, unchanged, false);
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
        Change prior = open.states.get(key);
        if (change.unchanged != null && prior != null && prior.op == UPSERT) {
            change = merge(prior, change);
        }
        put(key, change);
    }

    /** A deleted row; {@code before} holds at least its key. */
    public void delete(Struct before) {
        if (keys.isEmpty()) {
            count(wholeRow(before, "a delete"), -1);
            return;
        }
        Change change = deletion(before);
        put(keyOf(change), change);
    }

    /** Forgets the pending changes: the table is emptied before anything that follows. */
    public void truncate() {
        segments.clear();
        open = new Segment();
        bytes = 0;
    }

    private Change deletion(Struct before) {
        Change change = encode(before, Set.of(), true);
        change.op = DELETE;
        return change;
    }

    /**
     * The whole old row of a change to a keyless table, which is all there is to find it by:
     * only a source table with {@code REPLICA IDENTITY FULL} sends it.
     */
    private Change wholeRow(Struct before, String what) {
        if (before == null) {
            throw new DataException("Cannot apply " + what + " to " + target + ": the target table has no primary key or replica "
                    + "identity index, and the change does not carry the whole old row to find it by. Add a primary key to the "
                    + "table on the source and on the target, or set REPLICA IDENTITY FULL on the source table (or exclude it)");
        }
        Change old = encode(before, Set.of(), false);
        if (old.unchanged != null) {
            throw new DataException("Cannot apply " + what + " to " + target + ": the old row came without some of its values");
        }
        return old;
    }

    /** Adds {@code n} copies of a row to a keyless table's pending count of it (negative: copies that went away). */
    private void count(Change row, long n) {
        changes++;
        RowKey key = new RowKey(row.data);
        Change pending = open.states.get(key);
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

    private void put(RowKey key, Change change) {
        change.seq = ++seq;
        changes++;
        Change prior = open.states.remove(key);
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
    private Change merge(Change prior, Change change) {
        WireBuffer out = new WireBuffer(change.data.length + prior.data.length);
        int[] ends = new int[encoder.size()];
        BitSet unchanged = new BitSet();
        for (int i = 0; i < ends.length; i++) {
            Change from = change.unchanged.get(i) ? prior : change;
            out.writeBytes(from.data, from.start(i), from.ends[i] - from.start(i));
            ends[i] = out.size();
            if (from.unchanged != null && from.unchanged.get(i)) {
                unchanged.set(i);
            }
        }
        Change merged = new Change(out.toByteArray(), ends, unchanged.isEmpty() ? null : unchanged);
        merged.op = UPSERT;
        return merged;
    }

    private Change encode(Struct row, Set<String> unchanged, boolean keyOnly) {
        WireBuffer out = new WireBuffer(256);
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
        return new Change(out.toByteArray(), ends, missing);
    }

    private boolean isKey(int column) {
        return keyColumn[column];
    }

    private RowKey keyOf(Change change) {
        WireBuffer out = new WireBuffer(32);
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
         * Writes the changes into the table on the connection, inside the caller's transaction.
         * They can be written again if the transaction fails.
         *
         * @param createdStages staging tables already created on this connection; updated
         */
        public void apply(Connection c, Set<String> createdStages) throws SQLException {
            try (Statement s = c.createStatement()) {
                if (createdStages.add(stage)) {
                    s.execute(stageSql());
                }
                for (int i = 0; i < sealed.size(); i++) {
                    if (i > 0) {
                        s.execute("TRUNCATE " + stage);
                    }
                    if (keys.isEmpty()) {
                        applyCounts(c, s, sealed.get(i));
                    } else {
                        applySegment(c, s, sealed.get(i));
                    }
                }
            }
        }
    }

    private void applySegment(Connection c, Statement s, Segment segment) throws SQLException {
        // Which sets of unchanged columns occur, numbered from 1 (0: every value sent), and how many rows of each op each has.
        Map<BitSet, Integer> groups = new LinkedHashMap<>();
        Map<BitSet, long[]> groupCounts = new LinkedHashMap<>();
        int deletes = 0;
        int upserts = 0;
        for (Change change : segment.states.values()) {
            if (change.unchanged != null) {
                groups.computeIfAbsent(change.unchanged, u -> groups.size() + 1);
                groupCounts.computeIfAbsent(change.unchanged, u -> new long[MOVE + 1])[change.op]++;
            } else if (change.op == DELETE) {
                deletes++;
            } else {
                upserts++;
            }
        }
        copy(c, segment, groups);
        for (Map.Entry<BitSet, Integer> group : groups.entrySet()) {
            long moves = groupCounts.get(group.getKey())[MOVE];
            if (moves > 0) {
                int moved = s.executeUpdate("UPDATE " + table + " AS t SET " + assignments(group.getKey(), true) + " FROM " + stage
                        + " AS s WHERE s.\"$op\" = " + MOVE + " AND s.\"$grp\" = " + group.getValue() + " AND " + keyMatch(true));
                missing(moved, moves, "moved to a new key");
            }
        }
        if (deletes > 0) {
            s.executeUpdate("DELETE FROM " + table + " AS t USING " + stage + " AS s WHERE s.\"$op\" = " + DELETE + " AND " + keyMatch(false));
        }
        if (upserts > 0) {
            s.executeUpdate(upsertSql());
        }
        for (Map.Entry<BitSet, Integer> group : groups.entrySet()) {
            long updates = groupCounts.get(group.getKey())[UPSERT];
            String set = assignments(group.getKey(), false);
            if (set.isEmpty() || updates == 0) {
                continue; // only unchanged values besides the key: nothing to write
            }
            int updated = s.executeUpdate("UPDATE " + table + " AS t SET " + set + " FROM " + stage + " AS s WHERE s.\"$op\" = " + UPSERT
                    + " AND s.\"$grp\" = " + group.getValue() + " AND " + keyMatch(false));
            missing(updated, updates, "updated");
        }
    }

    /**
     * A keyless table's batch: as many copies of each row deleted as went away, found by all
     * their values (compared as text, which every type has), then as many inserted as came.
     */
    private void applyCounts(Connection c, Statement s, Segment segment) throws SQLException {
        long gone = 0;
        boolean added = false;
        for (Change change : segment.states.values()) {
            gone += Math.max(0, -change.count);
            added |= change.count > 0;
        }
        copy(c, segment, Map.of());
        if (gone > 0) {
            StringJoiner stored = new StringJoiner(", ", "ROW(", ")::text");
            StringJoiner staged = new StringJoiner(", ", "ROW(", ")::text");
            for (int i = 0; i < encoder.size(); i++) {
                String name = Identifiers.quote(encoder.name(i));
                stored.add("t." + name + "::text");
                staged.add("(" + encoder.castFrom(i, "s." + name) + ")::text");
            }
            int deleted = s.executeUpdate("DELETE FROM " + table + " WHERE ctid = ANY (ARRAY(SELECT m.ctid FROM (SELECT t.ctid, s.\"$n\", "
                    + "row_number() OVER (PARTITION BY s.\"$seq\") AS copy FROM " + table + " AS t JOIN " + stage + " AS s ON " + stored
                    + " = " + staged + " WHERE s.\"$n\" < 0) m WHERE m.copy <= -m.\"$n\"))");
            if (deleted < gone) {
                LOG.warn("{} of {} rows of {} that changed or went away on the source were not found on the target (no key: found by all "
                        + "their values). Was the target table changed outside Sluice? Copy the table again to repair it.", gone - deleted,
                        gone, target);
            }
        }
        if (added) {
            StringJoiner select = new StringJoiner(", ");
            for (int i = 0; i < encoder.size(); i++) {
                select.add(encoder.castFrom(i, "s." + Identifiers.quote(encoder.name(i))));
            }
            s.executeUpdate("INSERT INTO " + table + " (" + columnList() + ") OVERRIDING SYSTEM VALUE SELECT " + select + " FROM " + stage
                    + " AS s, generate_series(1, s.\"$n\") WHERE s.\"$n\" > 0 ORDER BY s.\"$seq\"");
        }
    }

    /**
     * Rows whose unchanged values only the target holds must be there; if some are not (the
     * target was changed behind Sluice's back), their other values cannot be written whole.
     */
    private void missing(long written, long expected, String what) {
        if (written < expected) {
            LOG.warn("{} of {} rows of {} {} with unchanged TOASTed values were not found on the target, so they could not be written: "
                    + "their unchanged values exist only in the source. Was the target table changed outside Sluice? Copy the table "
                    + "again to repair it.", expected - written, expected, target, what);
        }
    }

    private String stageSql() {
        StringJoiner select = new StringJoiner(", ");
        for (int i = 0; i < encoder.size(); i++) {
            String name = Identifiers.quote(encoder.name(i));
            select.add(encoder.asText(i) ? name + "::text AS " + name : name);
        }
        select.add("0::int8 AS \"$seq\"").add("0::int2 AS \"$op\"").add("0::int4 AS \"$grp\"");
        for (int k : keyIndexes) {
            String name = Identifiers.quote(encoder.name(k));
            select.add((encoder.asText(k) ? name + "::text" : name) + " AS " + Identifiers.quote("$old_" + encoder.name(k)));
        }
        if (keys.isEmpty()) {
            select.add("0::int8 AS \"$n\"");
        }
        return "CREATE TEMP TABLE IF NOT EXISTS " + stage + " ON COMMIT DELETE ROWS AS SELECT " + select + " FROM " + table + " WITH NO DATA";
    }

    private String columnList() {
        StringJoiner list = new StringJoiner(", ");
        encoder.names().forEach(n -> list.add(Identifiers.quote(n)));
        return list.toString();
    }

    private String upsertSql() {
        StringJoiner select = new StringJoiner(", ");
        StringJoiner updates = new StringJoiner(", ");
        for (int i = 0; i < encoder.size(); i++) {
            String name = Identifiers.quote(encoder.name(i));
            select.add(encoder.castFrom(i, "s." + name));
            if (!isKey(i)) {
                updates.add(name + " = EXCLUDED." + name);
            }
        }
        String sql = "INSERT INTO " + table + " (" + columnList() + ") OVERRIDING SYSTEM VALUE SELECT " + select + " FROM " + stage
                + " AS s WHERE s.\"$op\" = " + UPSERT + " AND s.\"$grp\" = 0 ORDER BY s.\"$seq\"";
        if (keys.isEmpty()) {
            return sql;
        }
        StringJoiner conflict = new StringJoiner(", ", " ON CONFLICT (", ")");
        keys.forEach(k -> conflict.add(Identifiers.quote(k)));
        return sql + conflict + (updates.length() == 0 ? " DO NOTHING" : " DO UPDATE SET " + updates);
    }

    /** {@code col = s.col} for every column sent: with {@code withKey}, the key columns too. */
    private String assignments(BitSet unchanged, boolean withKey) {
        StringJoiner set = new StringJoiner(", ");
        for (int i = 0; i < encoder.size(); i++) {
            if (unchanged.get(i) || (!withKey && isKey(i))) {
                continue;
            }
            String name = Identifiers.quote(encoder.name(i));
            set.add(name + " = " + encoder.castFrom(i, "s." + name));
        }
        return set.toString();
    }

    /** Matches target rows to staged ones by key: their new key, or with {@code old}, the key they had. */
    private String keyMatch(boolean old) {
        StringJoiner match = new StringJoiner(" AND ");
        for (int k : keyIndexes) {
            String name = encoder.name(k);
            String staged = "s." + Identifiers.quote(old ? "$old_" + name : name);
            match.add("t." + Identifiers.quote(name) + " = " + encoder.castFrom(k, staged));
        }
        return match.toString();
    }

    private void copy(Connection c, Segment segment, Map<BitSet, Integer> groups) throws SQLException {
        WireBuffer tuples = new WireBuffer(64 * 1024);
        int width = encoder.size() + 3 + keyIndexes.length + (keys.isEmpty() ? 1 : 0);
        StringJoiner columns = new StringJoiner(", ", " (", ")");
        encoder.names().forEach(n -> columns.add(Identifiers.quote(n)));
        columns.add("\"$seq\"").add("\"$op\"").add("\"$grp\"");
        for (int k : keyIndexes) {
            columns.add(Identifiers.quote("$old_" + encoder.name(k)));
        }
        if (keys.isEmpty()) {
            columns.add("\"$n\"");
        }
        CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + stage + columns + " FROM STDIN (FORMAT binary)");
        try {
            copy.writeToCopy(HEADER, 0, HEADER.length);
            for (Change change : segment.states.values()) {
                tuples.writeShort(width);
                tuples.writeBytes(change.data);
                tuples.writeInt(8).writeLong(change.seq);
                tuples.writeInt(2).writeShort(change.op);
                tuples.writeInt(4).writeInt(change.unchanged == null ? 0 : groups.get(change.unchanged));
                if (change.oldKey != null) {
                    tuples.writeBytes(change.oldKey.bytes());
                } else {
                    for (int k = 0; k < keyIndexes.length; k++) {
                        tuples.writeInt(-1);
                    }
                }
                if (keys.isEmpty()) {
                    tuples.writeInt(8).writeLong(change.count);
                }
                if (tuples.size() >= 1 << 20) {
                    copy.writeToCopy(tuples.array(), 0, tuples.size());
                    tuples.clear();
                }
            }
            tuples.writeBytes(TRAILER);
            copy.writeToCopy(tuples.array(), 0, tuples.size());
            copy.endCopy();
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
    }

    /** One row's pending state: its values as COPY fields (length-prefixed), end offsets per column. */
    private static final class Change {
        final byte[] data;
        final int[] ends;
        /** Columns whose values were not sent; null when all were. */
        final BitSet unchanged;
        short op;
        long seq;
        RowKey oldKey;
        /** For a keyless table: copies of the row added (negative: taken away) by the pending changes. */
        long count;

        Change(byte[] data, int[] ends, BitSet unchanged) {
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

    /** Changes applied together; within one, every key has at most one state. */
    private static final class Segment {
        final LinkedHashMap<RowKey, Change> states = new LinkedHashMap<>();
    }
}
