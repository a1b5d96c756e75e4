package io.sluice.connector.postgres.schema;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.ddl.DumpScript;
import io.sluice.schemas.naming.Identifiers;

/**
 * What {@code pg_dump --table} leaves out but the selected tables need on a target: the schemas
 * they and their types live in, the extensions whose types their columns use, and the enum,
 * domain, composite and range types they use (with the types those are built on), deepest
 * first. Each is made only where the target lacks it, so types shared with tables already there
 * are kept.
 */
final class TablesPrelude {

    /** Types the columns use, then what those are built on (array elements, domain bases, range subtypes, composite attributes). */
    private static final String TYPES = """
            WITH RECURSIVE used(oid, depth) AS (
                SELECT a.atttypid, 0 FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid = ANY (?::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
              UNION ALL
                SELECT d.dep, u.depth + 1 FROM used u
                  JOIN pg_catalog.pg_type t ON t.oid = u.oid
                 CROSS JOIN LATERAL (
                        SELECT t.typelem WHERE t.typelem <> 0
                        UNION ALL SELECT t.typbasetype WHERE t.typbasetype <> 0
                        UNION ALL SELECT r.rngsubtype FROM pg_catalog.pg_range r WHERE r.rngtypid = t.oid
                        UNION ALL SELECT m.rngtypid FROM pg_catalog.pg_range m WHERE m.rngmultitypid = t.oid
                        UNION ALL SELECT a.atttypid FROM pg_catalog.pg_attribute a
                                   WHERE t.typtype = 'c' AND a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped) AS d(dep)
                 WHERE u.depth < 32)
            SELECT n.nspname, t.typname, t.typtype, max(u.depth) AS depth, e.extname, en.nspname,
                   CASE t.typtype
                   WHEN 'e' THEN pg_catalog.format('CREATE TYPE %I.%I AS ENUM (%s)', n.nspname, t.typname,
                        (SELECT pg_catalog.string_agg(pg_catalog.quote_literal(l.enumlabel), ', ' ORDER BY l.enumsortorder)
                           FROM pg_catalog.pg_enum l WHERE l.enumtypid = t.oid))
                   WHEN 'd' THEN pg_catalog.format('CREATE DOMAIN %I.%I AS %s', n.nspname, t.typname,
                                                   pg_catalog.format_type(t.typbasetype, t.typtypmod))
                        || CASE WHEN t.typdefault IS NOT NULL THEN ' DEFAULT ' || t.typdefault ELSE '' END
                        || CASE WHEN t.typnotnull THEN ' NOT NULL' ELSE '' END
                        || coalesce((SELECT pg_catalog.string_agg(pg_catalog.format('; ALTER DOMAIN %I.%I ADD CONSTRAINT %I %s', n.nspname,
                                            t.typname, k.conname, pg_catalog.pg_get_constraintdef(k.oid)), '' ORDER BY k.conname)
                                       FROM pg_catalog.pg_constraint k WHERE k.contypid = t.oid AND k.contype = 'c'), '')
                   WHEN 'c' THEN pg_catalog.format('CREATE TYPE %I.%I AS (%s)', n.nspname, t.typname,
                        (SELECT pg_catalog.string_agg(pg_catalog.format('%I %s', a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod)),
                                                      ', ' ORDER BY a.attnum)
                           FROM pg_catalog.pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped))
                   WHEN 'r' THEN (SELECT pg_catalog.format('CREATE TYPE %I.%I AS RANGE (SUBTYPE = %s)', n.nspname, t.typname,
                                                           pg_catalog.format_type(r.rngsubtype, NULL))
                                    FROM pg_catalog.pg_range r WHERE r.rngtypid = t.oid)
                   END
              FROM used u
              JOIN pg_catalog.pg_type t ON t.oid = u.oid
              JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
              LEFT JOIN pg_catalog.pg_depend x ON x.classid = 'pg_catalog.pg_type'::regclass AND x.objid = t.oid AND x.deptype = 'e'
              LEFT JOIN pg_catalog.pg_extension e ON e.oid = x.refobjid
              LEFT JOIN pg_catalog.pg_namespace en ON en.oid = e.extnamespace
             WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
               AND NOT (t.typtype = 'b' AND t.typelem <> 0 AND e.oid IS NULL) -- arrays come with their element type
               AND t.typtype <> 'm'                                           -- multiranges with their range
             GROUP BY t.oid, n.nspname, t.typname, t.typtype, e.extname, en.nspname
             ORDER BY max(u.depth) DESC, n.nspname, t.typname""";

    private static final String MULTIRANGE_BASE = "\n                        UNION ALL SELECT m.rngtypid FROM pg_catalog.pg_range m WHERE m.rngmultitypid = t.oid";

    private static final String SCHEMAS = """
            SELECT DISTINCT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE c.oid = ANY (?::oid[]) ORDER BY 1""";

    private TablesPrelude() {
    }

    /** The entries, in pg_dump's format, to run before the tables' own pre-data. */
    static List<DumpScript.Entry> entries(Connection inSnapshot, List<Long> tables) throws SQLException {
        // format_type and pg_get_constraintdef qualify a name only when the search path does not find it; pg_dump's scripts
        // run with an empty one, so every name must be qualified: read with the search path empty too, then put it back.
        String searchPath;
        try (PreparedStatement s = inSnapshot.prepareStatement("SELECT pg_catalog.current_setting('search_path'), "
                + "pg_catalog.set_config('search_path', '', true)"); ResultSet rs = s.executeQuery()) {
            rs.next();
            searchPath = rs.getString(1);
        }
        try {
            return read(inSnapshot, tables);
        } finally {
            try (PreparedStatement s = inSnapshot.prepareStatement("SELECT pg_catalog.set_config('search_path', ?, true)")) {
                s.setString(1, searchPath);
                s.execute();
            }
        }
    }

    private static List<DumpScript.Entry> read(Connection inSnapshot, List<Long> tables) throws SQLException {
        List<DumpScript.Entry> entries = new ArrayList<>();
        List<String> schemas = new ArrayList<>();
        Array oids = inSnapshot.createArrayOf("bigint", tables.toArray());
        try (PreparedStatement s = inSnapshot.prepareStatement(SCHEMAS)) {
            s.setArray(1, oids);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    schemas.add(rs.getString(1));
                }
            }
        }
        List<DumpScript.Entry> types = new ArrayList<>();
        List<String> extensions = new ArrayList<>();
        // Before 14 there are no multiranges, and pg_range has no column for them.
        String query = inSnapshot.getMetaData().getDatabaseMajorVersion() >= 14 ? TYPES : TYPES.replace(MULTIRANGE_BASE, "");
        try (PreparedStatement s = inSnapshot.prepareStatement(query)) {
            s.setArray(1, oids);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String schema = rs.getString(1);
                    String name = rs.getString(2);
                    String extension = rs.getString(5);
                    if (extension != null) {
                        if (!extensions.contains(extension)) {
                            extensions.add(extension);
                            schemas.add(rs.getString(6));
                            entries.add(new DumpScript.Entry(extension, "EXTENSION", "-", "CREATE EXTENSION IF NOT EXISTS "
                                    + Identifiers.quote(extension) + " WITH SCHEMA " + Identifiers.quote(rs.getString(6)) + ";"));
                        }
                        continue;
                    }
                    String create = rs.getString(7);
                    if (create == null) {
                        continue; // a base type of no extension: only the C code that made it can make it again
                    }
                    schemas.add(schema);
                    String qualified = Identifiers.quote(schema) + "." + Identifiers.quote(name);
                    types.add(new DumpScript.Entry(name, "d".equals(rs.getString(3)) ? "DOMAIN" : "TYPE", schema,
                            "DO $sluice$ BEGIN IF pg_catalog.to_regtype(" + Identifiers.literal(qualified) + ") IS NULL THEN EXECUTE "
                                    + Identifiers.literal(create) + "; END IF; END $sluice$;"));
                }
            }
        }
        List<DumpScript.Entry> out = new ArrayList<>();
        for (String schema : schemas.stream().distinct().toList()) {
            out.add(new DumpScript.Entry(schema, "SCHEMA", "-", "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema) + ";"));
        }
        out.addAll(entries);
        out.addAll(types);
        return out;
    }

}
