package io.sluice.schemas.envelope;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

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
        return transaction(transactionId(txId, commitLsn), totalOrder, dataCollectionOrder);
    }

    /** The id of a transaction's block, {@code txId:commitLsn}: the same for all its events, so it can be made once. */
    public static String transactionId(long txId, long commitLsn) {
        return txId + ":" + commitLsn;
    }

    /** A transaction block with an id made by {@link #transactionId}. */
    public static Struct transaction(String id, long totalOrder, long dataCollectionOrder) {
        // A string and two longs, as the schema has them: nothing to validate (see StructFill).
        return StructFill.of(TRANSACTION_SCHEMA, new Object[] {id, totalOrder, dataCollectionOrder});
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
        return create(envelope, op, before, after, source, null, nowMicros);
    }

    /**
     * An event value with a prepared source block and a transaction block ({@link #transaction}).
     * The rows and blocks are not validated again when their structs have the envelope's very
     * field schemas (they were when they were made); anything else is, as {@code put} would.
     */
    public static Struct create(Schema envelope, Operation op, Struct before, Struct after, Struct source, Struct transaction,
                                long nowMicros) {
        Object[] values = new Object[envelope.fields().size()];
        put(envelope, values, BEFORE, before);
        put(envelope, values, AFTER, after);
        put(envelope, values, SOURCE, source);
        put(envelope, values, TRANSACTION, transaction);
        // A string and longs, as every envelope has them.
        values[envelope.field(OP).index()] = op.code();
        values[envelope.field(TS_MS).index()] = Math.floorDiv(nowMicros, 1000L);
        values[envelope.field(TS_US).index()] = nowMicros;
        values[envelope.field(TS_NS).index()] = Math.multiplyExact(nowMicros, 1000L);
        return StructFill.of(envelope, values);
    }

    /** A struct given for an envelope's field, validated as {@link StructFill#check} does; none for a field the envelope lacks. */
    private static void put(Schema envelope, Object[] values, String name, Struct value) {
        org.apache.kafka.connect.data.Field field = envelope.field(name);
        if (field == null && value == null) {
            return;
        }
        if (field == null) {
            throw new DataException(name + " is not a field of the envelope " + envelope.name());
        }
        StructFill.check(field, value);
        values[field.index()] = value;
    }
}
