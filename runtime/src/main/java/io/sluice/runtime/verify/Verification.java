package io.sluice.runtime.verify;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.connector.postgres.SelectedTables;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.pipeline.PipelineTransforms;
import io.sluice.runtime.targets.TargetKind;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.naming.TopicNames;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.Relations;
import io.sluice.sink.postgres.PostgresSinkConfig;
import io.sluice.transforms.anonymize.AnonymizeConfig;

/**
 * {@code sluice verify}: compares each selected table of a pipeline on its PostgreSQL target with
 * its source, and reports each one equal or how it differs. Row filters and column lists are
 * taken into account; columns Anonymize changes are left out (said so), and a table whose key
 * it changes is compared as a whole. It compares the two as they are while it reads them: a
 * pipeline still applying changes shows those as differences.
 */
public final class Verification {

    /** Exit codes: everything equal, something differs, could not compare. */
    public static final int EQUAL = 0;
    public static final int DIFFERS = 1;
    public static final int CANNOT = 2;

    private Verification() {
    }

    /**
     * Compares the tables the pipeline selects and prints the report.
     *
     * @return {@link #EQUAL}, {@link #DIFFERS} or {@link #CANNOT}
     */
    public static int run(PipelineSpec spec, PrintStream out, PrintStream err) throws SQLException {
        if (spec.targetKind() != TargetKind.POSTGRES) {
            err.println("sluice verify: compares PostgreSQL targets; comparing a " + spec.targetKind().name().toLowerCase(java.util.Locale.ROOT)
                    + " target is planned, not built yet");
            return CANNOT;
        }
        if (!PipelineTransforms.onlyAnonymize(spec.transforms())) {
            err.println("sluice verify: the pipeline's transforms other than Anonymize change rows in ways verify cannot follow: "
                    + "compare without them (a pipeline file without those transforms, same source and target)");
            return CANNOT;
        }
        PostgresSourceConfig config = new PostgresSourceConfig(spec.source());
        List<String> subset = spec.source().keySet().stream().filter(k -> k.startsWith("subset.")).sorted().toList();
        if (!subset.isEmpty()) {
            err.println("sluice verify: " + String.join(", ", subset) + ": comparing a staging subset is planned, not built yet");
            return CANNOT;
        }
        PostgresSinkConfig target = new PostgresSinkConfig(spec.target());
        List<AnonymizeConfig> anonymized = new ArrayList<>();
        for (Map<String, String> props : PipelineTransforms.anonymizers(spec.transforms()).values()) {
            anonymized.add(AnonymizeConfig.parse(props));
        }
        try (Connection source = PgConnect.open(PostgresSourceConnector.endpoint(config), "sluice verify");
             Connection sink = PgConnect.open(target.endpoint(), "sluice verify")) {
            TableSide.settle(source);
            TableSide.settle(sink);
            List<SelectedTables.Table> selected = SelectedTables.of(config, source);
            List<ComparedTable> tables = new ArrayList<>();
            for (SelectedTables.Table t : selected) {
                tables.add(plan(source, t, config.topicPrefix(), target.tableNameFormat(), anonymized));
            }
            if (tables.isEmpty()) {
                err.println("sluice verify: the pipeline selects no table on the source: nothing to compare");
                return CANNOT;
            }
            int result = EQUAL;
            for (ComparedTable t : tables) {
                if (!Relations.exists(sink, t.target())) {
                    out.println(t.name() + ": DIFFERS: the target has no table " + t.target());
                    result = DIFFERS;
                    continue;
                }
                TableComparison.Outcome o = TableComparison.compare(t, source, sink);
                out.println(o.line());
                if (!t.leftOut().isEmpty()) {
                    out.println("  not compared: " + String.join(", ", t.leftOut()));
                }
                if (!o.equal()) {
                    result = DIFFERS;
                }
            }
            out.println(result == EQUAL ? tables.size() + " tables equal" : "Some tables differ");
            return result;
        }
    }

    private static ComparedTable plan(Connection source, SelectedTables.Table t, String prefix, String format,
                                      List<AnonymizeConfig> anonymized)
            throws SQLException {
        String quoted = Identifiers.quote(t.schema(), t.name());
        List<String> all = columns(source, quoted);
        List<String> key = key(source, quoted);
        List<String> compared = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        for (String c : all) {
            boolean listed = t.columns() == null || t.columns().contains(c) || key.contains(c);
            if (!listed) {
                continue;
            }
            if (changes(anonymized, t.schema(), t.name(), c)) {
                leftOut.add(c + " (anonymized)");
            } else {
                compared.add(c);
            }
        }
        if (key.stream().anyMatch(k -> !compared.contains(k))) {
            leftOut.add("its key is anonymized: rows compared as a whole");
            key = List.of();
        }
        String name = format.replace("${schema}", t.schema()).replace("${table}", t.name())
                .replace("${topic}", TopicNames.forTable(prefix, t.schema(), t.name()));
        int dot = name.indexOf('.');
        String targetTable = dot < 0 ? Identifiers.quote("public", name) : Identifiers.quote(name.substring(0, dot), name.substring(dot + 1));
        return new ComparedTable(t.schema() + "." + t.name(), quoted, targetTable, key, compared, leftOut, t.rowFilter());
    }

    private static boolean changes(List<AnonymizeConfig> anonymized, String schema, String table, String column) {
        return anonymized.stream().anyMatch(a -> a.changes(schema, table, column));
    }

    private static List<String> columns(Connection c, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = ?::regclass "
                + "AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
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
