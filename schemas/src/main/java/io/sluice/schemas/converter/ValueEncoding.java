package io.sluice.schemas.converter;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

import io.sluice.schemas.envelope.StructFill;

/**
 * Connect values as bytes, guided by their schema: nothing about the value's shape is written
 * that the schema already says. Optional values carry one presence byte; numbers are zigzag
 * varints, floats their exact IEEE bits (NaN, infinities and -0 arrive as they left); Connect's
 * logical types (Decimal, Date, Time, Timestamp) travel as their physical values.
 */
final class ValueEncoding {

    private ValueEncoding() {
    }

    static void write(Schema schema, Object value, BinaryOut out) {
        if (schema.isOptional()) {
            if (value == null) {
                out.write(0);
                return;
            }
            out.write(1);
        } else if (value == null) {
            value = schema.defaultValue();
            if (value == null) {
                throw new DataException("A value is missing where the schema" + named(schema) + " requires one");
            }
        }
        switch (schema.type()) {
            case INT8 -> out.write((Byte) value);
            case INT16 -> out.writeZigZag((Short) value);
            case INT32 -> out.writeZigZag(value instanceof java.util.Date d ? logicalInt(schema, d) : (Integer) value);
            case INT64 -> out.writeZigZag(value instanceof java.util.Date d && Timestamp.LOGICAL_NAME.equals(schema.name())
                    ? Timestamp.fromLogical(schema, d) : (Long) value);
            case FLOAT32 -> out.writeFixed32(Float.floatToRawIntBits((Float) value));
            case FLOAT64 -> out.writeFixed64(Double.doubleToRawLongBits((Double) value));
            case BOOLEAN -> out.write((Boolean) value ? 1 : 0);
            case STRING -> out.writeString((String) value);
            case BYTES -> {
                if (value instanceof BigDecimal decimal && Decimal.LOGICAL_NAME.equals(schema.name())) {
                    out.writeBytes(Decimal.fromLogical(schema, decimal));
                } else if (value instanceof ByteBuffer buffer) {
                    out.writeBytes(buffer);
                } else {
                    out.writeBytes((byte[]) value);
                }
            }
            case ARRAY -> {
                Collection<?> items = (Collection<?>) value;
                out.writeVarLong(items.size());
                Schema itemSchema = schema.valueSchema();
                for (Object item : items) {
                    write(itemSchema, item, out);
                }
            }
            case MAP -> {
                Map<?, ?> map = (Map<?, ?>) value;
                out.writeVarLong(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    write(schema.keySchema(), e.getKey(), out);
                    write(schema.valueSchema(), e.getValue(), out);
                }
            }
            case STRUCT -> {
                Struct struct = (Struct) value;
                if (struct.schema() != schema && !struct.schema().equals(schema)) {
                    throw new DataException("A struct's own schema" + named(struct.schema()) + " differs from the schema it is sent with"
                            + named(schema));
                }
                // By index: an iterator over the fields (an unmodifiable list) was made for every struct written.
                List<Field> fields = schema.fields();
                for (int i = 0, n = fields.size(); i < n; i++) {
                    Field field = fields.get(i);
                    Schema fieldSchema = field.schema();
                    // Without a default, get(field) is the stored value; with one, get would hide a null behind the default.
                    Object fieldValue = fieldSchema.defaultValue() == null ? struct.get(field) : struct.getWithoutDefault(field.name());
                    write(fieldSchema, fieldValue, out);
                }
            }
            default -> throw new DataException("Schema type " + schema.type() + " cannot be written");
        }
    }

    static Object read(Schema schema, BinaryIn in) {
        if (schema.isOptional() && in.read() == 0) {
            return null;
        }
        String name = schema.name();
        return switch (schema.type()) {
            case INT8 -> (byte) in.read();
            case INT16 -> (short) in.readZigZag();
            case INT32 -> {
                int days = (int) in.readZigZag();
                if (Date.LOGICAL_NAME.equals(name)) {
                    yield Date.toLogical(schema, days);
                }
                yield Time.LOGICAL_NAME.equals(name) ? Time.toLogical(schema, days) : (Object) days;
            }
            case INT64 -> {
                long n = in.readZigZag();
                yield Timestamp.LOGICAL_NAME.equals(name) ? Timestamp.toLogical(schema, n) : (Object) n;
            }
            case FLOAT32 -> Float.intBitsToFloat(in.readFixed32());
            case FLOAT64 -> Double.longBitsToDouble(in.readFixed64());
            case BOOLEAN -> in.read() != 0;
            case STRING -> in.readString();
            case BYTES -> {
                byte[] bytes = in.readBytes();
                yield Decimal.LOGICAL_NAME.equals(name) ? Decimal.toLogical(schema, bytes) : bytes;
            }
            case ARRAY -> {
                int n = in.readLength(false);
                List<Object> items = new ArrayList<>(Math.min(n, 1024));
                for (int i = 0; i < n; i++) {
                    items.add(read(schema.valueSchema(), in));
                }
                yield items;
            }
            case MAP -> {
                int n = in.readLength(false);
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    map.put(read(schema.keySchema(), in), read(schema.valueSchema(), in));
                }
                yield map;
            }
            case STRUCT -> {
                // Every value was read as its field's schema lays it out, so it fits: put would validate each one again
                // (and Kafka's validation words a message for every value), much of what reading a change event cost.
                List<Field> fields = schema.fields();
                Object[] values = new Object[fields.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = read(fields.get(i).schema(), in);
                }
                yield StructFill.of(schema, values);
            }
        };
    }

    private static int logicalInt(Schema schema, java.util.Date value) {
        if (Date.LOGICAL_NAME.equals(schema.name())) {
            return Date.fromLogical(schema, value);
        }
        if (Time.LOGICAL_NAME.equals(schema.name())) {
            return Time.fromLogical(schema, value);
        }
        throw new DataException("A date is given where the INT32 schema" + named(schema) + " is not a Connect Date or Time");
    }

    private static String named(Schema schema) {
        return schema.name() == null ? " (" + schema.type() + ")" : " " + schema.name() + " (" + schema.type() + ")";
    }
}
