package io.sluice.schemas.converter;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.errors.DataException;

/**
 * A Connect schema as bytes and back: type, optional flag, name, version, doc, parameters,
 * children (fields, array and map schemas) and default value, so that what is read equals what
 * was written. Format 2 writes sub-schemas it has written before, and Sluice's own fixed blocks,
 * as references ({@link SchemaRefs}).
 */
final class SchemaEncoding {

    private static final int OPTIONAL = 1;
    private static final int NAME = 2;
    private static final int VERSION = 4;
    private static final int DOC = 8;
    private static final int PARAMETERS = 16;
    private static final int DEFAULT = 32;

    /** Stable codes for the types, written to Kafka: never renumber. */
    private static final Schema.Type[] TYPES = {null, Schema.Type.INT8, Schema.Type.INT16, Schema.Type.INT32, Schema.Type.INT64,
        Schema.Type.FLOAT32, Schema.Type.FLOAT64, Schema.Type.BOOLEAN, Schema.Type.STRING, Schema.Type.BYTES, Schema.Type.ARRAY,
        Schema.Type.MAP, Schema.Type.STRUCT};

    private SchemaEncoding() {
    }

    static int code(Schema.Type type) {
        for (int i = 1; i < TYPES.length; i++) {
            if (TYPES[i] == type) {
                return i;
            }
        }
        throw new DataException("Schema type " + type + " has no code in Sluice's binary format");
    }

    static Schema.Type type(int code) {
        if (code <= 0 || code >= TYPES.length) {
            throw new DataException("Malformed message: unknown schema type code " + code);
        }
        return TYPES[code];
    }

    /** With the references of format 2 ({@link SchemaRefs}), or none for format 1. */
    static void write(Schema schema, BinaryOut out, SchemaRefs refs) {
        ByteBuffer key = refs.keyOf(schema);
        if (key != null && refs.writeReference(key, out)) {
            return;
        }
        out.write(code(schema.type()));
        Map<String, String> parameters = schema.parameters();
        boolean hasParameters = parameters != null && !parameters.isEmpty();
        int flags = (schema.isOptional() ? OPTIONAL : 0) | (schema.name() != null ? NAME : 0) | (schema.version() != null ? VERSION : 0)
                | (schema.doc() != null ? DOC : 0) | (hasParameters ? PARAMETERS : 0) | (schema.defaultValue() != null ? DEFAULT : 0);
        out.write(flags);
        if (schema.name() != null) {
            out.writeString(schema.name());
        }
        if (schema.version() != null) {
            out.writeZigZag(schema.version());
        }
        if (schema.doc() != null) {
            out.writeString(schema.doc());
        }
        if (hasParameters) {
            out.writeVarLong(parameters.size());
            for (Map.Entry<String, String> p : parameters.entrySet()) {
                out.writeString(p.getKey());
                out.writeString(p.getValue());
            }
        }
        switch (schema.type()) {
            case STRUCT -> {
                out.writeVarLong(schema.fields().size());
                for (Field field : schema.fields()) {
                    out.writeString(field.name());
                    write(field.schema(), out, refs);
                }
            }
            case ARRAY -> write(schema.valueSchema(), out, refs);
            case MAP -> {
                write(schema.keySchema(), out, refs);
                write(schema.valueSchema(), out, refs);
            }
            default -> { }
        }
        if (schema.defaultValue() != null) {
            ValueEncoding.write(schema, schema.defaultValue(), out);
        }
        if (key != null) {
            refs.placedKey(key);
        }
    }

    /** With the references of format 2 ({@link SchemaRefs}), or none for format 1. */
    static Schema read(BinaryIn in, SchemaRefs refs) {
        int code = in.read();
        if (SchemaRefs.isReference(code)) {
            return refs.readReference(code, in);
        }
        Schema.Type type = type(code);
        int flags = in.read();
        String name = (flags & NAME) != 0 ? in.readString() : null;
        Integer version = (flags & VERSION) != 0 ? (int) in.readZigZag() : null;
        String doc = (flags & DOC) != 0 ? in.readString() : null;
        Map<String, String> parameters = null;
        if ((flags & PARAMETERS) != 0) {
            int n = in.readLength(false);
            parameters = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                parameters.put(in.readString(), in.readString());
            }
        }
        SchemaBuilder builder = switch (type) {
            case STRUCT -> {
                SchemaBuilder struct = SchemaBuilder.struct();
                int n = in.readLength(false);
                for (int i = 0; i < n; i++) {
                    struct.field(in.readString(), read(in, refs));
                }
                yield struct;
            }
            case ARRAY -> SchemaBuilder.array(read(in, refs));
            case MAP -> SchemaBuilder.map(read(in, refs), read(in, refs));
            default -> SchemaBuilder.type(type);
        };
        if ((flags & OPTIONAL) != 0) {
            builder.optional();
        }
        if (name != null) {
            builder.name(name);
        }
        if (version != null) {
            builder.version(version);
        }
        if (doc != null) {
            builder.doc(doc);
        }
        if (parameters != null) {
            builder.parameters(parameters);
        }
        if ((flags & DEFAULT) != 0) {
            builder.defaultValue(ValueEncoding.read(builder, in));
        }
        Schema schema = builder.build();
        refs.placed(schema);
        return schema;
    }
}
