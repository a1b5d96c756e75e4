package io.sluice.schemas.envelope;

import java.util.List;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Schema-change (DDL) events, on the topic {@code <prefix>.schema-changes}, shaped like
 * Debezium's schema-change topic: the statement as executed, and for each affected table its
 * definition after the change. Streamed events add what a sink needs to replay the change
 * without parsing SQL: a renamed table's or column's previous name, the columns and indexes
 * dropped, the indexes and their constraints, check and foreign-key constraints, partitioning; the objects other than tables
 * it changed ({@link ObjectChanges}); and the transaction block, whose
 * order places the event among the row changes of its transaction. Key: the database name, so
 * one partition keeps them in order.
 */
public final class SchemaChangeEvents {

    public static final Schema COLUMN_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.schema.Column")
            .field("name", Schema.STRING_SCHEMA)
            .field("typeName", Schema.STRING_SCHEMA)
            .field("typeExpression", Schema.STRING_SCHEMA)
            .field("position", Schema.INT32_SCHEMA)
            .field("optional", Schema.BOOLEAN_SCHEMA)
            .field("defaultValueExpression", Schema.OPTIONAL_STRING_SCHEMA)
            .field("generated", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .field("enumValues", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .field("comment", Schema.OPTIONAL_STRING_SCHEMA)
            .field("previousName", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    public static final Schema INDEX_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.schema.Index")
            .field("name", Schema.STRING_SCHEMA)
            .field("unique", Schema.BOOLEAN_SCHEMA)
            .field("definition", Schema.STRING_SCHEMA)
            .field("constraintName", Schema.OPTIONAL_STRING_SCHEMA)
            .field("constraintDefinition", Schema.OPTIONAL_STRING_SCHEMA)
            .field("previousName", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    public static final Schema CONSTRAINT_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.schema.Constraint")
            .field("name", Schema.STRING_SCHEMA)
            .field("type", Schema.STRING_SCHEMA)
            .field("definition", Schema.STRING_SCHEMA)
            .field("referencedId", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    public static final Schema TABLE_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.schema.Table").optional()
            .field("primaryKeyColumnNames", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("columns", SchemaBuilder.array(COLUMN_SCHEMA).build())
            .field("comment", Schema.OPTIONAL_STRING_SCHEMA)
            .field("indexes", SchemaBuilder.array(INDEX_SCHEMA).optional().build())
            .field("droppedColumns", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .field("droppedIndexes", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .field("partitionOf", Schema.OPTIONAL_STRING_SCHEMA)
            .field("partitionBound", Schema.OPTIONAL_STRING_SCHEMA)
            .field("partitionKey", Schema.OPTIONAL_STRING_SCHEMA)
            .field("constraints", SchemaBuilder.array(CONSTRAINT_SCHEMA).optional().build())
            .field("droppedConstraints", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .field("rowsFollow", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .build();

    public static final Schema CHANGE_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.schema.Change")
            .field("type", Schema.STRING_SCHEMA)
            .field("id", Schema.STRING_SCHEMA)
            .field("table", TABLE_SCHEMA)
            .field("previousId", Schema.OPTIONAL_STRING_SCHEMA)
            .field("partitionView", Schema.OPTIONAL_STRING_SCHEMA)
            .field("publishedAs", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    public static final Schema KEY_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.postgresql.SchemaChangeKey")
            .field("databaseName", Schema.STRING_SCHEMA)
            .build();

    public static final Schema VALUE_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.postgresql.SchemaChangeValue")
            .field("source", SourceInfo.SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("databaseName", Schema.STRING_SCHEMA)
            .field("schemaName", Schema.OPTIONAL_STRING_SCHEMA)
            .field("ddl", Schema.OPTIONAL_STRING_SCHEMA)
            .field("tableChanges", SchemaBuilder.array(CHANGE_SCHEMA).build())
            .field(Envelope.TRANSACTION, Envelope.TRANSACTION_SCHEMA)
            .field("objectChanges", ObjectChanges.ARRAY_SCHEMA)
            .build();

    /** What happened to a table. */
    public enum ChangeType { CREATE, ALTER, DROP }

    /**
     * Which sinks a change is for, when partitions are published through their root
     * ({@code publish_via_partition_root}): there a partition's rows carry the root's name, so a
     * sink that knows a partitioned table as one (OpenSearch, webhooks) has no partitions, while the
     * PostgreSQL sink keeps the partition tree the rows are routed into. The two disagree only where
     * a command moved a table into or out of a tree or changed a partition.
     */
    public enum PartitionView {
        /** For every sink. */
        BOTH,
        /** Only for sinks that keep partition trees: a partition's own change, whose rows come as its root's. */
        TREE,
        /** Only for sinks that know a partitioned table as one, where a tree-keeping sink has a change of its own. */
        ROOTS;

        /** Whether a sink that keeps partition trees ({@code keepsTrees}), or one that does not, applies the change. */
        public boolean isFor(boolean keepsTrees) {
            return this == BOTH || (this == TREE) == keepsTrees;
        }
    }

    /**
     * A column as it is after the change.
     *
     * @param defaultValueExpression the default; for a generated column, the generation expression
     * @param previousName           the name before a rename in this change; null when not renamed
     */
    public record ColumnDefinition(String name, String typeName, String typeExpression, int position, boolean optional,
                                   String defaultValueExpression, Boolean generated, List<String> enumValues, String comment,
                                   String previousName) {

        public ColumnDefinition(String name, String typeName, String typeExpression, int position, boolean optional,
                                String defaultValueExpression, Boolean generated, List<String> enumValues, String comment) {
            this(name, typeName, typeExpression, position, optional, defaultValueExpression, generated, enumValues, comment, null);
        }

        Struct toStruct() {
            return new Struct(COLUMN_SCHEMA).put("name", name).put("typeName", typeName).put("typeExpression", typeExpression)
                    .put("position", position).put("optional", optional).put("defaultValueExpression", defaultValueExpression)
                    .put("generated", generated).put("enumValues", enumValues).put("comment", comment).put("previousName", previousName);
        }

        static ColumnDefinition of(Struct s) {
            return new ColumnDefinition(s.getString("name"), s.getString("typeName"), s.getString("typeExpression"), s.getInt32("position"),
                    s.getBoolean("optional"), s.getString("defaultValueExpression"), s.getBoolean("generated"), s.getArray("enumValues"),
                    s.getString("comment"), optionalString(s, "previousName"));
        }
    }

    /**
     * An index of a table after the change.
     *
     * @param definition           what follows the table in {@code CREATE INDEX ... ON table}: {@code USING method (columns) ...}
     * @param constraintName       the primary key, unique or exclusion constraint the index backs; null for a plain index
     * @param constraintDefinition that constraint as {@code pg_get_constraintdef} writes it, e.g. {@code PRIMARY KEY (id)}
     * @param previousName         the name before a rename in this change; null when not renamed
     */
    public record IndexDefinition(String name, boolean unique, String definition, String constraintName, String constraintDefinition,
                                  String previousName) {
        Struct toStruct() {
            return new Struct(INDEX_SCHEMA).put("name", name).put("unique", unique).put("definition", definition)
                    .put("constraintName", constraintName).put("constraintDefinition", constraintDefinition).put("previousName", previousName);
        }

        static IndexDefinition of(Struct s) {
            return new IndexDefinition(s.getString("name"), s.getBoolean("unique"), s.getString("definition"), s.getString("constraintName"),
                    s.getString("constraintDefinition"), s.getString("previousName"));
        }
    }

    /** The kinds of constraint a {@link ConstraintDefinition} carries (those an index backs are in {@link IndexDefinition}). */
    public enum ConstraintType { CHECK, FOREIGN_KEY }

    /**
     * A check or foreign-key constraint of a table after the change.
     *
     * @param definition   as {@code pg_get_constraintdef} writes it with only {@code pg_catalog} on the search path,
     *                     e.g. {@code CHECK ((qty > 0))} or {@code FOREIGN KEY (item) REFERENCES public.items(id)}
     * @param referencedId for a foreign key, the table it references as {@code "schema"."table"}; null for a check
     */
    public record ConstraintDefinition(String name, ConstraintType type, String definition, String referencedId) {
        Struct toStruct() {
            return new Struct(CONSTRAINT_SCHEMA).put("name", name).put("type", type.name()).put("definition", definition)
                    .put("referencedId", referencedId);
        }

        static ConstraintDefinition of(Struct s) {
            return new ConstraintDefinition(s.getString("name"), ConstraintType.valueOf(s.getString("type")), s.getString("definition"),
                    s.getString("referencedId"));
        }
    }

    /**
     * What a change did to one table.
     *
     * @param id             the table, as {@code "schema"."table"}
     * @param primaryKey     its key columns after the change (empty for DROP)
     * @param columns        its columns after the change (empty for DROP)
     * @param previousId     the table's id before a rename in this change; null when not renamed
     * @param indexes        its indexes after the change; null when not known (snapshot events)
     * @param droppedColumns columns the change dropped
     * @param droppedIndexes indexes the change dropped (by their name before the change)
     * @param partitionOf    the partitioned table it is a partition of, as an id; null when none
     * @param partitionBound its partition bound ({@code FOR VALUES ...}) when a partition
     * @param partitionKey   its partition key ({@code RANGE (a)}) when it is partitioned
     * @param constraints    its check and foreign-key constraints after the change; null when not known (snapshot events)
     * @param droppedConstraints check and foreign-key constraints the change dropped (by their name before the change)
     * @param rowsFollow     the table's rows follow as a copy, which a sink writes in place of what it holds: the change
     *                       converted them in a way only the source can (a type change with a {@code USING} expression),
     *                       or the table became selected with rows (created by {@code CREATE TABLE … AS}, renamed into the
     *                       selection)
     * @param view           which sinks it is for ({@link PartitionView}); never null
     * @param publishedAs    for a change of {@link PartitionView#TREE}, the root whose name the partition's rows carry, as an
     *                       id: a barrier holds that root's topic; else null
     */
    public record TableChange(ChangeType type, String id, List<String> primaryKey, List<ColumnDefinition> columns, String comment,
                              String previousId, List<IndexDefinition> indexes, List<String> droppedColumns, List<String> droppedIndexes,
                              String partitionOf, String partitionBound, String partitionKey, List<ConstraintDefinition> constraints,
                              List<String> droppedConstraints, boolean rowsFollow, PartitionView view, String publishedAs) {

        public TableChange {
            view = view == null ? PartitionView.BOTH : view;
        }

        public TableChange(ChangeType type, String id, List<String> primaryKey, List<ColumnDefinition> columns, String comment,
                           String previousId, List<IndexDefinition> indexes, List<String> droppedColumns, List<String> droppedIndexes,
                           String partitionOf, String partitionBound, String partitionKey, List<ConstraintDefinition> constraints,
                           List<String> droppedConstraints, boolean rowsFollow) {
            this(type, id, primaryKey, columns, comment, previousId, indexes, droppedColumns, droppedIndexes, partitionOf, partitionBound,
                    partitionKey, constraints, droppedConstraints, rowsFollow, PartitionView.BOTH, null);
        }

        /** This change, only for sinks that keep partition trees; its rows are published as {@code root}'s (an id; null: as its own). */
        public TableChange forTreesOf(String root) {
            return new TableChange(type, id, primaryKey, columns, comment, previousId, indexes, droppedColumns, droppedIndexes,
                    partitionOf, partitionBound, partitionKey, constraints, droppedConstraints, rowsFollow, PartitionView.TREE, root);
        }

        /** This change, only for sinks that know partitioned tables as one. */
        public TableChange forRoots() {
            return new TableChange(type, id, primaryKey, columns, comment, previousId, indexes, droppedColumns, droppedIndexes,
                    partitionOf, partitionBound, partitionKey, constraints, droppedConstraints, rowsFollow, PartitionView.ROOTS, null);
        }

        public TableChange(ChangeType type, String id, List<String> primaryKey, List<ColumnDefinition> columns, String comment) {
            this(type, id, primaryKey, columns, comment, null, null, List.of(), List.of(), null, null, null);
        }

        public TableChange(ChangeType type, String id, List<String> primaryKey, List<ColumnDefinition> columns, String comment,
                           String previousId, List<IndexDefinition> indexes, List<String> droppedColumns, List<String> droppedIndexes,
                           String partitionOf, String partitionBound, String partitionKey) {
            this(type, id, primaryKey, columns, comment, previousId, indexes, droppedColumns, droppedIndexes, partitionOf, partitionBound,
                    partitionKey, null, List.of(), false);
        }

        Struct toStruct() {
            Struct change = new Struct(CHANGE_SCHEMA).put("type", type.name()).put("id", id).put("previousId", previousId)
                    .put("partitionView", view == PartitionView.BOTH ? null : view.name()).put("publishedAs", publishedAs);
            if (type != ChangeType.DROP) {
                change.put("table", new Struct(TABLE_SCHEMA).put("primaryKeyColumnNames", primaryKey)
                        .put("columns", columns.stream().map(ColumnDefinition::toStruct).toList())
                        .put("comment", comment)
                        .put("indexes", indexes == null ? null : indexes.stream().map(IndexDefinition::toStruct).toList())
                        .put("droppedColumns", droppedColumns.isEmpty() ? null : droppedColumns)
                        .put("droppedIndexes", droppedIndexes.isEmpty() ? null : droppedIndexes)
                        .put("partitionOf", partitionOf)
                        .put("partitionBound", partitionBound)
                        .put("partitionKey", partitionKey)
                        .put("constraints", constraints == null ? null : constraints.stream().map(ConstraintDefinition::toStruct).toList())
                        .put("droppedConstraints", droppedConstraints.isEmpty() ? null : droppedConstraints)
                        .put("rowsFollow", rowsFollow ? Boolean.TRUE : null));
            }
            return change;
        }

        /** Reads a change back from an event (as written by {@link #toStruct}, or by an older Sluice without the optional fields). */
        public static TableChange of(Struct change) {
            ChangeType type = ChangeType.valueOf(change.getString("type"));
            String previousId = optionalString(change, "previousId");
            String viewName = optionalString(change, "partitionView");
            PartitionView view = viewName == null ? PartitionView.BOTH : PartitionView.valueOf(viewName);
            String publishedAs = optionalString(change, "publishedAs");
            Struct table = change.getStruct("table");
            if (table == null) {
                return new TableChange(type, change.getString("id"), List.of(), List.of(), null, previousId, null, List.of(), List.of(),
                        null, null, null, null, List.of(), false, view, publishedAs);
            }
            List<Struct> indexes = optionalArray(table, "indexes");
            List<Struct> constraints = optionalArray(table, "constraints");
            return new TableChange(type, change.getString("id"), table.getArray("primaryKeyColumnNames"),
                    table.<Struct>getArray("columns").stream().map(ColumnDefinition::of).toList(), table.getString("comment"), previousId,
                    indexes == null ? null : indexes.stream().map(IndexDefinition::of).toList(),
                    orEmpty(optionalArray(table, "droppedColumns")), orEmpty(optionalArray(table, "droppedIndexes")),
                    optionalString(table, "partitionOf"), optionalString(table, "partitionBound"), optionalString(table, "partitionKey"),
                    constraints == null ? null : constraints.stream().map(ConstraintDefinition::of).toList(),
                    orEmpty(optionalArray(table, "droppedConstraints")),
                    table.schema().field("rowsFollow") != null && Boolean.TRUE.equals(table.getBoolean("rowsFollow")), view, publishedAs);
        }
    }

    private SchemaChangeEvents() {
    }

    public static Struct key(String database) {
        return new Struct(KEY_SCHEMA).put("databaseName", database);
    }

    public static Struct value(SourceInfo source, String schemaName, String ddl, List<TableChange> changes, long nowMillis) {
        return new Struct(VALUE_SCHEMA)
                .put("source", source.toStruct())
                .put("ts_ms", nowMillis)
                .put("databaseName", source.database())
                .put("schemaName", schemaName)
                .put("ddl", ddl)
                .put("tableChanges", changes.stream().map(TableChange::toStruct).toList());
    }

    /** An event that also changes objects other than tables ({@link ObjectChanges}). */
    public static Struct value(SourceInfo source, String schemaName, String ddl, List<TableChange> changes,
                               List<ObjectChanges.ObjectChange> objects, long nowMillis) {
        Struct value = value(source, schemaName, ddl, changes, nowMillis);
        return objects.isEmpty() ? value : value.put("objectChanges", ObjectChanges.toStructs(objects));
    }

    /** The table changes of an event, for every kind of sink. */
    public static List<TableChange> tableChanges(Struct value) {
        return value.<Struct>getArray("tableChanges").stream().map(TableChange::of).toList();
    }

    /** The table changes of an event that a sink keeping partition trees ({@code keepsTrees}), or one that does not, applies. */
    public static List<TableChange> tableChanges(Struct value, boolean keepsTrees) {
        return tableChanges(value).stream().filter(c -> c.view().isFor(keepsTrees)).toList();
    }

    private static String optionalString(Struct s, String field) {
        return s.schema().field(field) == null ? null : s.getString(field);
    }

    private static <T> List<T> optionalArray(Struct s, String field) {
        return s.schema().field(field) == null ? null : s.getArray(field);
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
