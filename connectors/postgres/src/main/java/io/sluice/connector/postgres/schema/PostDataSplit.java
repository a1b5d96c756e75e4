package io.sluice.connector.postgres.schema;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.ddl.DumpScript;
import io.sluice.schemas.naming.Identifiers;

/**
 * The post-data schema cut by table, so that a table's indexes and key constraints can be
 * built as soon as its rows are in, while other tables are still copied. Each selected table
 * gets its own indexes, its primary key, unique, exclusion and check constraints; everything
 * that spans tables or has no table (foreign keys, index attachments, triggers, sequence
 * values...) stays in the rest, for the end of the snapshot.
 *
 * <p>A primary key or unique constraint becomes a {@code CREATE UNIQUE INDEX} plus an
 * {@code ADD CONSTRAINT ... USING INDEX}: the constraint form takes an exclusive lock for the
 * whole build, which would make a table's other index builds wait, while the index form lets
 * them all run at once and the attachment takes a moment.
 */
public final class PostDataSplit {

    private final DumpScript rest;
    private final Map<Long, DumpScript> byTable;

    private PostDataSplit(DumpScript rest, Map<Long, DumpScript> byTable) {
        this.rest = rest;
        this.byTable = byTable;
    }

    /**
     * @param postData   the post-data script (pg_dump format), may be null
     * @param inSnapshot a connection in the snapshot the script was dumped from
     */
    public static PostDataSplit of(String postData, Connection inSnapshot, List<SelectedTable> tables) throws SQLException {
        DumpScript script = DumpScript.parse(postData);
        Map<Long, List<DumpScript.Entry>> indexes = new LinkedHashMap<>();
        Map<Long, List<DumpScript.Entry>> constraints = new LinkedHashMap<>();
        List<DumpScript.Entry> rest = new ArrayList<>();
        if (script.isEmpty() || tables.isEmpty()) {
            return new PostDataSplit(script, Map.of());
        }
        Catalog catalog = Catalog.read(inSnapshot, tables);
        for (DumpScript.Entry entry : script.entries()) {
            switch (entry.type()) {
                case "INDEX" -> {
                    Long table = catalog.indexes.get(entry.schema() + "\0" + entry.name());
                    if (table == null) {
                        rest.add(entry);
                    } else {
                        indexes.computeIfAbsent(table, t -> new ArrayList<>()).add(entry);
                    }
                }
                case "CONSTRAINT", "CHECK CONSTRAINT" -> {
                    Constraint constraint = catalog.constraints.get(entry.schema() + "\0" + entry.name());
                    if (constraint == null) {
                        rest.add(entry);
                        break;
                    }
                    List<DumpScript.Entry> rewritten = constraint.asIndexAndAttachment(entry);
                    if (rewritten == null) {
                        constraints.computeIfAbsent(constraint.table, t -> new ArrayList<>()).add(entry);
                    } else {
                        indexes.computeIfAbsent(constraint.table, t -> new ArrayList<>()).add(rewritten.get(0));
                        constraints.computeIfAbsent(constraint.table, t -> new ArrayList<>()).add(rewritten.get(1));
                    }
                }
                default -> rest.add(entry);
            }
        }
        Map<Long, DumpScript> byTable = new HashMap<>();
        for (SelectedTable t : tables) {
            List<DumpScript.Entry> entries = new ArrayList<>(indexes.getOrDefault(t.oid(), List.of()));
            entries.addAll(constraints.getOrDefault(t.oid(), List.of()));
            if (!entries.isEmpty()) {
                byTable.put(t.oid(), script.withEntries(entries));
            }
        }
        return new PostDataSplit(script.withEntries(rest), byTable);
    }

    /** The table's own post-data: its indexes first, then its constraints; null when it has none. */
    public String forTable(SelectedTable table) {
        DumpScript script = byTable.get(table.oid());
        return script == null ? null : script.render();
    }

    /** What is left for the end of the snapshot. */
    public String rest() {
        return rest.render();
    }

    /** Everything: the tables' parts first, then the rest, for a run that builds it all at the end. */
    public String all() {
        List<DumpScript.Entry> entries = new ArrayList<>();
        byTable.values().forEach(s -> entries.addAll(s.entries()));
        entries.addAll(rest.entries());
        return rest.withEntries(entries).render();
    }

    private record Constraint(long table, char type, String name, String index, String indexDefinition, boolean deferrable,
                              boolean deferred, boolean plainTable) {

        /** The index build and the attachment, or null when the constraint must stay as it is. */
        List<DumpScript.Entry> asIndexAndAttachment(DumpScript.Entry entry) {
            if ((type != 'p' && type != 'u') || !plainTable || indexDefinition == null || index == null) {
                return null;
            }
            String sql = entry.sql();
            int firstLineEnd = sql.indexOf('\n');
            int statementEnd = sql.indexOf(";");
            if (!sql.startsWith("ALTER TABLE ONLY ") || firstLineEnd < 0 || statementEnd < firstLineEnd
                    || !sql.substring(firstLineEnd, statementEnd).stripLeading().startsWith("ADD CONSTRAINT ")
                    || sql.contains("default_tablespace")) {
                return null; // not the form pg_dump writes for a plain key; keep it
            }
            String attach = sql.substring(0, firstLineEnd) + "\n    ADD CONSTRAINT " + Identifiers.quote(name)
                    + (type == 'p' ? " PRIMARY KEY" : " UNIQUE") + " USING INDEX " + Identifiers.quote(index)
                    + (deferrable ? " DEFERRABLE" : "") + (deferred ? " INITIALLY DEFERRED" : "") + ";" + sql.substring(statementEnd + 1);
            return List.of(new DumpScript.Entry(index, "INDEX", entry.schema(), indexDefinition + ";"),
                    new DumpScript.Entry(entry.name(), entry.type(), entry.schema(), attach));
        }
    }

    /** Which selected table each index and constraint of the dump belongs to, keyed as pg_dump names them. */
    private record Catalog(Map<String, Long> indexes, Map<String, Constraint> constraints) {

        static Catalog read(Connection c, List<SelectedTable> tables) throws SQLException {
            Map<String, Long> indexes = new HashMap<>();
            Map<String, Constraint> constraints = new HashMap<>();
            Array oids = c.createArrayOf("bigint", tables.stream().map(SelectedTable::oid).toArray());
            try (PreparedStatement s = c.prepareStatement("""
                    SELECT n.nspname, i.relname, x.indrelid::bigint
                      FROM pg_catalog.pg_index x
                      JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
                      JOIN pg_catalog.pg_namespace n ON n.oid = i.relnamespace
                     WHERE x.indrelid::bigint = ANY (?)""")) {
                s.setArray(1, oids);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        indexes.put(rs.getString(1) + "\0" + rs.getString(2), rs.getLong(3));
                    }
                }
            }
            String searchPath = null;
            try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.current_setting('search_path')")) {
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    searchPath = rs.getString(1);
                }
            }
            // With an empty search path the index definitions name their tables with the schema, as pg_dump's do.
            setSearchPath(c, "pg_catalog");
            try (PreparedStatement s = c.prepareStatement("""
                    SELECT n.nspname, t.relname, c.conname, c.conrelid::bigint, c.contype, t.relkind,
                           CASE WHEN c.contype IN ('p', 'u') AND c.conindid <> 0 THEN pg_catalog.pg_get_indexdef(c.conindid) END,
                           i.relname, c.condeferrable, c.condeferred
                      FROM pg_catalog.pg_constraint c
                      JOIN pg_catalog.pg_class t ON t.oid = c.conrelid
                      JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
                      LEFT JOIN pg_catalog.pg_class i ON i.oid = c.conindid
                     WHERE c.conrelid::bigint = ANY (?) AND c.contype <> 'f'""")) {
                s.setArray(1, oids);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        constraints.put(rs.getString(1) + "\0" + rs.getString(2) + " " + rs.getString(3),
                                new Constraint(rs.getLong(4), rs.getString(5).charAt(0), rs.getString(3), rs.getString(8), rs.getString(7),
                                        rs.getBoolean(9), rs.getBoolean(10), "r".equals(rs.getString(6))));
                    }
                }
            } finally {
                setSearchPath(c, searchPath);
            }
            return new Catalog(indexes, constraints);
        }

        private static void setSearchPath(Connection c, String path) throws SQLException {
            try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.set_config('search_path', ?, true)")) {
                s.setString(1, path);
                s.executeQuery().close();
            }
        }
    }
}
