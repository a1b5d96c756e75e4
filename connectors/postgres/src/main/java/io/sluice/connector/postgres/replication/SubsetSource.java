package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.function.Supplier;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.DeclaredColumns;

/**
 * What a staging subset asks the source while streaming: which roots' rows meet their condition
 * now, and the rows foreign keys reference, each as one query per table for a batch (the values
 * given as PostgreSQL's text, cast to the columns' types so the keys' indexes serve). On a
 * connection of its own; tables described as the stream describes them.
 */
final class SubsetSource {

    /** Rows per lookup statement. */
    private static final int LOOKUP_ROWS = 1000;

    /** Told each row read: the index of the values it was asked by, its table (the partition that holds it, or its root). */
    interface RowRead {
        void row(int index, long oid, Map<String, String> row) throws SQLException;
    }

    private final Supplier<Connection> connections;
    private final Function<PgOutputMessage.Relation, StreamTable> resolve;
    private final boolean viaRoot;
    private Connection connection;
    /** Per table (quoted), the columns the stream sends and their types as {@code format_type} spells them. */
    private final Map<String, Map<String, String>> types = new HashMap<>();
    /** Per table oid, how the stream describes it: parents read are handed out as it would hand out their rows. */
    private final Map<Long, StreamTable> described = new HashMap<>();
    private final Map<String, Long> oids = new HashMap<>();

    SubsetSource(Supplier<Connection> connections, Function<PgOutputMessage.Relation, StreamTable> resolve, boolean viaRoot) {
        this.connections = connections;
        this.resolve = resolve;
        this.viaRoot = viaRoot;
    }

    /**
     * The indexes of the keys whose row in {@code table} meets {@code condition} now (the SQL the
     * snapshot ran, with the table's own name in scope).
     */
    List<Integer> meeting(String table, List<String> keys, String condition, List<List<String>> values) throws SQLException {
        Map<String, String> columnTypes = types(table);
        List<String> keyTypes = keys.stream().map(columnTypes::get).toList();
        List<Integer> out = new ArrayList<>();
        for (int from = 0; from < values.size(); from += LOOKUP_ROWS) {
            List<List<String>> part = values.subList(from, Math.min(values.size(), from + LOOKUP_ROWS));
            StringJoiner join = new StringJoiner(" AND ");
            for (int k = 0; k < keys.size(); k++) {
                join.add(table + "." + Identifiers.quote(keys.get(k)) + " = v.\"$" + k + "\"");
            }
            String sql = "SELECT v.\"$n\" FROM " + values(part.size(), keyTypes) + " WHERE EXISTS (SELECT 1 FROM " + table
                    + " WHERE " + join + " AND (" + condition + "))";
            try (PreparedStatement s = bind(sql, from, part); ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1));
                }
            }
        }
        return out;
    }

    /** Reads the rows of {@code table} whose {@code columns} hold each of {@code values}, every column as text. */
    void read(String table, List<String> columns, List<String> columnTypes, List<List<String>> values, RowRead out) throws SQLException {
        List<String> all = List.copyOf(types(table).keySet());
        StringJoiner select = new StringJoiner(", ");
        all.forEach(c -> select.add("t." + Identifiers.quote(c) + "::text"));
        StringJoiner join = new StringJoiner(" AND ");
        for (int k = 0; k < columns.size(); k++) {
            join.add("t." + Identifiers.quote(columns.get(k)) + " = v.\"$" + k + "\"");
        }
        for (int from = 0; from < values.size(); from += LOOKUP_ROWS) {
            List<List<String>> part = values.subList(from, Math.min(values.size(), from + LOOKUP_ROWS));
            String sql = "SELECT v.\"$n\", t.tableoid::oid" + (all.isEmpty() ? "" : ", " + select) + " FROM "
                    + values(part.size(), columnTypes) + " JOIN " + table + " t ON " + join;
            try (PreparedStatement s = bind(sql, from, part); ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    Map<String, String> row = new LinkedHashMap<>();
                    for (int c = 0; c < all.size(); c++) {
                        row.put(all.get(c), rs.getString(c + 3));
                    }
                    out.row(rs.getInt(1), viaRoot ? oidOf(table) : rs.getLong(2), row);
                }
            }
        }
    }

    private PreparedStatement bind(String sql, int from, List<List<String>> part) throws SQLException {
        PreparedStatement s = connection().prepareStatement(sql);
        int p = 1;
        for (int i = 0; i < part.size(); i++) {
            s.setInt(p++, from + i);
            for (String v : part.get(i)) {
                s.setString(p++, v);
            }
        }
        return s;
    }

    /** {@code (VALUES (?::int, ?::t0, ...), ...) v("$n", "$0", ...)} for {@code rows} rows. */
    private static String values(int rows, List<String> types) {
        StringJoiner row = new StringJoiner(", ", "(", ")");
        row.add("?::int");
        StringJoiner names = new StringJoiner(", ", "v(\"$n\", ", ")");
        for (int k = 0; k < types.size(); k++) {
            row.add("?::" + types.get(k));
            names.add("\"$" + k + "\"");
        }
        StringJoiner all = new StringJoiner(", ", "(VALUES ", ") ");
        for (int i = 0; i < rows; i++) {
            all.add(row.toString());
        }
        return all + names.toString();
    }

    /** The table as the stream describes it. */
    StreamTable described(long oid) throws SQLException {
        StreamTable known = described.get(oid);
        if (known == null) {
            known = resolve.apply(TableCopy.relation(connection(), oid, TableCopy.name(connection(), oid)));
            described.put(oid, known);
        }
        return known;
    }

    long oidOf(String quoted) throws SQLException {
        Long known = oids.get(quoted);
        if (known == null) {
            try (PreparedStatement s = connection().prepareStatement("SELECT ?::regclass::oid")) {
                s.setString(1, quoted);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    known = rs.getLong(1);
                }
            }
            oids.put(quoted, known);
        }
        return known;
    }

    /** The table's columns (those the stream sends) and their types. */
    private Map<String, String> types(String quoted) throws SQLException {
        Map<String, String> known = types.get(quoted);
        if (known == null) {
            known = new LinkedHashMap<>();
            long oid = oidOf(quoted);
            for (PgOutputMessage.Column c : TableCopy.relation(connection(), oid, TableCopy.name(connection(), oid)).columns()) {
                known.put(c.name(), null);
            }
            Map<String, String> declared = DeclaredColumns.of(connection(), oid).types();
            known.replaceAll((name, none) -> declared.get(name));
            types.put(quoted, known);
        }
        return known;
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = connections.get();
        }
        return connection;
    }

    /** The stream was lost, or changed shape: the connection and the descriptions are made again. */
    void reset() {
        described.clear();
        types.clear();
        oids.clear();
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // closing only
            }
            connection = null;
        }
    }
}
