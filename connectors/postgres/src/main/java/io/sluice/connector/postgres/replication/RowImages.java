package io.sluice.connector.postgres.replication;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Tuple;
import io.sluice.schemas.mapping.ColumnMapping;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;

/** Row images from pgoutput's tuples and from a table copy's text rows, as the table's Connect structs. */
final class RowImages {

    private RowImages() {
    }

    /**
     * A row image. Columns absent from a key-only image, and unchanged TOASTed ones (named in
     * {@code unchanged}), are null, or an empty placeholder where the field may not be null.
     */
    static Struct image(StreamTable table, Tuple tuple, List<String> unchanged) {
        List<ColumnMapping> columns = table.columns();
        if (tuple.size() != columns.size()) {
            throw new ConnectException("pgoutput sent " + tuple.size() + " columns of " + table.qualifiedName() + ", whose Relation message has "
                    + columns.size());
        }
        Object[] values = new Object[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            ColumnMapping column = columns.get(i);
            Object value;
            switch (tuple.kind(i)) {
                case Tuple.TEXT -> value = column.fromText(tuple.text(i));
                case Tuple.UNCHANGED_TOAST -> {
                    if (unchanged != null) {
                        unchanged.add(column.name());
                    }
                    value = null;
                }
                case Tuple.NULL -> value = null;
                default -> throw new ConnectException("pgoutput sent column " + column.name() + " of " + table.qualifiedName()
                        + " in binary, which Sluice did not ask for");
            }
            values[i] = value == null && !column.schema().isOptional() ? placeholder(column.schema()) : value;
        }
        return table.schema().row(values);
    }

    /** Connect's logical types whose values are {@code java.util.Date}s. */
    private static final java.util.Set<String> DATE_VALUED = java.util.Set.of(org.apache.kafka.connect.data.Date.LOGICAL_NAME,
            org.apache.kafka.connect.data.Time.LOGICAL_NAME, org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME);

    private static boolean dateValued(Schema schema) {
        return schema.name() != null && DATE_VALUED.contains(schema.name());
    }

    /** An empty value for a required field whose value the event does not carry. */
    static Object placeholder(Schema schema) {
        if (Decimal.LOGICAL_NAME.equals(schema.name())) {
            return BigDecimal.ZERO.setScale(Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD)));
        }
        return switch (schema.type()) {
            case STRING -> "";
            case BYTES -> new byte[0];
            case ARRAY -> List.of();
            case MAP -> Map.of();
            case BOOLEAN -> false;
            case INT8 -> (byte) 0;
            case INT16 -> (short) 0;
            case INT32 -> dateValued(schema) ? new java.util.Date(0) : 0;
            case INT64 -> dateValued(schema) ? new java.util.Date(0) : 0L;
            case FLOAT32 -> 0f;
            case FLOAT64 -> 0d;
            case STRUCT -> {
                Struct s = new Struct(schema);
                for (var f : schema.fields()) {
                    if (!f.schema().isOptional()) {
                        s.put(f, placeholder(f.schema()));
                    }
                }
                yield s;
            }
        };
    }

    /** A row of a table copy: text values in the Relation's column order. */
    static Struct copied(StreamTable table, String[] values) {
        Object[] row = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            ColumnMapping column = table.columns().get(i);
            Object value = values[i] == null ? null : column.fromText(values[i]);
            row[i] = value == null && !column.schema().isOptional() ? placeholder(column.schema()) : value;
        }
        return table.schema().row(row);
    }

    /**
     * Whether an update moved the row to another key. Compared column by column: with REPLICA
     * IDENTITY FULL every update has a before image, and building two keys would cost each.
     */
    static boolean keyChanged(StreamTable table, Struct before, Struct after) {
        if (before == null || after == null) {
            return false;
        }
        for (String column : table.schema().keyColumns()) {
            if (!Objects.deepEquals(before.get(column), after.get(column))) {
                return true;
            }
        }
        return false;
    }
}
