package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.copy.CopyFraming;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.postgres.copy.RowEncoder;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a {@link ChangeTable}'s sealed segments into the target table, inside the caller's
 * transaction: the rows by binary COPY into a temporary staging table, then one set-based
 * statement per kind of change (see {@link ChangeTable} for which and why), queued to go with
 * the other tables' ({@link QueuedStatements}).
 */
final class SegmentWriter {

    private static final Logger LOG = LoggerFactory.getLogger(SegmentWriter.class);
    private static final byte[] HEADER = CopyFraming.header();
    private static final byte[] TRAILER = CopyFraming.trailer();
    private static final String UNIQUE_VIOLATION = "23505";
    private static final short UPSERT = PendingChange.UPSERT;
    private static final short DELETE = PendingChange.DELETE;
    private static final short MOVE = PendingChange.MOVE;
    private static final short UPDATE = PendingChange.UPDATE;

    private final String target;
    private final String table;
    private final RowEncoder encoder;
    private final List<String> keys;
    private final int[] keyIndexes;
    private final boolean[] keyColumn;
    private final String stage;
    private final TargetKeyOrders keyOrders;

    /**
     * @param target     the table's name for messages
     * @param table      the table, quoted
     * @param keyIndexes per key column, its place among the encoder's columns
     * @param keyColumn  per column written, whether it is a key column
     * @param stage      the staging table, quoted
     * @param keyOrders  what the target's keys sort by, for re-synced chunks' key ranges
     */
    SegmentWriter(String target, String table, RowEncoder encoder, List<String> keys, int[] keyIndexes, boolean[] keyColumn,
                  String stage, TargetKeyOrders keyOrders) {
        this.target = target;
        this.table = table;
        this.encoder = encoder;
        this.keys = keys;
        this.keyIndexes = keyIndexes;
        this.keyColumn = keyColumn;
        this.stage = stage;
        this.keyOrders = keyOrders;
    }

    String stage() {
        return stage;
    }

    private boolean isKey(int column) {
        return keyColumn[column];
    }

    /**
     * A keyed table's segment: rows moved to a new key in place first, then deletes, updates,
     * inserts, and last the rows whose unchanged TOASTed values stay as stored.
     */
    void writeKeyed(Connection c, Statement s, Segment segment, QueuedStatements queue) throws SQLException {
        if (segment.rangeOrder != null) {
            writeRange(c, s, segment, queue);
            return;
        }
        // Which sets of unchanged columns occur, numbered from 1 (0: every value sent), and how many rows of each op each has.
        Map<BitSet, Integer> groups = new LinkedHashMap<>();
        Map<BitSet, long[]> groupCounts = new LinkedHashMap<>();
        int deletes = 0;
        int upserts = 0;
        int wholeUpdates = 0;
        for (PendingChange change : segment.states.values()) {
            if (change.unchanged != null) {
                groups.computeIfAbsent(change.unchanged, u -> groups.size() + 1);
                groupCounts.computeIfAbsent(change.unchanged, u -> new long[UPDATE + 1])[change.op]++;
            } else if (change.op == DELETE) {
                deletes++;
            } else if (change.op == UPDATE) {
                wholeUpdates++;
            } else {
                upserts++;
            }
        }
        copy(c, segment, groups);
        for (Map.Entry<BitSet, Integer> group : groups.entrySet()) {
            long moves = groupCounts.get(group.getKey())[MOVE];
            if (moves > 0) {
                queue.add(s, "UPDATE " + table + " AS t SET " + assignments(group.getKey(), true) + " FROM " + stage
                        + " AS s WHERE s.\"$op\" = " + MOVE + " AND s.\"$grp\" = " + group.getValue() + " AND " + keyMatch(true),
                        moved -> missing(moved, moves, "moved to a new key"));
            }
        }
        if (deletes > 0) {
            queue.add(s, "DELETE FROM " + table + " AS t USING " + stage + " AS s WHERE s.\"$op\" = " + DELETE + " AND " + keyMatch(false),
                    rows -> { });
        }
        if (wholeUpdates > 0) {
            updateRows(s, wholeUpdates, queue);
        }
        if (upserts > 0) {
            queue.add(s, upsertSql(UPSERT), rows -> { });
        }
        for (Map.Entry<BitSet, Integer> group : groups.entrySet()) {
            long updates = groupCounts.get(group.getKey())[UPSERT];
            String set = assignments(group.getKey(), false);
            if (set.isEmpty() || updates == 0) {
                continue; // only unchanged values besides the key: nothing to write
            }
            queue.add(s, "UPDATE " + table + " AS t SET " + set + " FROM " + stage + " AS s WHERE s.\"$op\" = " + UPSERT
                    + " AND s.\"$grp\" = " + group.getValue() + " AND " + keyMatch(false), updated -> missing(updated, updates, "updated"));
        }
    }

    /**
     * The end of a re-synced chunk: deletes the rows in its key range whose keys the chunk does not
     * keep (the source does not have them). The range is in the source's order; where a key column
     * sorts otherwise on the target (another collation), the same bounds would take in other rows,
     * so nothing is deleted and that is said once.
     */
    private void writeRange(Connection c, Statement s, Segment segment, QueuedStatements queue) throws SQLException {
        copy(c, segment, Map.of());
        if (!keyOrders.alike(c, table, target, keys, segment.rangeOrder)) {
            return;
        }
        StringJoiner stored = new StringJoiner(", ", "(", ")");
        StringJoiner staged = new StringJoiner(", ");
        for (int k : keyIndexes) {
            String name = Identifiers.quote(encoder.name(k));
            stored.add("t." + name);
            staged.add(encoder.castFrom(k, "s." + name));
        }
        StringJoiner where = new StringJoiner(" AND ");
        boolean from = false;
        boolean to = false;
        for (PendingChange change : segment.states.values()) {
            from |= change.op == PendingChange.FROM;
            to |= change.op == PendingChange.TO;
        }
        if (from) {
            where.add(stored + " > (SELECT " + staged + " FROM " + stage + " AS s WHERE s.\"$op\" = " + PendingChange.FROM + ")");
        }
        if (to) {
            where.add(stored + " <= (SELECT " + staged + " FROM " + stage + " AS s WHERE s.\"$op\" = " + PendingChange.TO + ")");
        }
        where.add("NOT EXISTS (SELECT 1 FROM " + stage + " AS s WHERE s.\"$op\" = " + PendingChange.KEEP + " AND " + keyMatch(false) + ")");
        queue.add(s, "DELETE FROM " + table + " AS t WHERE " + where, deleted -> {
            if (deleted > 0) {
                LOG.info("Re-sync of {}: deleted {} rows the source does not have", target, deleted);
            }
        });
    }

    /**
     * Whole rows whose last change was an update under the same key. An {@code UPDATE ... FROM}
     * finds each by its key, which costs the target about a quarter less than the upsert's insert
     * attempt, and these rows are there unless the target lost them. Should fewer be found than
     * staged, they all go through the upsert, which writes the missing ones whole (and the found
     * ones again, with the same values). The update meets the rows in an order of the planner's
     * choosing, not the source's: where a unique value moved from one row to another within the
     * batch, that can collide midway. Queued with the other statements, the collision fails the
     * transaction, which the applier then writes again with statements run one at a time; then
     * the update is undone to a savepoint and the rows go through the upsert in source order,
     * which does not collide.
     */
    private void updateRows(Statement s, int expected, QueuedStatements queue) throws SQLException {
        String set = assignments(new BitSet(), false);
        if (set.isEmpty()) {
            queue.add(s, upsertSql(UPDATE), rows -> { }); // key columns only: nothing to update, the upsert inserts what is missing
            return;
        }
        String update = "UPDATE " + table + " AS t SET " + set + " FROM " + stage + " AS s WHERE s.\"$op\" = " + UPDATE + " AND "
                + keyMatch(false);
        if (!queue.isImmediate()) {
            queue.add(s, update, updated -> {
                if (updated < expected) {
                    queue.afterwards(upsertSql(UPDATE));
                }
            });
            return;
        }
        // The savepoint, the update and the release go in one round trip: a live stream's batches
        // are small, and their latency is mostly round trips to a target that shares the machine.
        s.addBatch("SAVEPOINT sluice_update");
        s.addBatch(update);
        s.addBatch("RELEASE SAVEPOINT sluice_update");
        int updated;
        try {
            updated = s.executeBatch()[1];
        } catch (SQLException e) {
            s.clearBatch();
            if (!isUniqueViolation(e)) {
                throw e;
            }
            LOG.debug("Updating the rows of {} in the planner's order collided on a unique value ({}); upserting them in source order",
                    target, e.getMessage());
            s.execute("ROLLBACK TO SAVEPOINT sluice_update");
            s.executeUpdate(upsertSql(UPDATE));
            return;
        }
        if (updated < expected) {
            s.executeUpdate(upsertSql(UPDATE));
        }
    }

    /** Whether the error, or one chained to it (a batch's errors are), is a unique violation. */
    static boolean isUniqueViolation(SQLException e) {
        for (SQLException next = e; next != null; next = next.getNextException()) {
            if (UNIQUE_VIOLATION.equals(next.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * A keyless table's batch: as many copies of each row deleted as went away, found by all
     * their values (compared as text, which every type has), then as many inserted as came.
     */
    void writeCounts(Connection c, Statement s, Segment segment, QueuedStatements queue) throws SQLException {
        long gone = 0;
        boolean added = false;
        for (PendingChange change : segment.states.values()) {
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
            long goneRows = gone;
            queue.add(s, "DELETE FROM " + table + " WHERE ctid = ANY (ARRAY(SELECT m.ctid FROM (SELECT t.ctid, s.\"$n\", "
                    + "row_number() OVER (PARTITION BY s.\"$seq\") AS copy FROM " + table + " AS t JOIN " + stage + " AS s ON " + stored
                    + " = " + staged + " WHERE s.\"$n\" < 0) m WHERE m.copy <= -m.\"$n\"))", deleted -> {
                        if (deleted >= 0 && deleted < goneRows) {
                            LOG.warn("{} of {} rows of {} that changed or went away on the source were not found on the target (no key: "
                                    + "found by all their values). Was the target table changed outside Sluice? Copy the table again to "
                                    + "repair it.", goneRows - deleted, goneRows, target);
                        }
                    });
        }
        if (added) {
            StringJoiner select = new StringJoiner(", ");
            for (int i = 0; i < encoder.size(); i++) {
                select.add(encoder.castFrom(i, "s." + Identifiers.quote(encoder.name(i))));
            }
            queue.add(s, "INSERT INTO " + table + " (" + columnList() + ") OVERRIDING SYSTEM VALUE SELECT " + select + " FROM " + stage
                    + " AS s, generate_series(1, s.\"$n\") WHERE s.\"$n\" > 0 ORDER BY s.\"$seq\"", rows -> { });
        }
    }

    /**
     * Rows whose unchanged values only the target holds must be there; if some are not (the
     * target was changed behind Sluice's back), their other values cannot be written whole.
     */
    private void missing(long written, long expected, String what) {
        if (written >= 0 && written < expected) {
            LOG.warn("{} of {} rows of {} {} with unchanged TOASTed values were not found on the target, so they could not be written: "
                    + "their unchanged values exist only in the source. Was the target table changed outside Sluice? Copy the table "
                    + "again to repair it.", expected - written, expected, target, what);
        }
    }

    /** Creates the session's staging table for this table's shape, if it does not exist yet. */
    String stageSql() {
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

    /** Inserts the staged whole rows of {@code op} in source order, updating those whose key the target has. */
    private String upsertSql(short op) {
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
                + " AS s WHERE s.\"$op\" = " + op + " AND s.\"$grp\" = 0 ORDER BY s.\"$seq\"";
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
            for (PendingChange change : segment.states.values()) {
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
}
