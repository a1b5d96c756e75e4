package io.sluice.runtime.verify;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.SelectedTables;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.naming.TopicNames;
import io.sluice.transforms.anonymize.AnonymizeConfig;

/**
 * What {@code sluice verify} compares of a selected table: its target table by the sink's name
 * format, the key rows are matched by, the columns compared, and those left out and why
 * (not listed, anonymized, generated).
 */
final class TablePlans {

    private TablePlans() {
    }

    /** The table as compared: {@code prefix} and {@code format} name its target table as the sink does. */
    static ComparedTable plan(Connection source, SelectedTables.Table t, String prefix, String format,
                                      List<AnonymizeConfig> anonymized)
            throws SQLException {
        String quoted = Identifiers.quote(t.schema(), t.name());
        Map<String, Boolean> all = columns(source, quoted);
        List<String> key = key(source, quoted);
        List<String> compared = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        for (String c : all.keySet()) {
            boolean listed = t.columns() == null || t.columns().contains(c) || key.contains(c);
            if (!listed) {
                continue;
            }
            if (all.get(c)) {
                // The stream does not carry it (PostgreSQL computes it on each side), so a changed row's image lacks it.
                leftOut.add(c + " (generated)");
            } else if (changes(anonymized, t.schema(), t.name(), c)) {
                leftOut.add(c + " (anonymized)");
            } else {
                compared.add(c);
            }
        }
        List<String> sourceKey = key;
        if (key.stream().anyMatch(k -> !compared.contains(k))) {
            leftOut.add("its key is anonymized: rows compared as a whole");
            key = List.of();
        }
        String name = format.replace("${schema}", t.schema()).replace("${table}", t.name())
                .replace("${topic}", TopicNames.forTable(prefix, t.schema(), t.name()));
        int dot = name.indexOf('.');
        String targetTable = dot < 0 ? Identifiers.quote("public", name) : Identifiers.quote(name.substring(0, dot), name.substring(dot + 1));
        return new ComparedTable(t.schema() + "." + t.name(), quoted, targetTable, key, compared, leftOut, t.rowFilter(), sourceKey);
    }

    private static boolean changes(List<AnonymizeConfig> anonymized, String schema, String table, String column) {
        return anonymized.stream().anyMatch(a -> a.changes(schema, table, column));
    }

    /** The table's columns in order, each with whether it is generated ({@code GENERATED ALWAYS AS}). */
    private static Map<String, Boolean> columns(Connection c, String table) throws SQLException {
        Map<String, Boolean> out = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT attname, attgenerated <> '' FROM pg_catalog.pg_attribute "
                + "WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getBoolean(2));
                }
            }
        }
        return out;
    }

    /** The primary key's columns, else the replica identity index's; empty when there is neither. */
    private static List<String> key(Connection c, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT a.attname FROM (SELECT indrelid, indkey FROM pg_catalog.pg_index "
                + "WHERE indrelid = ?::regclass AND (indisprimary OR indisreplident) ORDER BY indisprimary DESC LIMIT 1) i "
                + "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(n, o) "
                + "JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o")) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
