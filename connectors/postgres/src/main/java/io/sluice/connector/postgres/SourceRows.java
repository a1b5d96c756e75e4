package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.sluice.connector.postgres.replication.TableRows;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.DeclaredColumns;
import io.sluice.schemas.postgres.TextArrays;
import org.apache.kafka.connect.data.Struct;

/**
 * A selected table's rows as the pipeline's records carry them (key and value structs, decoded
 * as the stream decodes them), read in a snapshot the caller holds: every row the row filter
 * takes, or those of some keys. For comparing a target that stores documents, not rows.
 */
public final class SourceRows {

    /** Receives a row: its key struct (null for a table without a key), its value struct, and its text values. */
    @FunctionalInterface
    public interface Row {
        void accept(Struct key, Struct value, String[] texts) throws SQLException;
    }

    private static final int FETCH = 2000;

    private final TableRows rows;
    private final String quoted;
    private final String filter;
    private final List<String> key;
    private final List<String> keyTypes;

    private SourceRows(TableRows rows, String quoted, String filter, List<String> key, List<String> keyTypes) {
        this.rows = rows;
        this.quoted = quoted;
        this.filter = filter;
        this.key = key;
        this.keyTypes = keyTypes;
    }

    /**
     * @param columns the columns to carry, in order (the key's among them for a keyed table)
     * @param filter  the table's row filter, or null
     */
    public static SourceRows of(PostgresSourceConfig config, Connection c, String schema, String table, List<String> columns, String filter)
            throws SQLException {
        String quoted = Identifiers.quote(schema, table);
        TableRows rows = TableRows.of(c, config.topicPrefix(), new TypeMapper(config.mappingOptions()), quoted, columns);
        List<String> key = rows.schema().keySchema() == null ? List.of()
                : rows.schema().keySchema().fields().stream().map(org.apache.kafka.connect.data.Field::name).toList();
        DeclaredColumns declared = DeclaredColumns.of(c, quoted);
        List<String> types = key.stream().map(declared::type).toList();
        return new SourceRows(rows, quoted, filter, key, types);
    }

    public TableSchema schema() {
        return rows.schema();
    }

    /** The key columns, in key order; empty for a table without a key. */
    public List<String> key() {
        return key;
    }

    /** The key columns' types, as SQL, in key order. */
    public List<String> keyTypes() {
        return keyTypes;
    }

    /** The text of a row's key columns, in key order, from its text values in {@link #columns()} order. */
    public String[] keyTexts(String[] texts) {
        String[] out = new String[key.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = texts[rows.columns().indexOf(key.get(i))];
        }
        return out;
    }

    /** The key struct of a row given by the text of its key columns; null for a table without a key. */
    public Struct key(Map<String, String> keyTexts) {
        return rows.key(keyTexts);
    }

    /** Every row the filter takes, in the snapshot {@code c} reads in (its session takes the settings text is read under). */
    public void each(Connection c, Row row) throws SQLException {
        read(c, filter == null ? "" : " WHERE (" + filter + ")", s -> { }, texts -> {
            Struct value = rows.row(texts);
            row.accept(rows.schema().keySchema() == null ? null : rows.schema().key(value), value, texts);
        });
    }

    /** Receives a row as text, in {@link #columns()} order. */
    @FunctionalInterface
    public interface Texts {
        void accept(String[] texts) throws SQLException;
    }

    /** The columns, in the order rows are read and {@link #row} takes them. */
    public List<String> columns() {
        return rows.columns();
    }

    /** A row's value struct from its text values, in {@link #columns()} order. */
    public Struct row(String[] texts) {
        return rows.row(texts);
    }

    /**
     * The rows of these keys (text of the key columns, in key order) that the filter takes, as
     * text; a key with no such row gives nothing.
     */
    public void byKeys(Connection c, List<String[]> keys, Texts row) throws SQLException {
        if (keys.isEmpty() || key.isEmpty()) {
            return;
        }
        StringJoiner columns = new StringJoiner(", ");
        StringJoiner given = new StringJoiner(", ");
        for (int i = 0; i < key.size(); i++) {
            columns.add(Identifiers.quote(key.get(i)));
            given.add(TextArrays.column(i, keyTypes.get(i)));
        }
        read(c, " WHERE (" + columns + ") IN (SELECT " + given + " FROM " + TextArrays.unnest(key.size(), false) + ")"
                + (filter == null ? "" : " AND (" + filter + ")"), s -> TextArrays.bind(s, key.size(), keys, (k, i) -> k[i]), row);
    }

    @FunctionalInterface
    private interface Parameters {
        void bind(PreparedStatement s) throws SQLException;
    }

    private void read(Connection c, String where, Parameters parameters, Texts row) throws SQLException {
        // The text the codecs parse is that of these settings (the stream's connections have them too).
        try (java.sql.Statement s = c.createStatement()) {
            for (String set : io.sluice.schemas.codec.SessionSettings.statements()) {
                s.execute(set);
            }
        }
        StringJoiner select = new StringJoiner(", ");
        rows.columns().forEach(col -> select.add(io.sluice.schemas.mapping.ColumnMapping.outputText(Identifiers.quote(col))));
        try (PreparedStatement s = c.prepareStatement("SELECT " + select + " FROM " + quoted + where)) {
            parameters.bind(s);
            s.setFetchSize(FETCH);
            try (ResultSet rs = s.executeQuery()) {
                int n = rows.columns().size();
                while (rs.next()) {
                    String[] texts = new String[n];
                    for (int i = 0; i < n; i++) {
                        texts[i] = rs.getString(i + 1);
                    }
                    row.accept(texts);
                }
            }
        }
    }
}
