package io.sluice.schemas.types;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads type descriptions from one database's {@code pg_catalog} and caches them by oid.
 * Oids of user-defined types (enums, domains, composites, extension types such as hstore)
 * differ between databases, so a catalog belongs to the database it was read from: decode
 * with the source's catalog, encode with the target's.
 */
public final class TypeCatalog {

    private static final String TYPE_QUERY = """
            SELECT t.oid, n.nspname, t.typname, t.typtype, t.typcategory, t.typelem, t.typbasetype, t.typtypmod,
                   t.typdelim, t.typreceive::regproc::text, t.typrelid, r.rngsubtype, m.rngtypid
              FROM pg_catalog.pg_type t
              JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
              LEFT JOIN pg_catalog.pg_range r ON r.rngtypid = t.oid
              LEFT JOIN pg_catalog.pg_range m ON m.rngmultitypid = t.oid
             WHERE t.oid = ?""";

    private final Connection connection;
    private final Map<Integer, PgType> types = new ConcurrentHashMap<>();

    public TypeCatalog(Connection connection) {
        this.connection = connection;
    }

    /** The type with this oid, read on first use. */
    public PgType type(int oid) {
        PgType known = types.get(oid);
        if (known != null) {
            return known;
        }
        try {
            PgType loaded = load(oid);
            types.put(oid, loaded);
            return loaded;
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read type oid " + oid + " from pg_catalog: " + e.getMessage(), e);
        }
    }

    /** The columns of a table in order, without dropped ones. */
    public List<PgColumn> columns(String schema, String table) {
        String sql = """
                SELECT a.attname, a.atttypid, a.atttypmod, a.attndims, a.attnotnull,
                       pg_catalog.format_type(a.atttypid, a.atttypmod), a.attgenerated <> ''
                  FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid = (pg_catalog.quote_ident(?) || '.' || pg_catalog.quote_ident(?))::regclass
                   AND a.attnum > 0 AND NOT a.attisdropped
                 ORDER BY a.attnum""";
        List<PgColumn> columns = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            s.setString(1, schema);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.add(new PgColumn(schema + "." + table, rs.getString(1), type((int) rs.getLong(2)), rs.getInt(3),
                            rs.getInt(4), !rs.getBoolean(5), rs.getString(6), rs.getBoolean(7)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the columns of " + schema + "." + table + ": " + e.getMessage(), e);
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

    private PgType load(int oid) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(TYPE_QUERY)) {
            s.setLong(1, oid & 0xFFFFFFFFL);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("No type with oid " + oid + " in this database");
                }
                String schema = rs.getString(2);
                String name = rs.getString(3);
                char typtype = rs.getString(4).charAt(0);
                char category = rs.getString(5).charAt(0);
                int element = (int) rs.getLong(6);
                int base = (int) rs.getLong(7);
                int typmod = rs.getInt(8);
                char delimiter = rs.getString(9).charAt(0);
                String receive = rs.getString(10);
                int relation = (int) rs.getLong(11);
                int rangeSubtype = (int) rs.getLong(12);
                int multirangeRange = (int) rs.getLong(13);

                return switch (typtype) {
                    case 'd' -> new PgType(oid, schema, name, PgType.Kind.DOMAIN, receive, delimiter, typmod, type(base), null, null);
                    case 'e' -> new PgType(oid, schema, name, PgType.Kind.ENUM, receive, delimiter, -1, null, enumLabels(oid), null);
                    case 'c' -> new PgType(oid, schema, name, PgType.Kind.COMPOSITE, receive, delimiter, -1, null, null,
                            compositeFields(relation));
                    case 'r' -> new PgType(oid, schema, name, PgType.Kind.RANGE, receive, delimiter, -1, type(rangeSubtype), null, null);
                    case 'm' -> new PgType(oid, schema, name, PgType.Kind.MULTIRANGE, receive, delimiter, -1, type(multirangeRange), null, null);
                    case 'p' -> new PgType(oid, schema, name, PgType.Kind.PSEUDO, receive, delimiter, -1, null, null, null);
                    default -> category == 'A' && element != 0
                            ? new PgType(oid, schema, name, PgType.Kind.ARRAY, receive, delimiter, -1, type(element), null, null)
                            : new PgType(oid, schema, name, PgType.Kind.BASE, receive, delimiter, -1, null, null, null);
                };
            }
        }
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
        List<PgAttribute> fields = new ArrayList<>();
        for (Object[] f : raw) {
            fields.add(new PgAttribute((String) f[0], type((Integer) f[1]), (Integer) f[2]));
        }
        return fields;
    }
}
