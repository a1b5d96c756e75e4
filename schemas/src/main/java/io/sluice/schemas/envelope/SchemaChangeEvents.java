package io.sluice.schemas.envelope;

import java.util.List;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Schema-change (DDL) events, on the topic {@code <prefix>.schema-changes}, shaped like
 * Debezium's schema-change topic: the statement as executed, and for each affected table its
 * definition after the change. Key: the database name, so one partition keeps them in order.
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
            .build();

    public static final Schema TABLE_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.schema.Table").optional()
            .field("primaryKeyColumnNames", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("columns", SchemaBuilder.array(COLUMN_SCHEMA).build())
            .field("comment", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    public static final Schema CHANGE_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.schema.Change")
            .field("type", Schema.STRING_SCHEMA)
            .field("id", Schema.STRING_SCHEMA)
            .field("table", TABLE_SCHEMA)
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
            .build();

    /** What happened to a table. */
    public enum ChangeType { CREATE, ALTER, DROP }

    /** A column as it is after the change. */
    public record ColumnDefinition(String name, String typeName, String typeExpression, int position, boolean optional,
                                   String defaultValueExpression, Boolean generated, List<String> enumValues, String comment) {
        Struct toStruct() {
            return new Struct(COLUMN_SCHEMA).put("name", name).put("typeName", typeName).put("typeExpression", typeExpression)
                    .put("position", position).put("optional", optional).put("defaultValueExpression", defaultValueExpression)
                    .put("generated", generated).put("enumValues", enumValues).put("comment", comment);
        }
    }

    /**
     * @param id    the table, as {@code "schema"."table"}
     * @param table its definition after the change; null for DROP
     */
    public record TableChange(ChangeType type, String id, List<String> primaryKey, List<ColumnDefinition> columns, String comment) {
        Struct toStruct() {
            Struct change = new Struct(CHANGE_SCHEMA).put("type", type.name()).put("id", id);
            if (type != ChangeType.DROP) {
                change.put("table", new Struct(TABLE_SCHEMA).put("primaryKeyColumnNames", primaryKey)
                        .put("columns", columns.stream().map(ColumnDefinition::toStruct).toList())
                        .put("comment", comment));
            }
            return change;
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
}
