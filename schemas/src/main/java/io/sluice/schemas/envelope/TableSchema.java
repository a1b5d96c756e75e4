package io.sluice.schemas.envelope;

import java.util.List;
import java.util.Set;

import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.naming.TopicNames;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * One table's record shapes: topic {@code <prefix>.<schema>.<table>}, value schema
 * {@code <topic>.Value} (every column), key schema {@code <topic>.Key} (the primary key, or the
 * replica identity index when there is none; no key when neither exists) and the envelope.
 */
public final class TableSchema {

    private final String schema;
    private final String table;
    private final String topic;
    private final List<ColumnMapping> columns;
    private final List<String> keyColumns;
    private final Schema valueSchema;
    private final Schema keySchema;
    /** Per key column, its place among the row's fields. */
    private final int[] keyFields;
    private final Schema envelopeSchema;
    private final boolean holdsNotedValues;
    private final FieldChecks rowChecks;
    private final FieldChecks keyChecks;

    private TableSchema(String schema, String table, String topic, List<ColumnMapping> columns, List<String> keyColumns) {
        this.schema = schema;
        this.table = table;
        this.topic = topic;
        this.columns = List.copyOf(columns);
        this.keyColumns = List.copyOf(keyColumns);
        SchemaBuilder value = SchemaBuilder.struct().name(topic + ".Value").optional();
        for (ColumnMapping column : columns) {
            value.field(column.name(), column.schema());
        }
        this.valueSchema = value.build();
        if (keyColumns.isEmpty()) {
            this.keySchema = null;
        } else {
            SchemaBuilder key = SchemaBuilder.struct().name(topic + ".Key");
            for (String name : keyColumns) {
                key.field(name, column(name).schema());
            }
            this.keySchema = key.build();
        }
        this.keyFields = keyColumns.stream().mapToInt(name -> valueSchema.field(name).index()).toArray();
        this.envelopeSchema = Envelope.schema(topic, valueSchema);
        this.holdsNotedValues = ValueNotes.mayHold(valueSchema);
        this.rowChecks = new FieldChecks(valueSchema);
        this.keyChecks = keySchema == null ? null : new FieldChecks(keySchema);
    }

    /**
     * @param keyColumns the primary key (or replica identity index) columns in key order; empty for none
     */
    public static TableSchema of(String topicPrefix, String schema, String table, List<ColumnMapping> columns, List<String> keyColumns) {
        Set<String> names = new java.util.HashSet<>();
        columns.forEach(c -> names.add(c.name()));
        for (String key : keyColumns) {
            if (!names.contains(key)) {
                throw new IllegalArgumentException("Key column " + key + " is not a column of " + schema + "." + table);
            }
        }
        return new TableSchema(schema, table, TopicNames.forTable(topicPrefix, schema, table), columns, keyColumns);
    }

    public String schemaName() {
        return schema;
    }

    public String tableName() {
        return table;
    }

    public String topic() {
        return topic;
    }

    public List<ColumnMapping> columns() {
        return columns;
    }

    public List<String> keyColumns() {
        return keyColumns;
    }

    public Schema valueSchema() {
        return valueSchema;
    }

    /** Null when the table has neither a primary key nor a replica identity index. */
    public Schema keySchema() {
        return keySchema;
    }

    public Schema envelopeSchema() {
        return envelopeSchema;
    }

    /** Whether rows can hold arrays or floats (in columns or composites), which {@link ValueNotes} may have to note. */
    public boolean holdsNotedValues() {
        return holdsNotedValues;
    }

    /** A row value from Connect values in column order. */
    public Struct row(List<?> values) {
        if (values.size() != columns.size()) {
            throw new IllegalArgumentException(schema + "." + table + " has " + columns.size() + " columns, got " + values.size() + " values");
        }
        return row(values.toArray());
    }

    /** A row value from Connect values in column order, each checked for its column as {@code put} would. */
    public Struct row(Object[] values) {
        if (values.length != columns.size()) {
            throw new IllegalArgumentException(schema + "." + table + " has " + columns.size() + " columns, got " + values.length + " values");
        }
        return rowChecks.fill(values);
    }

    /** The key of a row, or null when the table has no key. */
    public Struct key(Struct row) {
        if (keySchema == null) {
            return null;
        }
        if (row.schema() != valueSchema) {
            Struct key = new Struct(keySchema);
            for (String name : keyColumns) {
                key.put(name, row.get(name));
            }
            return key;
        }
        // By field, not by name: this runs for every change.
        List<org.apache.kafka.connect.data.Field> fields = valueSchema.fields();
        Object[] values = new Object[keyFields.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.get(fields.get(keyFields[i]));
        }
        return keyChecks.fill(values);
    }

    public Struct envelope(Operation op, Struct before, Struct after, SourceInfo source, long nowMicros) {
        return Envelope.create(envelopeSchema, op, before, after, source, nowMicros);
    }

    /** An event with a prepared source block ({@link SourceInfo#toStruct()}). */
    public Struct envelope(Operation op, Struct before, Struct after, Struct source, long nowMicros) {
        return Envelope.create(envelopeSchema, op, before, after, source, nowMicros);
    }

    private ColumnMapping column(String name) {
        for (ColumnMapping c : columns) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("No column " + name + " in " + schema + "." + table);
    }
}
