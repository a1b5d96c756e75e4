package io.sluice.schemas.envelope;

import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.lookup.RecentSchemas;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The end of a chunk of a table re-synced while streaming, on the table's topic after the
 * chunk's rows: the target's rows whose key lies in the chunk's range (after {@code from_key},
 * up to and including {@code to_key}; an end left null is open) and is none of {@code keys} are
 * gone from the source, and a sink that keeps rows deletes them. {@code keys} are the rows the
 * chunk read and those whose newer changes the stream carried while it was read. The range is in
 * the source's order of the key columns; {@code key_order} names, per key column, the collation
 * it sorts by (empty for a type that sorts alike everywhere), so that a target that sorts
 * otherwise can tell and leave the range alone. It has a source block and a transaction block
 * like a change, so it is ordered and skipped by position with the changes around it.
 */
public final class KeyRanges {

    /** The value schema's name. */
    public static final String NAME = "io.sluice.connector.postgresql.KeyRange";
    public static final String FROM_KEY = "from_key";
    public static final String TO_KEY = "to_key";
    public static final String KEYS = "keys";
    public static final String KEY_ORDER = "key_order";

    private static final RecentSchemas<Shapes> SHAPES = new RecentSchemas<>(Shapes::of);

    private KeyRanges() {
    }

    /** The schemas derived from one table's key schema. */
    private record Shapes(Schema value, Schema optionalKey) {

        static Shapes of(Schema key) {
            SchemaBuilder optional = SchemaBuilder.struct().name(key.name()).optional();
            for (Field f : key.fields()) {
                optional.field(f.name(), f.schema());
            }
            Schema optionalKey = optional.build();
            Schema value = SchemaBuilder.struct().name(NAME).version(1)
                    .field(Envelope.SOURCE, SourceInfo.SCHEMA)
                    .field(Envelope.TRANSACTION, Envelope.TRANSACTION_SCHEMA)
                    .field(FROM_KEY, optionalKey)
                    .field(TO_KEY, optionalKey)
                    .field(KEYS, SchemaBuilder.array(key).build())
                    .field(KEY_ORDER, SchemaBuilder.array(Schema.STRING_SCHEMA).build())
                    .field(Envelope.TS_MS, Schema.INT64_SCHEMA)
                    .build();
            return new Shapes(value, optionalKey);
        }
    }

    /** Whether a record's value schema is a key range's. */
    public static boolean is(Schema schema) {
        return schema != null && NAME.equals(schema.name());
    }

    /** The value schema for a table whose record key has {@code keySchema}. */
    public static Schema schema(Schema keySchema) {
        return SHAPES.of(keySchema).value();
    }

    /**
     * A key range.
     *
     * @param from     the key the range starts after; null when it starts at the table's first
     * @param to       the last key of the range; null when it runs to the table's end
     * @param keys     keys in the range whose rows stay (others may be there too: they are left alone)
     * @param keyOrder per key column, what it sorts by (see {@link io.sluice.schemas.postgres.KeyOrder})
     */
    public static Struct value(Schema keySchema, Struct source, Struct transaction, Struct from, Struct to, List<Struct> keys,
                               List<String> keyOrder, long nowMillis) {
        Shapes shapes = SHAPES.of(keySchema);
        return new Struct(shapes.value())
                .put(Envelope.SOURCE, source)
                .put(Envelope.TRANSACTION, transaction)
                .put(FROM_KEY, optional(shapes.optionalKey(), from))
                .put(TO_KEY, optional(shapes.optionalKey(), to))
                .put(KEYS, keys)
                .put(KEY_ORDER, keyOrder)
                .put(Envelope.TS_MS, nowMillis);
    }

    private static Struct optional(Schema optionalKey, Struct key) {
        if (key == null) {
            return null;
        }
        Struct out = new Struct(optionalKey);
        for (Field f : optionalKey.fields()) {
            out.put(f.name(), key.get(f.name()));
        }
        return out;
    }

    /** The range's lower end (exclusive), null when open. */
    public static Struct from(Struct range) {
        return range.getStruct(FROM_KEY);
    }

    /** The range's upper end (inclusive), null when open. */
    public static Struct to(Struct range) {
        return range.getStruct(TO_KEY);
    }

    /** The keys whose rows stay. */
    public static List<Struct> keys(Struct range) {
        List<Object> keys = range.getArray(KEYS);
        List<Struct> out = new ArrayList<>(keys.size());
        keys.forEach(k -> out.add((Struct) k));
        return out;
    }

    /** What each key column sorts by on the source. */
    public static List<String> keyOrder(Struct range) {
        List<Object> order = range.getArray(KEY_ORDER);
        List<String> out = new ArrayList<>(order.size());
        order.forEach(o -> out.add((String) o));
        return out;
    }
}
