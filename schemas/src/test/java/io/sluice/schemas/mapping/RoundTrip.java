package io.sluice.schemas.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.StringJoiner;

import io.sluice.schemas.codec.BoundedArray;
import io.sluice.schemas.codec.SessionSettings;
import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.copy.BinaryCopyReader;
import io.sluice.schemas.copy.BinaryCopyWriter;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.TypeCatalog;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Struct;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * Drives values of one PostgreSQL type through Sluice's codecs against a real server:
 * <ol>
 * <li>insert the values as SQL literals into a source table, as a scalar column, an array
 *     column, a two-dimensional array column, a composite of the type (the value and an array
 *     of it; every field NULL in some rows, which SQL's {@code IS NULL} takes for a NULL
 *     composite) and an array of such composites;</li>
 * <li>read them back as text ({@code ::text}, what logical decoding sends) and through a
 *     binary COPY, decode both, and require the two decodings to be equal and valid for the
 *     column's Connect schema;</li>
 * <li>write the decoded values with Sluice's binary COPY encoder into a target table and
 *     require every value there to have the same text as the source;</li>
 * <li>again, after the values went through a converter (Kafka's JSON converter, then Sluice's
 *     binary one) and their value notes were put back ({@link KafkaHop}), written as the sink
 *     writes what arrives;</li>
 * <li>and where the snapshot would pass tuples raw ({@link RawEligibility}), the tuples themselves.</li>
 * </ol>
 * The invariant: decode(text) = decode(binary), and PostgreSQL sees encode(decode(x)) as x.
 */
final class RoundTrip implements AutoCloseable {

    /** The columns of every table checked: scalar, array, 2-D array, composite, array of composites. */
    private static final List<String> COLUMNS = List.of("v", "a", "m", "r", "ra");
    /** The literal of a composite whose fields are all NULL: a value, not a NULL composite. */
    private static final String ALL_NULL = "(,)";

    private final Connection connection;
    /** Reads results as text, so values come from the types' output functions, as pgoutput sends them. */
    private final Connection textConnection;
    private final TypeCatalog catalog;
    private final Set<String> created = new HashSet<>();

    RoundTrip(TestDatabase db) throws SQLException {
        connection = db.connect();
        Properties simple = new Properties();
        simple.setProperty("user", db.user());
        simple.setProperty("password", db.password());
        simple.setProperty("preferQueryMode", "simple");
        textConnection = DriverManager.getConnection(db.jdbcUrl(), simple);
        for (Connection c : List.of(connection, textConnection)) {
            try (Statement s = c.createStatement()) {
                for (String setting : SessionSettings.statements()) {
                    s.execute(setting);
                }
            }
        }
        catalog = new TypeCatalog(connection);
    }

    Connection connection() {
        return connection;
    }

    /** Runs setup SQL (types, extensions) once per statement text. */
    void setup(String sql) throws SQLException {
        if (created.add(sql)) {
            try (Statement s = connection.createStatement()) {
                s.execute(sql);
            }
        }
    }

    /**
     * Checks scalar, array, 2-D array, composite and composite array columns of {@code type}
     * with the given element literals (null for NULL).
     */
    void check(String type, List<String> literals, MappingOptions options) throws Exception {
        String table = tableFor(type);
        char delimiter = "box".equals(type) ? ';' : ',';
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < literals.size(); i++) {
            List<String> window = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                window.add(literals.get((i + k) % literals.size()));
            }
            int length = 1 + i % 4;
            String array = i % 7 == 6 ? "{}" : lowerBounds(i, length) + arrayLiteral(window.subList(0, length), delimiter);
            String matrix = (i % 3 == 1 ? "[-3:-2][2147483645:2147483646]=" : "") + "{" + arrayLiteral(window.subList(0, 2), delimiter)
                    + delimiter + arrayLiteral(window.subList(2, 4), delimiter) + "}";
            String composite = composite(i, literals.get(i), array);
            String composites = arrayLiteral(Arrays.asList(composite(i + 1, window.get(1), array), ALL_NULL, null), ',');
            rows.add(Arrays.asList(literals.get(i), array, matrix, composite, composites));
        }
        checkRows(table, rows, options);
    }

    /**
     * A composite (value, array) in one of five forms: every field NULL (always the first row's,
     * so every check has one), both fields, the value alone, the array alone, the NULL composite.
     */
    private static String composite(int row, String value, String array) {
        return switch (row % 5) {
            case 0 -> ALL_NULL;
            case 1 -> PgLiterals.record(Arrays.asList(value, array));
            case 2 -> PgLiterals.record(Arrays.asList(value, null));
            case 3 -> PgLiterals.record(Arrays.asList(null, array));
            default -> null;
        };
    }

    /**
     * A dimension decoration for a one-dimensional array of {@code length} elements: none (lower
     * bound 1) for most rows, else 0, a negative bound, or the highest bounds PostgreSQL accepts.
     */
    private static String lowerBounds(int row, int length) {
        return switch (row % 5) {
            case 1 -> "[0:" + (length - 1) + "]=";
            case 3 -> "[-" + (length + 5) + ":-6]=";
            case 4 -> "[" + (Integer.MAX_VALUE - length) + ":" + (Integer.MAX_VALUE - 1) + "]="; // lower bound + length must fit 32 bits
            default -> "";
        };
    }

    /**
     * Checks rows of literals for the columns v, a, m, r and ra of an existing table pair
     * {@code table}/{@code table_target}; a row's missing last columns are NULL.
     */
    void checkRows(String table, List<List<String>> rows, MappingOptions options) throws Exception {
        try (Statement s = connection.createStatement()) {
            s.execute("TRUNCATE " + table + ", " + table + "_target");
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + table + " (id, " + String.join(", ", COLUMNS) + ") VALUES (?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < rows.size(); i++) {
                insert.setInt(1, i);
                List<String> row = rows.get(i);
                for (int c = 0; c < COLUMNS.size(); c++) {
                    insert.setObject(c + 2, c < row.size() ? row.get(c) : null, Types.OTHER);
                }
                insert.addBatch();
            }
            insert.executeBatch();
        }

        TypeMapper mapper = new TypeMapper(options);
        List<ColumnMapping> columns = new ArrayList<>();
        for (PgColumn column : catalog.columns("public", table)) {
            columns.add(mapper.map(column));
        }

        List<List<Object>> fromText = readText(table, columns);
        List<List<Object>> fromBinary = readBinary(table, columns);
        assertThat(fromBinary).hasSameSizeAs(fromText);
        for (int r = 0; r < fromText.size(); r++) {
            for (int c = 0; c < columns.size(); c++) {
                Object text = fromText.get(r).get(c);
                Object binary = fromBinary.get(r).get(c);
                if (!deepEquals(text, binary)) {
                    throw new AssertionError("Column " + columns.get(c).name() + " row " + r + ": text decodes to "
                            + show(text) + " but binary decodes to " + show(binary));
                }
                ConnectSchema.validateValue(columns.get(c).schema(), text);
            }
        }

        write(table + "_target", columns, fromBinary);
        compareTexts(table);

        // The Kafka path: the rows through Kafka's JSON converter (value and headers, as a Connect worker sends them), their
        // value notes put back, and written as a sink writes what arrives (by the schema it arrived with).
        try (Statement s = connection.createStatement()) {
            s.execute("TRUNCATE " + table + "_target");
        }
        writeAsSink(table + "_target", columns, KafkaHop.carry(columns, fromBinary));
        compareTexts(table);
        // The same through Sluice's binary converter.
        try (Statement s = connection.createStatement()) {
            s.execute("TRUNCATE " + table + "_target");
        }
        writeAsSink(table + "_target", columns, KafkaHop.carryBinary(columns, fromBinary));
        compareTexts(table);

        // The raw path: where the snapshot may pass the tuples as PostgreSQL wrote them, they are the copy.
        if (RawEligibility.eligible(columns)) {
            try (Statement s = connection.createStatement()) {
                s.execute("TRUNCATE " + table + "_target");
            }
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            copyManager().copyOut("COPY (SELECT " + String.join(", ", columns.stream().map(ColumnMapping::selectExpression).toList())
                    + " FROM " + table + " ORDER BY id) TO STDOUT (FORMAT binary)", raw);
            copyManager().copyIn("COPY " + table + "_target FROM STDIN (FORMAT binary)", new ByteArrayInputStream(raw.toByteArray()));
            compareTexts(table);
        }
    }

    private void writeAsSink(String target, List<ColumnMapping> columns, List<Struct> rows) throws Exception {
        WireBuffer out = new WireBuffer(8192);
        out.writeBytes(new byte[] {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0}).writeInt(0).writeInt(0);
        for (Struct row : rows) {
            out.writeShort(columns.size());
            for (ColumnMapping column : columns) {
                org.apache.kafka.connect.data.Field field = row.schema().field(column.name());
                Object value = row.get(field);
                if (value == null) {
                    out.writeInt(-1);
                } else {
                    int at = out.reserveLength();
                    column.toBinaryFrom(field.schema(), value, out);
                    out.patchLength(at);
                }
            }
        }
        out.writeShort(-1);
        copyManager().copyIn("COPY " + target + " FROM STDIN (FORMAT binary)", new ByteArrayInputStream(out.array(), 0, out.size()));
    }

    private List<List<Object>> readText(String table, List<ColumnMapping> columns) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        StringBuilder select = new StringBuilder("SELECT ");
        for (int c = 0; c < columns.size(); c++) {
            select.append(c == 0 ? "" : ", ").append(Identifiers.quote(columns.get(c).name()));
        }
        select.append(" FROM ").append(table).append(" ORDER BY id");
        try (Statement s = textConnection.createStatement(); ResultSet rs = s.executeQuery(select.toString())) {
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int c = 0; c < columns.size(); c++) {
                    row.add(columns.get(c).fromText(rs.getString(c + 1)));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private List<List<Object>> readBinary(String table, List<ColumnMapping> columns) throws Exception {
        StringBuilder select = new StringBuilder("COPY (SELECT ");
        for (int c = 0; c < columns.size(); c++) {
            select.append(c == 0 ? "" : ", ").append(columns.get(c).selectExpression());
        }
        select.append(" FROM ").append(table).append(" ORDER BY id) TO STDOUT (FORMAT binary)");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        copyManager().copyOut(select.toString(), out);
        BinaryCopyReader reader = BinaryCopyReader.ofStream(new ByteArrayInputStream(out.toByteArray()), columns.size());
        List<List<Object>> rows = new ArrayList<>();
        while (reader.next()) {
            List<Object> row = new ArrayList<>();
            for (int c = 0; c < columns.size(); c++) {
                ByteBuffer field = reader.field(c);
                row.add(columns.get(c).fromBinary(field));
            }
            rows.add(row);
        }
        return rows;
    }

    private void write(String target, List<ColumnMapping> columns, List<List<Object>> rows) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (BinaryCopyWriter writer = new BinaryCopyWriter(out, columns)) {
            for (List<Object> row : rows) {
                writer.writeRow(row);
            }
        }
        copyManager().copyIn("COPY " + target + " FROM STDIN (FORMAT binary)", new ByteArrayInputStream(out.toByteArray()));
    }

    private void compareTexts(String table) throws SQLException {
        StringJoiner values = new StringJoiner(", ");
        for (String column : COLUMNS) {
            values.add("('" + column + "', " + out("s." + column) + ", " + out("t." + column) + ")");
        }
        String sql = "SELECT s.id, c.col, c.source, c.target FROM " + table + " s FULL JOIN " + table + "_target t USING (id), "
                + "LATERAL (VALUES " + values + ") "
                + "AS c(col, source, target) WHERE c.source IS DISTINCT FROM c.target OR s.id IS NULL OR t.id IS NULL LIMIT 5";
        List<String> mismatches = new ArrayList<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                mismatches.add("row " + rs.getObject(1) + " column " + rs.getString(2) + ": source " + rs.getString(3)
                        + " but target " + rs.getString(4));
            }
        }
        assertThat(mismatches).as("values changed by the binary COPY round trip").isEmpty();
    }

    /**
     * A value's output-function text (a ::text cast is not always that: bpchar loses its padding),
     * NULL only for a NULL value: {@code IS NULL} would take a composite of NULL fields for one.
     */
    private static String out(String column) {
        return "CASE WHEN num_nulls(" + column + ") = 1 THEN NULL ELSE format('%s', " + column + ") END";
    }

    private String tableFor(String type) throws SQLException {
        String table = "rt_" + type.replaceAll("[^a-zA-Z0-9]+", "_").toLowerCase();
        if (created.add("table " + table)) {
            try (Statement s = connection.createStatement()) {
                s.execute("CREATE TYPE " + table + "_row AS (v " + type + ", a " + type + "[])");
            }
            for (String name : List.of(table, table + "_target")) {
                try (Statement s = connection.createStatement()) {
                    s.execute("CREATE TABLE " + name + " (id int PRIMARY KEY, v " + type + ", a " + type + "[], m " + type + "[][], r "
                            + table + "_row, ra " + table + "_row[])");
                }
            }
        }
        return table;
    }

    private CopyManager copyManager() throws SQLException {
        return connection.unwrap(PGConnection.class).getCopyAPI();
    }

    static String arrayLiteral(List<String> elements, char delimiter) {
        StringBuilder s = new StringBuilder("{");
        for (int i = 0; i < elements.size(); i++) {
            if (i > 0) {
                s.append(delimiter);
            }
            String e = elements.get(i);
            s.append(e == null ? "NULL" : '"' + e.replace("\\", "\\\\").replace("\"", "\\\"") + '"');
        }
        return s.append('}').toString();
    }

    static boolean deepEquals(Object a, Object b) {
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.equals(x, y);
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size() || !Arrays.equals(bounds(x), bounds(y))) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!deepEquals(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Struct x && b instanceof Struct y) {
            if (!x.schema().equals(y.schema())) {
                return false;
            }
            return x.schema().fields().stream().allMatch(f -> deepEquals(x.get(f), y.get(f)));
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            return x.size() == y.size() && x.entrySet().stream().allMatch(e -> y.containsKey(e.getKey())
                    && deepEquals(e.getValue(), y.get(e.getKey())));
        }
        return Objects.equals(a, b);
    }

    private static int[] bounds(List<?> list) {
        return list instanceof BoundedArray bounded ? bounded.lowerBounds() : new int[0];
    }

    private static String show(Object v) {
        if (v instanceof byte[] b) {
            return Arrays.toString(b);
        }
        return v == null ? "null" : v + " (" + v.getClass().getSimpleName() + ")";
    }

    @Override
    public void close() throws SQLException {
        textConnection.close();
        connection.close();
    }
}
