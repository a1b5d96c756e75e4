package io.sluice.sink.postgres.subset;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ArrayList;
import java.util.Map;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.ConstraintColumns;
import io.sluice.schemas.postgres.DeclaredColumns;

/**
 * The target's foreign keys and column types, as a staging subset's rule reads them: which row
 * a row references, and how to look a key up. Read from the target's catalog, per table, until
 * {@link #forget}.
 */
final class TargetLinks {

    /**
     * A foreign key of a target table.
     *
     * @param parent the referenced table, quoted and qualified
     */
    record Link(String name, List<String> columns, String parent, List<String> parentColumns, List<String> parentTypes) {
    }

    private final Connection catalog;
    private final Map<String, List<Link>> links = new HashMap<>();
    private final Map<String, Map<String, String>> types = new HashMap<>();
    private final Map<String, String> roots = new HashMap<>();

    TargetLinks(Connection catalog) {
        this.catalog = catalog;
    }

    /** The foreign keys of a table (quoted, qualified), its partitions' copies of its keys included. */
    List<Link> of(String table) throws SQLException {
        List<Link> known = links.get(table);
        if (known != null) {
            return known;
        }
        List<Link> read = new ArrayList<>();
        try (PreparedStatement s = catalog.prepareStatement("SELECT c.conname, " + ConstraintColumns.names("conkey", "conrelid") + ", "
                + ConstraintColumns.quotedName("pn", "pc") + ", " + ConstraintColumns.names("confkey", "confrelid") + ", "
                + ConstraintColumns.types("confkey", "confrelid") + " FROM pg_catalog.pg_constraint c"
                + " JOIN pg_catalog.pg_class pc ON pc.oid = c.confrelid JOIN pg_catalog.pg_namespace pn ON pn.oid = pc.relnamespace"
                + " WHERE c.contype = 'f' AND c.conrelid = ?::regclass ORDER BY 1")) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    read.add(new Link(rs.getString(1), strings(rs, 2), rs.getString(3), strings(rs, 4), strings(rs, 5)));
                }
            }
        }
        links.put(table, read);
        return read;
    }

    /** The table's columns and their types as {@code format_type} spells them. */
    Map<String, String> types(String table) throws SQLException {
        Map<String, String> known = types.get(table);
        if (known != null) {
            return known;
        }
        Map<String, String> read = DeclaredColumns.of(catalog, table).types();
        types.put(table, read);
        return read;
    }

    /**
     * The partitioned table at the top of a partition's tree (quoted, qualified), the table itself
     * when it is none: rows are known by the table a foreign key references, which is the root.
     */
    String root(String table) throws SQLException {
        String known = roots.get(table);
        if (known != null) {
            return known;
        }
        try (PreparedStatement s = catalog.prepareStatement("SELECT " + ConstraintColumns.quotedName("n", "c")
                + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE c.oid = coalesce(pg_catalog.pg_partition_root(?::regclass), ?::regclass)")) {
            s.setString(1, table);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                known = rs.next() ? rs.getString(1) : table;
            }
        }
        roots.put(table, known);
        return known;
    }

    /** Forgets what it read: the target's schema changed. */
    void forget() {
        links.clear();
        types.clear();
        roots.clear();
    }

    static String quoted(String[] target) {
        return Identifiers.quote(target[0], target[1]);
    }

    private static List<String> strings(ResultSet rs, int column) throws SQLException {
        return List.copyOf(Arrays.asList((String[]) rs.getArray(column).getArray()));
    }
}
