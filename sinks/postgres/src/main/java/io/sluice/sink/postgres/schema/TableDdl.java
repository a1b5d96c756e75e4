package io.sluice.sink.postgres.schema;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Function;

import io.sluice.schemas.ddl.ForeignKeys;
import io.sluice.schemas.envelope.SchemaChangeEvents.ColumnDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.ConstraintDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.IndexDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import io.sluice.schemas.naming.Identifiers;

/**
 * The statements that bring a target table to a streamed table definition. They are worked
 * out from the definition and the target's catalog, not by replaying the source's SQL: the
 * target table may have another name, and running them twice does nothing the second time.
 * Columns the source never had and indexes it never named (the target's own) are left alone.
 * Sequence defaults are not copied (the sequence may not exist on the target; values come
 * from the source anyway).
 */
public final class TableDdl {

    private static final String NOT_VALID = " NOT VALID";

    private TableDdl() {
    }

    /** {@code DROP TABLE}; with {@code cascade} when the source's statement cascaded. */
    public static String drop(String table, boolean cascade) {
        return "DROP TABLE IF EXISTS " + table + (cascade ? " CASCADE" : "");
    }

    /** Renames {@code previous} ({schema, table}) to {@code target}, moving it to the target's schema if that differs. */
    public static List<String> rename(String[] previous, String[] target) {
        List<String> out = new ArrayList<>();
        String at = Identifiers.quote(previous[0], previous[1]);
        if (!previous[1].equals(target[1])) {
            out.add("ALTER TABLE " + at + " RENAME TO " + Identifiers.quote(target[1]));
            at = Identifiers.quote(previous[0], target[1]);
        }
        if (!previous[0].equals(target[0])) {
            out.add("ALTER TABLE " + at + " SET SCHEMA " + Identifiers.quote(target[0]));
        }
        return out;
    }

    /** {@code CREATE TABLE} for a table the target lacks; indexes follow with {@link #indexChanges}. */
    public static String create(TableChange change, String table, String parent) {
        if (parent != null && change.partitionBound() != null) {
            return "CREATE TABLE IF NOT EXISTS " + table + " PARTITION OF " + parent + " " + change.partitionBound();
        }
        StringJoiner columns = new StringJoiner(", ", "(", ")");
        for (ColumnDefinition c : change.columns()) {
            columns.add(columnDefinition(c, !c.optional()));
        }
        return "CREATE TABLE IF NOT EXISTS " + table + " " + columns
                + (change.partitionKey() != null ? " PARTITION BY " + change.partitionKey() : "");
    }

    /** Renames, drops, additions and type, nullability and default changes of columns. */
    public static List<String> columnChanges(TableChange change, String table, TargetDefinition current) {
        List<String> out = new ArrayList<>();
        Set<String> names = new HashSet<>(current.columns().keySet());
        Set<String> wanted = new HashSet<>();
        change.columns().forEach(c -> wanted.add(c.name()));
        for (ColumnDefinition c : change.columns()) {
            if (c.previousName() != null && names.contains(c.previousName()) && !names.contains(c.name())) {
                out.add("ALTER TABLE " + table + " RENAME COLUMN " + Identifiers.quote(c.previousName()) + " TO " + Identifiers.quote(c.name()));
                names.remove(c.previousName());
                names.add(c.name());
            }
        }
        for (String dropped : change.droppedColumns()) {
            if (names.contains(dropped) && !wanted.contains(dropped)) {
                out.add("ALTER TABLE " + table + " DROP COLUMN IF EXISTS " + Identifiers.quote(dropped));
                names.remove(dropped);
            }
        }
        for (ColumnDefinition c : change.columns()) {
            String column = Identifiers.quote(c.name());
            if (!names.contains(c.name())) {
                // NOT NULL only where the default fills existing rows; otherwise the source's rows carry the values.
                out.add("ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS "
                        + columnDefinition(c, !c.optional() && (isGenerated(c) || usableDefault(c.defaultValueExpression()))));
                continue;
            }
            TargetDefinition.Column now = current.columns().get(c.name());
            if (now == null) {
                now = current.columns().get(c.previousName()); // renamed by this change
            }
            if (now == null || now.generated() || isGenerated(c)) {
                continue;
            }
            if (!now.type().equals(c.typeExpression())) {
                out.add("ALTER TABLE " + table + " ALTER COLUMN " + column + " TYPE " + c.typeExpression() + " USING " + column + "::"
                        + c.typeExpression());
            }
            if (now.notNull() == c.optional()) {
                out.add("ALTER TABLE " + table + " ALTER COLUMN " + column + (c.optional() ? " DROP NOT NULL" : " SET NOT NULL"));
            }
            String wantedDefault = c.defaultValueExpression();
            if (!isSequence(wantedDefault) && !isSequence(now.defaultExpression()) && !Objects.equals(wantedDefault, now.defaultExpression())) {
                out.add("ALTER TABLE " + table + " ALTER COLUMN " + column + (wantedDefault == null ? " DROP DEFAULT" : " SET DEFAULT " + wantedDefault));
            }
        }
        return out;
    }

    /**
     * Index and key changes: indexes the source dropped, renamed or redefined, and those the
     * target lacks. Run after {@link #columnChanges} and a fresh read of the target, so index
     * definitions compare with the columns' new names.
     *
     * @param schema the target table's schema (indexes live there)
     */
    public static List<String> indexChanges(TableChange change, String table, String schema, TargetDefinition current) {
        List<String> out = new ArrayList<>();
        if (change.indexes() == null) {
            return out;
        }
        Set<String> names = new HashSet<>();
        change.indexes().forEach(i -> names.add(i.name()));
        for (String dropped : change.droppedIndexes()) {
            TargetDefinition.Index index = current.indexes().get(dropped);
            if (index != null && !names.contains(dropped)) {
                out.add(dropIndex(index, table, schema));
            }
        }
        for (IndexDefinition index : change.indexes()) {
            TargetDefinition.Index existing = current.indexes().get(index.name());
            if (existing == null && index.previousName() != null && current.indexes().containsKey(index.previousName())) {
                out.add("ALTER INDEX " + Identifiers.quote(schema, index.previousName()) + " RENAME TO " + Identifiers.quote(index.name()));
                existing = current.indexes().get(index.previousName());
                if (same(existing, index)) {
                    continue;
                }
                existing = new TargetDefinition.Index(index.name(), existing.definition(), existing.constraintName() == null ? null
                        : existing.constraintName().equals(index.previousName()) ? index.name() : existing.constraintName(),
                        existing.constraintDefinition());
            }
            if (existing != null) {
                if (same(existing, index)) {
                    continue;
                }
                out.add(dropIndex(existing, table, schema));
            }
            if (index.constraintName() != null && index.constraintDefinition() != null) {
                out.add("ALTER TABLE " + table + " ADD CONSTRAINT " + Identifiers.quote(index.constraintName()) + " "
                        + index.constraintDefinition());
            } else {
                out.add("CREATE " + (index.unique() ? "UNIQUE " : "") + "INDEX IF NOT EXISTS " + Identifiers.quote(index.name()) + " ON "
                        + table + " " + index.definition());
            }
        }
        return out;
    }

    /**
     * Check and foreign-key constraint changes: those the source dropped (or renamed: one
     * whose definition reappears under a new name), redefined or validated, and those the
     * target lacks. Run after {@link #indexChanges}: a foreign key needs the key it references.
     *
     * @param targetIdOf the target id of a referenced source table, or null when the target lacks that table (the foreign
     *                   key is then left out)
     */
    public static List<String> constraintChanges(TableChange change, String table, TargetDefinition current,
                                                 Function<String, String> targetIdOf) {
        List<String> out = new ArrayList<>();
        if (change.constraints() == null) {
            return out;
        }
        Map<String, String> wanted = new LinkedHashMap<>();
        for (ConstraintDefinition k : change.constraints()) {
            if (k.referencedId() == null) {
                wanted.put(k.name(), k.definition());
                continue;
            }
            String referenced = targetIdOf.apply(k.referencedId());
            if (referenced != null) {
                wanted.put(k.name(), ForeignKeys.withReferencedTable(k.definition(), k.referencedId(), referenced));
            }
        }
        Map<String, String> have = new HashMap<>(current.constraints());
        for (String dropped : change.droppedConstraints()) {
            String definition = have.get(dropped);
            if (definition == null || wanted.containsKey(dropped)) {
                continue;
            }
            have.remove(dropped);
            String renamed = wanted.entrySet().stream().filter(e -> e.getValue().equals(definition) && !have.containsKey(e.getKey()))
                    .map(Map.Entry::getKey).findFirst().orElse(null);
            if (renamed != null) {
                out.add("ALTER TABLE " + table + " RENAME CONSTRAINT " + Identifiers.quote(dropped) + " TO " + Identifiers.quote(renamed));
                have.put(renamed, definition);
            } else {
                out.add("ALTER TABLE " + table + " DROP CONSTRAINT IF EXISTS " + Identifiers.quote(dropped));
            }
        }
        for (Map.Entry<String, String> k : wanted.entrySet()) {
            String name = Identifiers.quote(k.getKey());
            String existing = have.get(k.getKey());
            if (k.getValue().equals(existing)) {
                continue;
            }
            if ((k.getValue() + NOT_VALID).equals(existing)) {
                out.add("ALTER TABLE " + table + " VALIDATE CONSTRAINT " + name);
                continue;
            }
            if (existing != null) {
                out.add("ALTER TABLE " + table + " DROP CONSTRAINT IF EXISTS " + name);
            }
            out.add("ALTER TABLE " + table + " ADD CONSTRAINT " + name + " " + k.getValue());
        }
        return out;
    }

    /**
     * Detaches the table from the partitioned table it no longer belongs to and attaches it to
     * the one it now does. Run before {@link #columnChanges}: a detached table's columns are its
     * own again, an attached one's come from its parent.
     *
     * @param parent the target id of the partitioned table the change names, or null when none
     */
    public static List<String> partitionChanges(TableChange change, String table, TargetDefinition current, String parent) {
        List<String> out = new ArrayList<>();
        if (Objects.equals(current.partitionOf(), parent)) {
            return out;
        }
        if (current.partitionOf() != null) {
            out.add("ALTER TABLE " + current.partitionOf() + " DETACH PARTITION " + table);
        }
        if (parent != null && change.partitionBound() != null) {
            out.add("ALTER TABLE " + parent + " ATTACH PARTITION " + table + " " + change.partitionBound());
        }
        return out;
    }

    private static boolean same(TargetDefinition.Index existing, IndexDefinition index) {
        return existing.definition().equals(index.definition())
                && Objects.equals(existing.constraintDefinition(), index.constraintDefinition());
    }

    private static String dropIndex(TargetDefinition.Index index, String table, String schema) {
        return index.constraintName() != null
                ? "ALTER TABLE " + table + " DROP CONSTRAINT IF EXISTS " + Identifiers.quote(index.constraintName())
                : "DROP INDEX IF EXISTS " + Identifiers.quote(schema, index.name());
    }

    private static String columnDefinition(ColumnDefinition c, boolean notNull) {
        StringBuilder s = new StringBuilder(Identifiers.quote(c.name())).append(' ').append(c.typeExpression());
        if (isGenerated(c)) {
            s.append(" GENERATED ALWAYS AS (").append(c.defaultValueExpression()).append(") STORED");
        } else if (usableDefault(c.defaultValueExpression())) {
            s.append(" DEFAULT ").append(c.defaultValueExpression());
        }
        if (notNull) {
            s.append(" NOT NULL");
        }
        return s.toString();
    }

    private static boolean isGenerated(ColumnDefinition c) {
        return Boolean.TRUE.equals(c.generated()) && c.defaultValueExpression() != null;
    }

    private static boolean usableDefault(String expression) {
        return expression != null && !isSequence(expression);
    }

    private static boolean isSequence(String expression) {
        return expression != null && expression.contains("nextval(");
    }
}
