package io.sluice.schemas.envelope;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Heartbeats, sent on {@code <prefix>.heartbeats}: the source writes one into the WAL every
 * {@code heartbeat.interval.ms} (a logical decoding message with {@link #MESSAGE_PREFIX}), and
 * it comes back through the slot in its place among the changes. A sink that has made one
 * durable has every change committed before it; now minus its commit time is the pipeline's
 * end-to-end lag, which stays near the interval on an idle database instead of growing without
 * bound. Its offset is a stream offset, so the slot is confirmed past it like past a change.
 */
public final class Heartbeats {

    /** The prefix of the logical decoding messages the source writes; their content is the pipeline's topic prefix. */
    public static final String MESSAGE_PREFIX = "sluice.heartbeat";

    /**
     * {@code name} (the topic prefix), {@code ts_ms}, the heartbeat's commit time on the source,
     * and {@code lsn}, its commit position (absent from a producer before it: optional), which a
     * target records so {@code sluice verify} knows when it has applied everything before a point.
     */
    public static final Schema VALUE_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.postgresql.Heartbeat")
            .field("name", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
            .build();

    private Heartbeats() {
    }

    public static boolean is(Schema schema) {
        return schema != null && VALUE_SCHEMA.name().equals(schema.name());
    }

    public static Struct value(String source, long commitMillis, long commitLsn) {
        return new Struct(VALUE_SCHEMA).put("name", source).put("ts_ms", commitMillis).put("lsn", commitLsn);
    }

    /** The heartbeat's commit time on the source, in milliseconds since the epoch. */
    public static long commitMillis(Struct heartbeat) {
        return heartbeat.getInt64("ts_ms");
    }

    /** The heartbeat's commit position on the source; null when its producer did not send it. */
    public static Long commitLsn(Struct heartbeat) {
        return heartbeat.schema().field("lsn") == null ? null : heartbeat.getInt64("lsn");
    }
}
