package io.sluice.connector.postgres.schema;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.envelope.SequenceEvents;
import io.sluice.schemas.naming.Identifiers;

/**
 * The source's sequences that a copy must keep in step: every sequence of the database, or (for
 * a selection of tables) those the selected tables own (serial and identity columns). Read as of
 * the connection's snapshot.
 */
public final class SequenceValues {

    private static final String QUERY = """
            SELECT s.schemaname, s.sequencename, s.last_value,
                   pg_catalog.has_sequence_privilege(c.oid, 'SELECT') OR pg_catalog.has_sequence_privilege(c.oid, 'USAGE'),
                   (SELECT d.refobjid FROM pg_catalog.pg_depend d
                     WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid
                       AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i') LIMIT 1)::bigint AS owner
              FROM pg_catalog.pg_sequences s
              JOIN pg_catalog.pg_namespace n ON n.nspname = s.schemaname
              JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = s.sequencename
             WHERE s.schemaname NOT IN ('sluice_capture', 'sluice_signals')
             ORDER BY 1, 2""";

    /**
     * What was read.
     *
     * @param values     the sequences that have handed out a value
     * @param unreadable sequences the user may not read (their value is hidden from it), as {@code schema.name}
     */
    public record Read(List<SequenceEvents.Value> values, List<String> unreadable) {
    }

    private SequenceValues() {
    }

    /**
     * @param all             every sequence of the database; else only those owned by a table in {@code selectedTables}
     * @param selectedTables  the oids of the selected tables
     */
    public static Read read(Connection c, boolean all, Set<Long> selectedTables) throws SQLException {
        List<SequenceEvents.Value> values = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(QUERY)) {
            while (rs.next()) {
                long owner = rs.getLong(5);
                if (!all && (rs.wasNull() || !selectedTables.contains(owner))) {
                    continue;
                }
                if (!rs.getBoolean(4)) {
                    unreadable.add(rs.getString(1) + "." + rs.getString(2));
                    continue;
                }
                long last = rs.getLong(3);
                if (!rs.wasNull()) {
                    values.add(new SequenceEvents.Value(rs.getString(1), rs.getString(2), last));
                }
            }
        }
        return new Read(values, unreadable);
    }

    /** The sequences of the database ({@code all}), or those the tables the selector selects now own. */
    public static Read read(Connection c, boolean all, TableSelector selector) throws SQLException {
        Set<Long> selected = new java.util.HashSet<>();
        if (!all) {
            selector.select(c, c.getCatalog()).forEach(t -> selected.add(t.oid()));
        }
        return read(c, all, selected);
    }

    /** {@code setval} for each sequence, in pg_dump's format, for the end of the snapshot's post-data. */
    static String asPostData(List<SequenceEvents.Value> values) {
        StringBuilder sql = new StringBuilder();
        for (SequenceEvents.Value v : values) {
            String name = Identifiers.quote(v.schema(), v.name());
            sql.append("\n--\n-- Name: ").append(v.name()).append("; Type: SEQUENCE SET; Schema: ").append(v.schema())
                    .append("; Owner: -\n--\n\nSELECT pg_catalog.setval('").append(name.replace("'", "''")).append("', ")
                    .append(v.lastValue()).append(", true);\n");
        }
        return sql.toString();
    }
}
