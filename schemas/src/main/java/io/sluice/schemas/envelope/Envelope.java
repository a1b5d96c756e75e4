package io.sluice.schemas.envelope;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The value of a row change event, in Debezium's envelope: {@code before}, {@code after},
 * {@code source}, {@code transaction}, {@code op} and the event's processing time
 * ({@code ts_ms}, {@code ts_us}, {@code ts_ns}). Debezium consumers (its JDBC sink, its SMTs)
 * read it unchanged, and Sluice's sinks read Debezium's.
 */
public final class Envelope {

    public static final String BEFORE = "before";
    public static final String AFTER = "after";
    public static final String SOURCE = "source";
    public static final String TRANSACTION = "transaction";
    public static final String OP = "op";
    public static final String TS_MS = "ts_ms";
    public static final String TS_US = "ts_us";
    public static final String TS_NS = "ts_ns";

    /** Debezium's transaction block: which transaction, and the event's place in it. */
    public static final Schema TRANSACTION_SCHEMA = SchemaBuilder.struct().optional().name("event.block").version(1)
            .field("id", Schema.STRING_SCHEMA)
            .field("total_order", Schema.INT64_SCHEMA)
            .field("data_collection_order", Schema.INT64_SCHEMA)
            .build();

    private Envelope() {
    }

    /**
     * A transaction block as Debezium writes it: the id is {@code txId:commitLsn}, and
     * {@code totalOrder} the event's place in its transaction (from 1), which with the commit
     * position orders every change of a stream.
     */
    public static Struct transaction(long txId, long commitLsn, long totalOrder, long dataCollectionOrder) {
        return new Struct(TRANSACTION_SCHEMA)
                .put("id", txId + ":" + commitLsn)
                .put("total_order", totalOrder)
                .put("data_collection_order", dataCollectionOrder);
    }

    /** The envelope schema for a table whose row schema is {@code valueSchema} (which must be optional). */
    public static Schema schema(String topic, Schema valueSchema) {
        if (!valueSchema.isOptional()) {
            throw new IllegalArgumentException("The row schema inside an envelope must be optional: " + valueSchema.name());
        }
        return SchemaBuilder.struct().name(topic + ".Envelope").version(2)
                .field(BEFORE, valueSchema)
                .field(AFTER, valueSchema)
                .field(SOURCE, SourceInfo.SCHEMA)
                .field(TRANSACTION, TRANSACTION_SCHEMA)
                .field(OP, Schema.STRING_SCHEMA)
                .field(TS_MS, Schema.OPTIONAL_INT64_SCHEMA)
                .field(TS_US, Schema.OPTIONAL_INT64_SCHEMA)
                .field(TS_NS, Schema.OPTIONAL_INT64_SCHEMA)
                .build();
    }

    /** Whether a schema is a change envelope (by Debezium's naming convention). */
    public static boolean isEnvelope(Schema schema) {
        return schema != null && schema.type() == Schema.Type.STRUCT && schema.name() != null && schema.name().endsWith(".Envelope");
    }

    /**
     * An event value.
     *
     * @param nowMicros when Sluice processed the event, microseconds since the epoch
     */
    public static Struct create(Schema envelope, Operation op, Struct before, Struct after, SourceInfo source, long nowMicros) {
        return create(envelope, op, before, after, source.toStruct(), nowMicros);
    }

    /** An event value with a prepared source block, which many events of one table and transaction can share. */
    public static Struct create(Schema envelope, Operation op, Struct before, Struct after, Struct source, long nowMicros) {
        return new Struct(envelope)
                .put(BEFORE, before)
                .put(AFTER, after)
                .put(SOURCE, source)
                .put(OP, op.code())
                .put(TS_MS, Math.floorDiv(nowMicros, 1000L))
                .put(TS_US, nowMicros)
                .put(TS_NS, Math.multiplyExact(nowMicros, 1000L));
    }
}
