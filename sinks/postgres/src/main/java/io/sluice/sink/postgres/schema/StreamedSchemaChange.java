package io.sluice.sink.postgres.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.regex.Pattern;

import io.sluice.schemas.envelope.ObjectChanges.ObjectChange;
import io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType;
import io.sluice.schemas.envelope.SchemaChangeEvents.ColumnDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.Relations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a streamed schema-change event to the target inside the caller's transaction: the
 * objects other than tables it created or changed (their statements as the source worked them
 * out); per table, a rename, a drop, or creation (with enum types it needs, or the labels an enum type
 * gained), partition attachment, column changes, then (after reading the table again) index and
 * key changes, then check and foreign-key constraints; last, the objects it dropped.
 */
public final class StreamedSchemaChange {

    private static final Logger LOG = LoggerFactory.getLogger(StreamedSchemaChange.class);
    private static final Pattern CASCADE = Pattern.compile("(?i)\\bcascade\\b");

    private StreamedSchemaChange() {
    }

    /**
     * @param objects  objects other than tables the change created, changed or dropped: created and changed before the
     *                 tables (a new table may use a new domain), dropped after them
     * @param ddl      the source's statement, or null
     * @param targetOf the target {schema, table} of a source {schema, table}
     * @return the target tables it changed, as {schema, table}
     */
    public static List<String[]> apply(Connection c, List<TableChange> changes, List<ObjectChange> objects, String ddl,
                                       Function<String[], String[]> targetOf) throws SQLException {
        applyObjects(c, objects.stream().filter(o -> !o.dropped()).toList());
        List<String[]> touched = applyTables(c, changes, ddl, targetOf);
        applyObjects(c, objects.stream().filter(ObjectChange::dropped).toList());
        return touched;
    }

    /**
     * Runs each object's statements in a savepoint of the caller's transaction. An object the
     * target cannot take (a function in a language it lacks, a view of a table it does not have)
     * is named in a warning and left out: objects are not rows, and the rows go on.
     */
    private static void applyObjects(Connection c, List<ObjectChange> objects) throws SQLException {
        for (ObjectChange o : objects) {
            Savepoint savepoint = c.setSavepoint();
            try (Statement s = c.createStatement()) {
                LOG.info("Schema change of {} {}: {}", o.type(), o.id(), o.statements());
                s.execute(o.statements());
                c.releaseSavepoint(savepoint);
            } catch (SQLException e) {
                c.rollback(savepoint);
                LOG.warn("The {} {} could not be {} on the target ({}); it is left out and the changes go on. Statements: {}", o.type(),
                        o.id(), o.dropped() ? "dropped" : "created or changed", e.getMessage(), o.statements());
            }
        }
    }

    private static List<String[]> applyTables(Connection c, List<TableChange> changes, String ddl, Function<String[], String[]> targetOf)
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
            execute(c, enumTypeChanges(c, change));
            String parent = null;
            if (change.partitionOf() != null) {
                String[] p = targetOf.apply(Identifiers.unquoteQualified(change.partitionOf()));
                parent = Identifiers.quote(p[0], p[1]);
            }
            if (!current.exists()) {
                execute(c, List.of(TableDdl.create(change, table, parent)));
                current = TargetDefinition.read(c, table);
            } else {
                if (change.rowsFollow()) {
                    // The source converted the rows with an expression only it has; they follow as a copy.
                    execute(c, List.of("TRUNCATE " + table));
                }
                execute(c, TableDdl.partitionChanges(change, table, current, parent));
            }
            execute(c, TableDdl.columnChanges(change, table, current));
            // Read again after the column changes; index changes leave check and foreign-key constraints as they are.
            TargetDefinition columnsChanged = TargetDefinition.read(c, table);
            execute(c, TableDdl.indexChanges(change, table, target[0], columnsChanged));
            execute(c, TableDdl.constraintChanges(change, table, columnsChanged, id -> existingTarget(c, id, targetOf)));
        }
        return touched;
    }

    /** The target id of a source table, or null when the target has no such table. */
    private static String existingTarget(Connection c, String sourceId, Function<String[], String[]> targetOf) {
        String[] t = targetOf.apply(Identifiers.unquoteQualified(sourceId));
        String id = Identifiers.quote(t[0], t[1]);
        try {
            if (Relations.exists(c, id)) {
                return id;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot look up " + id + " on the target: " + e.getMessage(), e);
        }
        LOG.warn("A foreign key references {}, which the target does not have ({}): it is left out", sourceId, id);
        return null;
    }

    /**
     * Enum types the table's columns use: created when the target lacks them (made on the
     * source during streaming), given the labels the source added or renamed otherwise.
     */
    private static List<String> enumTypeChanges(Connection c, TableChange change) throws SQLException {
        Set<String> out = new LinkedHashSet<>();
        Set<String> seen = new HashSet<>();
        for (ColumnDefinition column : change.columns()) {
            if (column.enumValues() == null || column.enumValues().isEmpty() || !seen.add(column.typeExpression())) {
                continue;
            }
            List<String> labels = targetLabels(c, column.typeExpression());
            if (labels == null) {
                StringJoiner values = new StringJoiner(", ", "(", ")");
                column.enumValues().forEach(l -> values.add("'" + l.replace("'", "''") + "'"));
                out.add("CREATE TYPE " + column.typeExpression() + " AS ENUM " + values);
            } else {
                out.addAll(EnumLabels.changes(column.typeExpression(), labels, column.enumValues()));
            }
        }
        return List.copyOf(out);
    }

    /** The labels of an enum type of the target in sort order; null when the target has no such type. */
    private static List<String> targetLabels(Connection c, String type) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT t.oid IS NULL, e.enumlabel FROM (SELECT pg_catalog.to_regtype(?) AS oid) t "
                + "LEFT JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid ORDER BY e.enumsortorder")) {
            s.setString(1, type);
            try (ResultSet rs = s.executeQuery()) {
                List<String> labels = new ArrayList<>();
                while (rs.next()) {
                    if (rs.getBoolean(1)) {
                        return null;
                    }
                    if (rs.getString(2) != null) {
                        labels.add(rs.getString(2));
                    }
                }
                return labels;
            }
        }
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
