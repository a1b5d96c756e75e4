package io.sluice.sink.postgres.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.regex.Pattern;

import io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType;
import io.sluice.schemas.envelope.SchemaChangeEvents.ColumnDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import io.sluice.schemas.naming.Identifiers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a streamed schema-change event to the target inside the caller's transaction: per
 * table, a rename, a drop, or creation (with enum types it needs), then column changes, then
 * (after reading the table again) index and key changes.
 */
public final class StreamedSchemaChange {

    private static final Logger LOG = LoggerFactory.getLogger(StreamedSchemaChange.class);
    private static final Pattern CASCADE = Pattern.compile("(?i)\\bcascade\\b");

    private StreamedSchemaChange() {
    }

    /**
     * @param ddl      the source's statement, or null
     * @param targetOf the target {schema, table} of a source {schema, table}
     * @return the target tables it changed, as {schema, table}
     */
    public static List<String[]> apply(Connection c, List<TableChange> changes, String ddl, Function<String[], String[]> targetOf)
            throws SQLException {
        List<String[]> touched = new ArrayList<>();
        for (TableChange change : changes) {
            String[] target = targetOf.apply(Identifiers.unquoteQualified(change.id()));
            String table = Identifiers.quote(target[0], target[1]);
            touched.add(target);
            if (change.type() == ChangeType.DROP) {
                execute(c, List.of(TableDdl.drop(table, ddl != null && CASCADE.matcher(ddl).find())));
                continue;
            }
            TargetDefinition current = TargetDefinition.read(c, table);
            if (!current.exists() && change.previousId() != null) {
                String[] previous = targetOf.apply(Identifiers.unquoteQualified(change.previousId()));
                if (TargetDefinition.read(c, Identifiers.quote(previous[0], previous[1])).exists()) {
                    execute(c, TableDdl.rename(previous, target));
                    touched.add(previous);
                    current = TargetDefinition.read(c, table);
                }
            }
            if (!current.exists()) {
                execute(c, missingEnumTypes(c, change));
                String parent = null;
                if (change.partitionOf() != null) {
                    String[] p = targetOf.apply(Identifiers.unquoteQualified(change.partitionOf()));
                    parent = Identifiers.quote(p[0], p[1]);
                }
                execute(c, List.of(TableDdl.create(change, table, parent)));
                current = TargetDefinition.read(c, table);
            }
            execute(c, TableDdl.columnChanges(change, table, current));
            execute(c, TableDdl.indexChanges(change, table, target[0], TargetDefinition.read(c, table)));
        }
        return touched;
    }

    /** Enum types a new table's columns use that the target lacks (created on the source during streaming). */
    private static List<String> missingEnumTypes(Connection c, TableChange change) throws SQLException {
        Set<String> out = new LinkedHashSet<>();
        for (ColumnDefinition column : change.columns()) {
            if (column.enumValues() == null || column.enumValues().isEmpty()) {
                continue;
            }
            try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.to_regtype(?) IS NULL")) {
                s.setString(1, column.typeExpression());
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        StringJoiner labels = new StringJoiner(", ", "(", ")");
                        column.enumValues().forEach(l -> labels.add("'" + l.replace("'", "''") + "'"));
                        out.add("CREATE TYPE " + column.typeExpression() + " AS ENUM " + labels);
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    private static void execute(Connection c, List<String> statements) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                LOG.info("Schema change: {}", sql);
                s.execute(sql);
            }
        }
    }
}
