package io.sluice.connector.postgres.resync;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.UUID;

import io.sluice.connector.postgres.snapshot.VisibleTransactions;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.schemas.postgres.TextArrays;

/**
 * Reads one chunk of a table being re-synced: the next rows by key after the last key copied, in
 * one repeatable-read transaction that first notes its snapshot (which transactions it sees, see
 * {@link VisibleTransactions}) and last writes the chunk's watermark into the WAL, a transactional
 * logical message ({@value #MESSAGE_PREFIX}) that commits with it. When the stream reaches the
 * watermark it holds every change the snapshot saw and possibly some it did not; the rows of keys
 * those others changed are the stream's to give, and are dropped from the chunk (see
 * {@link ChangedKeys}). This is DBLog's method with the chunk's own snapshot in place of the low
 * watermark: a change is dropped only where the chunk truly lacks it, also a change that
 * committed before the chunk began but was not yet visible to it (under synchronous replication
 * a commit is in the WAL, and decoded, before other sessions see it).
 */
public final class ChunkRead {

    /** Prefix of the watermark messages; their content is {@code <pipeline>/<chunk id>}. */
    public static final String MESSAGE_PREFIX = "sluice.resync";

    /**
     * A table as a re-sync reads it.
     *
     * @param quoted   the table, quoted and qualified
     * @param only     whether to read it without its partitions (it is none, or they are published as themselves)
     * @param columns  the columns read, in the stream's column order
     * @param keys     indexes into {@code columns} of the key columns, in key order
     * @param keyTypes per key column its type, as SQL (to compare the last key's text with)
     * @param filter   the table's row filter, or null
     */
    public record Shape(String quoted, boolean only, List<String> columns, int[] keys, List<String> keyTypes, String filter) {

        /** The chunk query; {@code first}: from the table's start (a predicate that may be true would keep the key's index out). */
        String sql(boolean first) {
            StringJoiner select = new StringJoiner(", ");
            // Named apart from the columns: ORDER BY takes an output column's name before the table's, and would sort the text.
            for (int i = 0; i < columns.size(); i++) {
                select.add(ColumnMapping.outputText(Identifiers.quote(columns.get(i))) + " AS \"$" + i + "\"");
            }
            StringJoiner key = new StringJoiner(", ");
            StringJoiner after = new StringJoiner(", ");
            for (int i = 0; i < keys.length; i++) {
                key.add(Identifiers.quote(columns.get(keys[i])));
                after.add("?::" + keyTypes.get(i));
            }
            String rowKey = keys.length == 1 ? key.toString() : "(" + key + ")";
            String afterKey = keys.length == 1 ? after.toString() : "(" + after + ")";
            StringJoiner where = new StringJoiner(" AND ", " WHERE ", "").setEmptyValue("");
            if (filter != null) {
                where.add("(" + filter + ")");
            }
            if (!first) {
                where.add(rowKey + " > " + afterKey);
            }
            return "SELECT " + select + " FROM " + (only ? "ONLY " : "") + quoted + where + " ORDER BY " + key + " LIMIT ?";
        }

        /** The query of the rows with given keys: one text array per key column, bound in key order. */
        String keysSql() {
            StringJoiner select = new StringJoiner(", ");
            for (int i = 0; i < columns.size(); i++) {
                select.add(ColumnMapping.outputText(Identifiers.quote(columns.get(i))) + " AS \"$" + i + "\"");
            }
            StringJoiner key = new StringJoiner(", ");
            StringJoiner given = new StringJoiner(", ");
            for (int i = 0; i < keys.length; i++) {
                key.add(Identifiers.quote(columns.get(keys[i])));
                given.add(TextArrays.column(i, keyTypes.get(i)));
            }
            String rowKey = keys.length == 1 ? key.toString() : "(" + key + ")";
            String where = (filter == null ? "" : "(" + filter + ") AND ") + rowKey + " IN (SELECT " + given + " FROM "
                    + TextArrays.unnest(keys.length, false) + ")";
            return "SELECT " + select + " FROM " + (only ? "ONLY " : "") + quoted + " WHERE " + where + " ORDER BY " + key;
        }
    }

    /**
     * A chunk read.
     *
     * @param rows     text values in the shape's column order (null for NULL), in key order
     * @param seen     the transactions the read saw
     * @param marker   the watermark's content
     * @param complete whether the chunk read through the table's end (it has fewer rows than asked for)
     */
    public record Chunk(List<String[]> rows, VisibleTransactions seen, String marker, boolean complete) {

        /** The last row's key as text per key column; null when the chunk is empty. */
        public String[] lastKey(Shape shape) {
            if (rows.isEmpty()) {
                return null;
            }
            String[] last = rows.get(rows.size() - 1);
            String[] key = new String[shape.keys().length];
            for (int i = 0; i < key.length; i++) {
                key[i] = last[shape.keys()[i]];
            }
            return key;
        }
    }

    private ChunkRead() {
    }

    /**
     * Reads up to {@code limit} rows after {@code afterKey} (from the start when null) and writes the
     * watermark, in one transaction on {@code c}, which must be a primary's.
     */
    public static Chunk read(Connection c, Shape shape, String[] afterKey, int limit, String pipeline) throws SQLException {
        return inSnapshot(c, pipeline, () -> {
            PreparedStatement s = c.prepareStatement(shape.sql(afterKey == null));
            int p = 1;
            for (int i = 0; afterKey != null && i < shape.keys().length; i++) {
                s.setString(p++, afterKey[i]);
            }
            s.setInt(p, limit);
            s.setFetchSize(Math.min(limit, 2000));
            return s;
        }, shape.columns().size(), rows -> rows.size() < limit);
    }

    /**
     * Reads the rows with these keys (texts per key column, in key order) and writes the
     * watermark, as {@link #read} does; {@code last}: the chunk ends the request.
     */
    public static Chunk readKeys(Connection c, Shape shape, List<String[]> keys, boolean last, String pipeline) throws SQLException {
        return inSnapshot(c, pipeline, () -> {
            PreparedStatement s = c.prepareStatement(shape.keysSql());
            TextArrays.bind(s, shape.keys().length, keys, (k, i) -> k[i]);
            s.setFetchSize(2000);
            return s;
        }, shape.columns().size(), rows -> last);
    }

    @FunctionalInterface
    private interface Query {
        PreparedStatement prepare() throws SQLException;
    }

    private static Chunk inSnapshot(Connection c, String pipeline, Query query, int width,
                                    java.util.function.Predicate<List<String[]>> complete) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try {
            VisibleTransactions seen;
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_current_snapshot()::text, pg_catalog.pg_current_wal_insert_lsn()::text")) {
                rs.next();
                seen = VisibleTransactions.of(rs.getString(1), Lsn.parse(rs.getString(2)));
            }
            List<String[]> rows = new ArrayList<>();
            try (PreparedStatement s = query.prepare(); ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String[] row = new String[width];
                    for (int i = 0; i < width; i++) {
                        row[i] = rs.getString(i + 1);
                    }
                    rows.add(row);
                }
            }
            String marker = pipeline + "/" + UUID.randomUUID();
            try (Statement s = c.createStatement()) {
                // The walsender sends only flushed WAL: an asynchronous commit (synchronous_commit = off, the server's or the
                // user's) would leave the watermark for the WAL writer to flush, and each chunk would wait for it (200 ms by
                // default) on a quiet database. A local flush, not a standby's.
                s.execute("SET LOCAL synchronous_commit = local");
            }
            try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.pg_logical_emit_message(true, ?, ?)")) {
                s.setString(1, MESSAGE_PREFIX);
                s.setString(2, marker);
                s.execute();
            }
            c.commit();
            return new Chunk(rows, seen, marker, complete.test(rows));
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // the connection may be gone; the error that counts is e
            }
            throw e;
        } finally {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            c.setAutoCommit(autoCommit);
        }
    }
}
