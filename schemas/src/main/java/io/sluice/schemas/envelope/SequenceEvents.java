package io.sluice.schemas.envelope;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Sequence values of a source, sent on {@code <prefix>.sequences} while changes stream, since
 * logical decoding does not carry them: a target that takes them keeps its sequences at or past
 * the source's, so ids it hands out after a cut-over collide with no row of the source. Sequences
 * only move forward, so these events need no order with the rows.
 */
public final class SequenceEvents {

    /** One sequence: {@code schema}, {@code name}, and {@code last_value}, the last value the source handed out. */
    public static final Schema ENTRY_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.postgresql.SequenceValue")
            .field("schema", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("last_value", Schema.INT64_SCHEMA)
            .build();

    /** {@code name} (the topic prefix), {@code db}, {@code ts_ms} (when read) and the {@code sequences}. */
    public static final Schema VALUE_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.postgresql.SequenceValues")
            .field("name", Schema.STRING_SCHEMA)
            .field("db", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("sequences", SchemaBuilder.array(ENTRY_SCHEMA).build())
            .build();

    /** A sequence's value. */
    public record Value(String schema, String name, long lastValue) {
    }

    private SequenceEvents() {
    }

    public static boolean is(Schema schema) {
        return schema != null && VALUE_SCHEMA.name().equals(schema.name());
    }

    public static Struct value(String source, String database, long tsMillis, List<Value> values) {
        List<Struct> entries = new ArrayList<>(values.size());
        for (Value v : values) {
            entries.add(new Struct(ENTRY_SCHEMA).put("schema", v.schema()).put("name", v.name()).put("last_value", v.lastValue()));
        }
        return new Struct(VALUE_SCHEMA).put("name", source).put("db", database).put("ts_ms", tsMillis).put("sequences", entries);
    }

    /** The values an event carries. */
    public static List<Value> values(Struct event) {
        List<Value> values = new ArrayList<>();
        for (Struct entry : event.<Struct>getArray("sequences")) {
            values.add(new Value(entry.getString("schema"), entry.getString("name"), entry.getInt64("last_value")));
        }
        return values;
    }
}
