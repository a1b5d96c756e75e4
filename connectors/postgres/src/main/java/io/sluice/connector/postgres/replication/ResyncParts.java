package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Function;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.connector.postgres.resync.ChunkRead;
import io.sluice.connector.postgres.resync.KeyValues;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.KeyOrder;
import org.apache.kafka.connect.data.Struct;

/**
 * What a re-sync request reads: the tables whose rows the stream sends under their own names for
 * the table asked for (the table; its root's name for a partition published through the root is
 * refused; the partitions of a partitioned table published as themselves), each described as the
 * stream's records describe it (its column list applied), with how its chunks are read (its row
 * filter, its key) and what its key sorts by.
 */
final class ResyncParts {

    /** One table whose rows the stream carries under its own name: the requested table, or one of its partitions. */
    record Part(long oid, String schema, String name, boolean only) {
    }

    /**
     * A part described.
     *
     * @param fromKey the key the next chunk's range starts after; null at the table's start
     */
    record Described(StreamTable table, ChunkRead.Shape shape, List<String> keyColumns, List<String> keyOrder, Struct fromKey) {
    }

    private ResyncParts() {
    }

    /** The tables whose rows the stream sends for {@code target}; empty, or why it cannot be re-synced. */
    static Optional<String> parts(Connection c, String target, boolean viaRoot, BiPredicate<String, String> selects, String pipeline,
                                  List<Part> parts) throws SQLException {
        String[] name;
        try {
            name = Identifiers.unquoteQualified(target);
        } catch (RuntimeException e) {
            return Optional.of("not a table name: " + target + " (schema.table)");
        }
        if (name.length != 2) {
            return Optional.of("name the table as schema.table, got " + target);
        }
        try (PreparedStatement s = c.prepareStatement("SELECT c.oid, c.relkind::text, r.oid <> c.oid, rn.nspname, r.relname, "
                + "(SELECT setting FROM pg_catalog.pg_settings WHERE name = 'server_version_num')::int "
                + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                + "JOIN pg_catalog.pg_class r ON r.oid = coalesce(pg_catalog.pg_partition_root(c.oid), c.oid) "
                + "JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace WHERE n.nspname = ? AND c.relname = ?")) {
            s.setString(1, name[0]);
            s.setString(2, name[1]);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return Optional.of("table " + target + " does not exist");
                }
                long oid = rs.getLong(1);
                String kind = rs.getString(2);
                boolean partition = rs.getBoolean(3);
                if (!kind.equals("r") && !kind.equals("p")) {
                    return Optional.of(target + " is not a table");
                }
                if (partition && viaRoot) {
                    return Optional.of(target + " is a partition of " + rs.getString(4) + "." + rs.getString(5) + ", whose changes are "
                            + "published as the root's: re-sync " + rs.getString(4) + "." + rs.getString(5));
                }
                if (kind.equals("p") && !viaRoot) {
                    leaves(c, oid, parts);
                } else {
                    parts.add(new Part(oid, name[0], name[1], kind.equals("r")));
                }
            }
        }
        for (Part p : parts) {
            if (!selects.test(p.schema(), p.name())) {
                return Optional.of(p.schema() + "." + p.name() + " is not among the tables pipeline " + pipeline + " streams");
            }
        }
        return parts.isEmpty() ? Optional.of(target + " has no partitions") : Optional.empty();
    }

    private static void leaves(Connection c, long root, List<Part> parts) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT t.relid::oid, n.nspname, k.relname FROM pg_catalog.pg_partition_tree(?::oid) t "
                + "JOIN pg_catalog.pg_class k ON k.oid = t.relid JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace "
                + "WHERE t.isleaf ORDER BY 2, 3")) {
            s.setLong(1, root);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    parts.add(new Part(rs.getLong(1), rs.getString(2), rs.getString(3), true));
                }
            }
        }
    }

    /**
     * A part as the stream's records describe it, and how its chunks are read.
     *
     * @param afterKey the key (as text) a restarted re-sync copied through; null from the start
     */
    static Described describe(Connection c, Part part, TableSelector selector, Function<PgOutputMessage.Relation, StreamTable> schemas,
                              String[] afterKey) throws SQLException {
        String[] name = TableCopy.name(c, part.oid());
        List<String[]> ancestors = ancestors(c, part.oid());
        String root = ancestors.isEmpty() ? null : ancestors.get(ancestors.size() - 1)[0] + "." + ancestors.get(ancestors.size() - 1)[1];
        PgOutputMessage.Relation whole = TableCopy.relation(c, part.oid(), name);
        StreamTable table = schemas.apply(whole);
        if (table.schema() == null || table.schema().keySchema() == null) {
            throw new IllegalStateException(part.schema() + "." + part.name() + " has no primary key or replica identity index: a "
                    + "re-sync reads a table in chunks by key. Give it a primary key, or copy the whole pipeline again (--fresh)");
        }
        List<String> keyColumns = table.schema().keyColumns();
        List<String> listed = selector.columnsOf(name[0], name[1], ancestors);
        if (listed != null) {
            List<PgOutputMessage.Column> kept = new ArrayList<>();
            for (PgOutputMessage.Column column : whole.columns()) {
                if (listed.contains(column.name()) || keyColumns.contains(column.name())) {
                    kept.add(column);
                }
            }
            table = schemas.apply(new PgOutputMessage.Relation(whole.oid(), whole.namespace(), whole.name(), whole.replicaIdentity(), kept));
        }
        List<String> columns = table.relation().columns().stream().map(PgOutputMessage.Column::name).toList();
        int[] keys = new int[keyColumns.size()];
        List<String> keyTypes = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            keys[i] = columns.indexOf(keyColumns.get(i));
            keyTypes.add(keyType(c, part.oid(), keyColumns.get(i)));
        }
        String quoted = Identifiers.quote(name[0], name[1]);
        ChunkRead.Shape shape = new ChunkRead.Shape(quoted, part.only(), columns, keys, keyTypes,
                selector.filters().forTable(name[0], name[1], root));
        // Going on after a restart: the next range starts after the key copied through, not at the table's start.
        return new Described(table, shape, keyColumns, KeyOrder.of(c, quoted, keyColumns),
                afterKey == null ? null : keyFromText(table, afterKey));
    }

    private static String keyType(Connection c, long oid, String column) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.format_type(a.atttypid, NULL) FROM pg_catalog.pg_attribute a "
                + "WHERE a.attrelid = ? AND a.attname = ?")) {
            s.setLong(1, oid);
            s.setString(2, column);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** A partition's ancestors as {schema, name}, nearest first; empty for a table that is none. */
    private static List<String[]> ancestors(Connection c, long oid) throws SQLException {
        List<String[]> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT n.nspname, k.relname FROM pg_catalog.pg_partition_ancestors(?::oid) WITH "
                + "ORDINALITY a(relid, i) JOIN pg_catalog.pg_class k ON k.oid = a.relid JOIN pg_catalog.pg_namespace n "
                + "ON n.oid = k.relnamespace WHERE a.relid <> ?::oid ORDER BY a.i")) {
            s.setLong(1, oid);
            s.setLong(2, oid);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
        }
        return out;
    }

    /** A key from its columns' text, as the signal table keeps it. */
    static Struct keyFromText(StreamTable table, String[] text) {
        Struct out = new Struct(table.schema().keySchema());
        List<String> columns = table.schema().keyColumns();
        for (int i = 0; i < columns.size(); i++) {
            String name = columns.get(i);
            io.sluice.schemas.mapping.ColumnMapping column = table.columns().stream().filter(c -> c.name().equals(name)).findFirst()
                    .orElseThrow();
            out.put(name, text[i] == null ? null : column.fromText(text[i]));
        }
        return out;
    }

    static Struct keyStruct(StreamTable table, KeyValues key) {
        Struct out = new Struct(table.schema().keySchema());
        List<String> columns = table.schema().keyColumns();
        for (int i = 0; i < columns.size(); i++) {
            out.put(columns.get(i), key.values()[i]);
        }
        return out;
    }

    /** Progress as the signal table keeps it: the part's oid, then the key copied through in it. */
    static String[] withPart(long oid, String[] key) {
        String[] out = new String[key.length + 1];
        out[0] = Long.toString(oid);
        System.arraycopy(key, 0, out, 1, key.length);
        return out;
    }
}
