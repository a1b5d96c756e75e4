package io.sluice.schemas.codec;

import java.nio.ByteBuffer;
import java.util.List;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/** Composite (row) types as Connect structs, one optional field per attribute. */
public final class CompositeCodec implements ValueCodec {

    private final Schema schema;
    private final List<ValueCodec> fields;
    private final int[] fieldOids;

    /**
     * @param schema    the struct schema, fields in attribute order
     * @param fields    each attribute's codec
     * @param fieldOids each attribute's type oid in the database the codec writes to
     */
    public CompositeCodec(Schema schema, List<ValueCodec> fields, int[] fieldOids) {
        this.schema = schema;
        this.fields = List.copyOf(fields);
        this.fieldOids = fieldOids.clone();
    }

    @Override
    public boolean readsBinary() {
        return fields.stream().allMatch(ValueCodec::readsBinary);
    }

    @Override
    public boolean writesBinary() {
        return fields.stream().allMatch(ValueCodec::writesBinary);
    }

    @Override
    public Object fromText(String text) {
        List<String> items = RecordLiteral.parse(text);
        checkCount(items.size());
        Struct struct = new Struct(schema);
        for (int i = 0; i < items.size(); i++) {
            String item = items.get(i);
            struct.put(schema.fields().get(i), item == null ? null : fields.get(i).fromText(item));
        }
        return struct;
    }

    @Override
    public Object fromBinary(ByteBuffer in) {
        int count = in.getInt();
        checkCount(count);
        Struct struct = new Struct(schema);
        for (int i = 0; i < count; i++) {
            in.getInt(); // the attribute's type oid
            int length = in.getInt();
            if (length >= 0) {
                struct.put(schema.fields().get(i), fields.get(i).fromBinary(in.slice(in.position(), length)));
                in.position(in.position() + length);
            }
        }
        return struct;
    }

    /** Writes a {@link Struct}, or a map of attribute name to value (what adapted foreign values become). */
    @Override
    public void toBinary(Object value, WireBuffer out) {
        java.util.function.Function<String, Object> attribute;
        if (value instanceof Struct struct) {
            attribute = struct::get;
        } else if (value instanceof java.util.Map<?, ?> map) {
            attribute = map::get;
        } else {
            throw new DataException("Expected a Struct for composite " + schema.name() + ", got "
                    + (value == null ? "null" : value.getClass().getSimpleName()));
        }
        out.writeInt(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            Field field = schema.fields().get(i);
            Object v = attribute.apply(field.name());
            out.writeInt(fieldOids[i]);
            if (v == null) {
                out.writeInt(-1);
            } else {
                int at = out.reserveLength();
                fields.get(i).toBinary(v, out);
                out.patchLength(at);
            }
        }
    }

    @Override
    public void textToBinary(String text, WireBuffer out) {
        List<String> items = RecordLiteral.parse(text);
        checkCount(items.size());
        out.writeInt(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            out.writeInt(fieldOids[i]);
            if (i >= items.size() || items.get(i) == null) {
                out.writeInt(-1);
            } else {
                int at = out.reserveLength();
                fields.get(i).textToBinary(items.get(i), out);
                out.patchLength(at);
            }
        }
    }

    /**
     * A value may have fewer fields than the type: one decoded by logical decoding as it was before
     * {@code ALTER TYPE ... ADD ATTRIBUTE}, read here with the type as it is now. The attributes
     * added since are NULL in it, as PostgreSQL itself reads such a value. More fields cannot be
     * told apart (which one was dropped?), so they fail.
     */
    private void checkCount(int count) {
        if (count > fields.size()) {
            throw new DataException("Composite value has " + count + " fields, type " + schema.name() + " has " + fields.size()
                    + " (an attribute dropped since the value was written?); map the column as text to carry it");
        }
    }
}
