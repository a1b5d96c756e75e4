package io.sluice.schemas.envelope;

import java.util.List;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Snapshot rows that travel as PostgreSQL's own binary COPY tuples from source to target: the
 * fast path for PostgreSQL sinks. One record carries many rows, with the column names and their
 * declared types so the sink can check the target matches before it writes the bytes, and how
 * each column's values decode ({@link io.sluice.schemas.mapping.PortableColumn}), so a transform
 * can rewrite some columns of each tuple and pass the others on as bytes (version 2; records of
 * version 1 lack it).
 */
public final class RawTuples {

    public static final String NAME = "io.sluice.snapshot.RawTuples";

    public static final String DECODING = "decoding";

    public static final Schema SCHEMA = SchemaBuilder.struct().name(NAME).version(2)
            .field("source", SourceInfo.SCHEMA)
            .field("columns", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("types", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("key", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("rows", Schema.INT32_SCHEMA)
            .field("tuples", Schema.BYTES_SCHEMA)
            .field(DECODING, io.sluice.schemas.mapping.PortableColumn.LIST_SCHEMA)
            .build();

    private RawTuples() {
    }

    public static boolean is(Schema schema) {
        return schema != null && NAME.equals(schema.name());
    }

    /**
     * @param key    the source table's key columns (empty when it has none)
     * @param tuples binary COPY tuples (field count, then each field's length and bytes), without header or trailer
     */
    public static Struct of(Struct source, List<String> columns, List<String> types, List<String> key, int rows, byte[] tuples) {
        return of(source, columns, types, key, rows, tuples, null);
    }

    /**
     * @param decoding how each column decodes ({@link io.sluice.schemas.mapping.PortableColumn#describe}), or null
     *                 when not known
     */
    public static Struct of(Struct source, List<String> columns, List<String> types, List<String> key, int rows, byte[] tuples,
                            Struct decoding) {
        return new Struct(SCHEMA).put("source", source).put("columns", columns).put("types", types).put("key", key)
                .put("rows", rows).put("tuples", tuples).put(DECODING, decoding);
    }
}
