package io.sluice.schemas.types;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads type descriptions from one database's {@code pg_catalog} and caches them by oid.
 * Oids of user-defined types (enums, domains, composites, extension types such as hstore)
 * differ between databases, so a catalog belongs to the database it was read from: decode
 * with the source's catalog, encode with the target's.
 */
public final class TypeCatalog {

    /** A type's row ({@link TypeRow}), of {@code t} in {@link #TYPE_JOINS}. */
    private static final String TYPE_COLUMNS = """
            t.oid, n.nspname, t.typname, t.typtype, t.typcategory, t.typelem, t.typbasetype, t.typtypmod,
                   t.typdelim, t.typreceive::regproc::text, t.typrelid, r.rngsubtype, m.rngtypid""";
    private static final String TYPE_JOINS = """
              JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
              LEFT JOIN pg_catalog.pg_range r ON r.rngtypid = t.oid
              LEFT JOIN pg_catalog.pg_range m ON m.rngmultitypid = t.oid""";
    /** Before 14 there are no multiranges, and pg_range has no column for them. */
    private static final String TYPE_JOINS_13 = TYPE_JOINS.replace("pg_catalog.pg_range m ON m.rngmultitypid = t.oid",
            "(SELECT NULL::oid AS rngtypid) m ON false");

    private final Connection connection;
    private String typeJoins;
    private final Map<Integer, PgType> types = new ConcurrentHashMap<>();

    public TypeCatalog(Connection connection) {
        this.connection = connection;
    }

    /** Forgets the types read so far: the database's types changed. */
    public void forget() {
        types.clear();
    }

    /** The type with this oid, read on first use. */
    public PgType type(int oid) {
        PgType known = types.get(oid);
        if (known != null) {
            return known;
        }
        preload(List.of(oid));
        return types.get(oid);
    }

    /**
     * Reads the types with these oids that are not cached yet, and the types they are built on,
     * in one query per level of nesting rather than one per type: on a distant database every
     * query is a round trip.
     */
    public void preload(Collection<Integer> oids) {
        Set<Integer> wanted = new HashSet<>();
        for (int oid : oids) {
            if (!types.containsKey(oid)) {
                wanted.add(oid);
            }
        }
        try {
            complete(new HashMap<>(), wanted);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read type oids " + oids + " from pg_catalog: " + e.getMessage(), e);
        }
    }

    /** Reads the {@code wanted} types and what they are built on, besides the {@code rows} read already, and builds them all. */
    private void complete(Map<Integer, TypeRow> rows, Set<Integer> wanted) throws SQLException {
        while (!wanted.isEmpty()) {
            List<TypeRow> read = read(wanted);
            read.forEach(r -> rows.put(r.oid(), r));
            for (int oid : wanted) {
                if (!rows.containsKey(oid)) {
                    throw new IllegalArgumentException("No type with oid " + oid + " in this database");
                }
            }
            wanted = basesToRead(read, rows);
        }
        for (int oid : rows.keySet()) {
            build(oid, rows);
        }
    }

    /** The types these are built on that are neither known nor among the rows read. */
    private Set<Integer> basesToRead(Collection<TypeRow> of, Map<Integer, TypeRow> rows) {
        Set<Integer> wanted = new HashSet<>();
        for (TypeRow r : of) {
            int base = r.builtOn();
            if (base != 0 && !types.containsKey(base) && !rows.containsKey(base)) {
                wanted.add(base);
            }
        }
        return wanted;
    }

    /** The columns of a table in order, without dropped ones. */
    public List<PgColumn> columns(String schema, String table) {
        // The columns' types come with them (one round trip less, on a distant target one per
        // table loaded); only the types those are built on are read after.
        List<Object[]> raw = new ArrayList<>();
        Map<Integer, TypeRow> rows = new HashMap<>();
        try (PreparedStatement s = connection.prepareStatement("SELECT a.attname, a.atttypid, a.atttypmod, a.attndims, a.attnotnull, "
                + "pg_catalog.format_type(a.atttypid, a.atttypmod), a.attgenerated <> '', " + TYPE_COLUMNS
                + "\n  FROM pg_catalog.pg_attribute a\n  JOIN pg_catalog.pg_type t ON t.oid = a.atttypid\n" + typeJoins()
                + "\n WHERE a.attrelid = (pg_catalog.quote_ident(?) || '.' || pg_catalog.quote_ident(?))::regclass"
                + " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            s.setString(1, schema);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    raw.add(new Object[] {rs.getString(1), (int) rs.getLong(2), rs.getInt(3), rs.getInt(4), !rs.getBoolean(5),
                            rs.getString(6), rs.getBoolean(7)});
                    TypeRow type = TypeRow.of(rs, 8);
                    if (!types.containsKey(type.oid())) {
                        rows.put(type.oid(), type);
                    }
                }
            }
            complete(rows, basesToRead(rows.values(), rows));
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the columns of " + schema + "." + table + ": " + e.getMessage(), e);
        }
        List<PgColumn> columns = new ArrayList<>();
        for (Object[] c : raw) {
            columns.add(new PgColumn(schema + "." + table, (String) c[0], type((Integer) c[1]), (Integer) c[2], (Integer) c[3],
                    (Boolean) c[4], (String) c[5], (Boolean) c[6]));
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("Table " + schema + "." + table + " has no columns or does not exist");
        }
        return columns;
    }

    /**
     * The columns that identify a row, in key order: the primary key; without one, the index
     * chosen as replica identity ({@code REPLICA IDENTITY USING INDEX}); empty when there is
     * neither (such a table's events have no key).
     */
    public List<String> keyColumns(String schema, String table) {
        String sql = """
                SELECT a.attname
                  FROM pg_catalog.pg_index i
                  CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
                  JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                 WHERE i.indrelid = (pg_catalog.quote_ident(?) || '.' || pg_catalog.quote_ident(?))::regclass
                   AND i.indexrelid = (SELECT x.indexrelid FROM pg_catalog.pg_index x
                                        WHERE x.indrelid = i.indrelid AND (x.indisprimary OR x.indisreplident)
                                        ORDER BY x.indisprimary DESC LIMIT 1)
                 ORDER BY k.position""";
        List<String> columns = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            s.setString(1, schema);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the key of " + schema + "." + table + ": " + e.getMessage(), e);
        }
        return columns;
    }

    /** One row of {@link #TYPE_COLUMNS}. */
    private record TypeRow(int oid, String schema, String name, char typtype, char category, int element, int base, int typmod,
            char delimiter, String receive, int relation, int rangeSubtype, int multirangeRange) {

        /** The row's {@link #TYPE_COLUMNS}, from column {@code first} on. */
        static TypeRow of(ResultSet rs, int first) throws SQLException {
            int i = first;
            return new TypeRow((int) rs.getLong(i), rs.getString(i + 1), rs.getString(i + 2), rs.getString(i + 3).charAt(0),
                    rs.getString(i + 4).charAt(0), (int) rs.getLong(i + 5), (int) rs.getLong(i + 6), rs.getInt(i + 7),
                    rs.getString(i + 8).charAt(0), rs.getString(i + 9), (int) rs.getLong(i + 10), (int) rs.getLong(i + 11),
                    (int) rs.getLong(i + 12));
        }

        /** The type this one is made of (a domain's base, an array's element, a range's subtype), or 0. */
        int builtOn() {
            return switch (typtype) {
                case 'd' -> base;
                case 'r' -> rangeSubtype;
                case 'm' -> multirangeRange;
                case 'e', 'c', 'p' -> 0;
                default -> category == 'A' ? element : 0;
            };
        }
    }

    private String typeJoins() throws SQLException {
        if (typeJoins == null) {
            typeJoins = connection.getMetaData().getDatabaseMajorVersion() >= 14 ? TYPE_JOINS : TYPE_JOINS_13;
        }
        return typeJoins;
    }

    private List<TypeRow> read(Set<Integer> oids) throws SQLException {
        List<TypeRow> rows = new ArrayList<>();
        String query = "SELECT " + TYPE_COLUMNS + "\n  FROM pg_catalog.pg_type t\n" + typeJoins() + "\n WHERE t.oid = ANY (?::oid[])";
        try (PreparedStatement s = connection.prepareStatement(query)) {
            s.setArray(1, connection.createArrayOf("int8", oids.stream().map(oid -> oid & 0xFFFFFFFFL).toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(TypeRow.of(rs, 1));
                }
            }
        }
        return rows;
    }

    /** The type of this oid from the rows read, the types it is built on first. */
    private PgType build(int oid, Map<Integer, TypeRow> rows) throws SQLException {
        PgType known = types.get(oid);
        if (known != null) {
            return known;
        }
        TypeRow r = rows.get(oid);
        PgType on = r.builtOn() == 0 ? null : build(r.builtOn(), rows);
        PgType built = switch (r.typtype()) {
            case 'd' -> new PgType(oid, r.schema(), r.name(), PgType.Kind.DOMAIN, r.receive(), r.delimiter(), r.typmod(), on, null, null);
            case 'e' -> new PgType(oid, r.schema(), r.name(), PgType.Kind.ENUM, r.receive(), r.delimiter(), -1, null, enumLabels(oid), null);
            case 'c' -> new PgType(oid, r.schema(), r.name(), PgType.Kind.COMPOSITE, r.receive(), r.delimiter(), -1, null, null,
                    compositeFields(r.relation()));
            case 'r' -> new PgType(oid, r.schema(), r.name(), PgType.Kind.RANGE, r.receive(), r.delimiter(), -1, on, null, null);
            case 'm' -> new PgType(oid, r.schema(), r.name(), PgType.Kind.MULTIRANGE, r.receive(), r.delimiter(), -1, on, null, null);
            case 'p' -> new PgType(oid, r.schema(), r.name(), PgType.Kind.PSEUDO, r.receive(), r.delimiter(), -1, null, null, null);
            default -> on != null
                    ? new PgType(oid, r.schema(), r.name(), PgType.Kind.ARRAY, r.receive(), r.delimiter(), -1, on, null, null)
                    : new PgType(oid, r.schema(), r.name(), PgType.Kind.BASE, r.receive(), r.delimiter(), -1, null, null, null);
        };
        types.put(oid, built);
        return built;
    }

    private List<String> enumLabels(int oid) throws SQLException {
        List<String> labels = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT enumlabel FROM pg_catalog.pg_enum WHERE enumtypid = ? ORDER BY enumsortorder")) {
            s.setLong(1, oid & 0xFFFFFFFFL);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    labels.add(rs.getString(1));
                }
            }
        }
        return labels;
    }

    private List<PgAttribute> compositeFields(int relation) throws SQLException {
        List<Object[]> raw = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement("""
                SELECT attname, atttypid, atttypmod FROM pg_catalog.pg_attribute
                 WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped ORDER BY attnum""")) {
            s.setLong(1, relation & 0xFFFFFFFFL);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    raw.add(new Object[] {rs.getString(1), (int) rs.getLong(2), rs.getInt(3)});
                }
            }
        }
        preload(raw.stream().map(f -> (Integer) f[1]).toList());
        List<PgAttribute> fields = new ArrayList<>();
        for (Object[] f : raw) {
            fields.add(new PgAttribute((String) f[0], type((Integer) f[1]), (Integer) f[2]));
        }
        return fields;
    }
}
