package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.UUID;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.schemas.naming.Identifiers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies a table that joined the selection with rows the stream never carried (created by
 * {@code CREATE TABLE ... AS}, or renamed into the selection), so that copy and stream meet
 * exactly. In one transaction it takes a SHARE lock on the table (writers wait; writes before
 * it are committed and visible to the copy), emits a transactional marker message
 * ({@value #MESSAGE_PREFIX}), reads every row, and commits. Every change of the table the stream
 * decodes before the marker is in the copy; every change after it is not. The rows come as text,
 * as pgoutput sends them, in the column order of the table's Relation message.
 */
final class TableCopy implements AutoCloseable {

    /** Prefix of the marker messages. */
    static final String MESSAGE_PREFIX = "sluice.copy";

    private static final Logger LOG = LoggerFactory.getLogger(TableCopy.class);
    private static final int FETCH = 2000;

    private final Connection connection;
    private final PgOutputMessage.Relation relation;
    private final String marker = UUID.randomUUID().toString();
    private ResultSet rows;
    private Statement statement;
    private long copied;

    private TableCopy(Connection connection, PgOutputMessage.Relation relation) {
        this.connection = connection;
        this.relation = relation;
    }

    /**
     * Locks the table and starts reading it; the marker is emitted with the lock held.
     *
     * @param connection a normal connection of its own, closed with the copy
     * @param oid        the table
     * @param filters    the pipeline's row filters: the copy reads only the rows its table's filter takes
     */
    static TableCopy start(Connection connection, long oid, io.sluice.connector.postgres.selection.RowFilters filters) throws SQLException {
        // Read committed: the rows are read after the lock is granted, so they hold every write committed before it.
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        connection.setAutoCommit(false);
        String[] name = name(connection, oid);
        // A partitioned table is copied whole, all its partitions (published through it, their rows are its own).
        String only = name[2].equals("p") ? "" : "ONLY ";
        try (Statement s = connection.createStatement()) {
            s.execute("LOCK TABLE " + only + Identifiers.quote(name[0], name[1]) + " IN SHARE MODE");
        }
        PgOutputMessage.Relation relation = relation(connection, oid, name);
        TableCopy copy = new TableCopy(connection, relation);
        String table = Identifiers.quote(relation.namespace(), relation.name());
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_catalog.pg_logical_emit_message(true, ?, ?)")) {
            s.setString(1, MESSAGE_PREFIX);
            s.setString(2, copy.marker);
            s.execute();
        }
        StringJoiner columns = new StringJoiner(", ");
        // The output function's text, as pgoutput sends values (a ::text cast trims char(n), spells booleans out).
        relation.columns().forEach(c -> columns.add(io.sluice.schemas.mapping.ColumnMapping.outputText(Identifiers.quote(c.name()))));
        copy.statement = connection.createStatement();
        copy.statement.setFetchSize(FETCH);
        String filter = filters.isEmpty() ? null : filters.forTable(name[0], name[1], root(connection, oid));
        if (filter != null && !publishedFiltered(connection, oid)) {
            // The DDL capture adds a joining table with its filter; one from an older Sluice adds it as it is.
            LOG.warn("{} joined the selected tables while streaming and has a row filter ({}): its copy reads only the rows the "
                    + "filter takes, but the publication took it without the filter (the DDL capture installed is from an older "
                    + "Sluice), so its changes flow unfiltered until the pipeline starts again and sets the filter. Restart the "
                    + "pipeline now, and have a superuser run the capture's script again", table, filter);
        }
        copy.rows = copy.statement.executeQuery("SELECT " + (relation.columns().isEmpty() ? "" : columns) + " FROM " + only + table
                + (filter == null ? "" : " WHERE (" + filter + ")"));
        LOG.info("Copying {} into the stream: it joined the selected tables with rows the stream did not carry", table);
        return copy;
    }

    /** The root of a partition's tree as {@code schema.table}; null for a table that is no partition. */
    private static String root(Connection c, long oid) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT n.nspname || '.' || r.relname FROM pg_catalog.pg_class r "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace WHERE r.oid = pg_catalog.pg_partition_root(?::oid) "
                + "AND r.oid <> ?::oid")) {
            s.setLong(1, oid);
            s.setLong(2, oid);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** The table's {schema, name, relkind}. */
    static String[] name(Connection c, long oid) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT n.nspname, k.relname, k.relkind::text FROM pg_catalog.pg_class k "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace WHERE k.oid = ?")) {
            s.setLong(1, oid);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("table " + oid + " no longer exists", "42P01");
                }
                return new String[] {rs.getString(1), rs.getString(2), rs.getString(3)};
            }
        }
    }

    /**
     * The table as a Relation message would describe it now: its columns in order, without the
     * generated ones the publication does not send (all before 18; virtual ones on 18, where
     * Sluice's publication sends stored ones).
     */
    static PgOutputMessage.Relation relation(Connection c, long oid, String[] name) throws SQLException {
        List<PgOutputMessage.Column> columns = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT a.attname, a.atttypid, a.atttypmod FROM pg_catalog.pg_attribute a "
                + "WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped AND (a.attgenerated = '' OR (a.attgenerated = 's' "
                + "AND pg_catalog.current_setting('server_version_num')::int >= 180000)) ORDER BY a.attnum")) {
            s.setLong(1, oid);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.add(new PgOutputMessage.Column(false, rs.getString(1), (int) rs.getLong(2), rs.getInt(3)));
                }
            }
        }
        return new PgOutputMessage.Relation((int) oid, name[0], name[1], 'd', columns);
    }

    PgOutputMessage.Relation relation() {
        return relation;
    }

    /** The marker message this copy emits; the stream reaches it when the copy has committed. */
    String marker() {
        return marker;
    }

    /**
     * Up to {@code max} rows, each as text values (null for NULL) in the relation's column order;
     * empty when the table is read through, and then the copy has committed.
     */
    List<String[]> next(int max) throws SQLException {
        List<String[]> out = new ArrayList<>();
        if (rows == null) {
            return out;
        }
        int n = relation.columns().size();
        while (out.size() < max && rows.next()) {
            String[] row = new String[n];
            for (int i = 0; i < n; i++) {
                row[i] = rows.getString(i + 1);
            }
            out.add(row);
        }
        copied += out.size();
        if (out.isEmpty()) {
            rows.close();
            statement.close();
            rows = null;
            connection.commit();
            LOG.info("Copied {}.{} into the stream: {} rows", relation.namespace(), relation.name(), copied);
        }
        return out;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("Closing the table copy's connection", e);
        }
    }

    /** Whether a publication holds the table (or the root it is published through) with a row filter. */
    private static boolean publishedFiltered(Connection connection, long oid) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_publication_rel "
                + "WHERE prqual IS NOT NULL AND prrelid IN (SELECT relid FROM pg_catalog.pg_partition_ancestors(?::oid)))")) {
            s.setLong(1, oid);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
