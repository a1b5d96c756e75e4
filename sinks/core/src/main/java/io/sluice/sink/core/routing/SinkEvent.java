package io.sluice.sink.core.routing;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.envelope.KeyRanges;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SequenceEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.envelope.ValueNotes;
import io.sluice.schemas.lookup.RecentSchemas;
import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A record as a sink has to treat it: what kind of event it carries, and the parts every sink
 * reads (the value, its source block, the operation, the ordering barrier it waits for).
 *
 * @param value   the record's value; null for a tombstone
 * @param source  the value's source block; null when it has none
 * @param op      the change's operation; null for other kinds
 * @param barrier the ordering barrier the event waits for (on a Kafka Connect cluster); null when none
 */
public record SinkEvent(Kind kind, SinkRecord record, TopicPartition partition, Struct value, Struct source, Operation op,
                        Barriers.Barrier barrier) {

    /** What a record asks of a sink. */
    public enum Kind {
        /** A null value after a delete: the delete event before it carries the change. */
        TOMBSTONE,
        /** A row of the initial snapshot, loaded in bulk. */
        SNAPSHOT_ROW,
        /** Snapshot rows as raw binary COPY tuples of one table (PostgreSQL to PostgreSQL, no transform). */
        RAW_ROWS,
        /** A snapshot table copied again whole: the target's copy is emptied before its rows come. */
        RELOAD,
        /** A streamed change: insert, update, delete or truncate, or a row of a table copied into the stream. */
        CHANGE,
        /** DDL or a snapshot's schema (first, per table, last). */
        SCHEMA_CHANGE,
        /** The source's sequence values. */
        SEQUENCES,
        /**
         * The end of a chunk of a table re-synced while streaming ({@link KeyRanges}): the target's
         * rows in its key range that are none of its keys are gone from the source.
         */
        KEY_RANGE,
        /**
         * A heartbeat of the source: written where the target keeps its position, in order with
         * the changes; once durable, the changes before it are.
         */
        HEARTBEAT
    }

    /**
     * The event a record carries.
     *
     * @throws DataException when the record is no Sluice event (no schema, a flattened value), saying what to change
     */
    public static SinkEvent of(SinkRecord record) {
        TopicPartition partition = partitionOf(record);
        if (record.value() == null) {
            return new SinkEvent(Kind.TOMBSTONE, record, partition, null, null, null, null);
        }
        if (!(record.value() instanceof Struct value)) {
            throw new DataException("Record on " + record.topic() + " has no struct value; Sluice's sinks need schemas "
                    + "(value.converter.schemas.enable=true with JSON, or Sluice's BinaryConverter)");
        }
        Barriers.Barrier barrier = Barriers.of(record.headers());
        if (SchemaChangeEvents.VALUE_SCHEMA.name().equals(record.valueSchema().name())) {
            return new SinkEvent(Kind.SCHEMA_CHANGE, record, partition, value, value.getStruct(Envelope.SOURCE), null, barrier);
        }
        if (RawTuples.is(record.valueSchema())) {
            return new SinkEvent(Kind.RAW_ROWS, record, partition, value, value.getStruct(Envelope.SOURCE), null, barrier);
        }
        if (Heartbeats.is(record.valueSchema())) {
            return new SinkEvent(Kind.HEARTBEAT, record, partition, value, null, null, barrier);
        }
        if (KeyRanges.is(record.valueSchema())) {
            return new SinkEvent(Kind.KEY_RANGE, record, partition, value, value.getStruct(Envelope.SOURCE), null, barrier);
        }
        if (SequenceEvents.is(record.valueSchema())) {
            return new SinkEvent(Kind.SEQUENCES, record, partition, value, null, null, barrier);
        }
        if (!Envelope.isEnvelope(record.valueSchema())) {
            throw new DataException("Record on " + record.topic() + " is not a change event (schema " + record.valueSchema().name()
                    + "); send the connector's events unflattened");
        }
        ValueNotes.restore(value, record.headers());
        EnvelopeFields fields = ENVELOPE_FIELDS.of(value.schema());
        // By name where a field is missing, for Connect's own message naming it.
        String code = fields.op() != null ? (String) value.get(fields.op()) : value.getString(Envelope.OP);
        Operation op;
        try {
            op = Operation.forCode(code);
        } catch (IllegalArgumentException e) {
            throw new DataException("Change event with unknown op=" + code + " on " + record.topic());
        }
        Struct source = fields.source() != null ? (Struct) value.get(fields.source()) : value.getStruct(Envelope.SOURCE);
        String snapshot = fields.snapshot() != null ? (String) source.get(fields.snapshot()) : source.getString("snapshot");
        Kind kind;
        if (op == Operation.TRUNCATE && SourceInfo.Snapshot.TRUE.code().equals(snapshot)) {
            kind = Kind.RELOAD;
        } else if (op == Operation.READ && !SourceInfo.Snapshot.INCREMENTAL.code().equals(snapshot)) {
            kind = Kind.SNAPSHOT_ROW;
        } else {
            kind = Kind.CHANGE; // rows of a table copied into the stream go with the changes, in their order
        }
        return new SinkEvent(kind, record, partition, value, source, op, barrier);
    }

    /**
     * The fields every change event is read by, found once per envelope schema instead of by name
     * for each event (a lookup by name was a twentieth of a sink thread's time).
     */
    private record EnvelopeFields(Field op, Field source, Field snapshot) {

        static EnvelopeFields of(Schema schema) {
            Field source = schema.field(Envelope.SOURCE);
            Field snapshot = source == null || source.schema().type() != Schema.Type.STRUCT ? null : source.schema().field("snapshot");
            return new EnvelopeFields(schema.field(Envelope.OP), source, snapshot);
        }
    }

    private static final RecentSchemas<EnvelopeFields> ENVELOPE_FIELDS = new RecentSchemas<>(EnvelopeFields::of);

    /** The record's topic partition (partition 0 when the record names none, as in the embedded runtime). */
    public static TopicPartition partitionOf(SinkRecord record) {
        return PARTITIONS.of(record.topic(), record.kafkaPartition() == null ? 0 : record.kafkaPartition());
    }

    private static final TopicPartitions PARTITIONS = new TopicPartitions();

    public long offset() {
        return record.kafkaOffset();
    }

    /**
     * The topic of the event's table rows. A row event that waits at a barrier (a truncation, a
     * key change keeping unchanged TOASTed values) travels on the schema-change topic; its barrier
     * names the table's topic, the only one it concerns.
     */
    public String tableTopic() {
        if (kind != Kind.SCHEMA_CHANGE && barrier != null && barrier.topics().size() == 1) {
            return barrier.topics().get(0);
        }
        return record.topic();
    }

    /** The source's name (its topic prefix); null when the event has no source block. */
    public String sourceName() {
        return source == null ? null : source.getString("name");
    }

    /** Where the change sits in its source's stream; null for events without one. */
    public SourcePosition position() {
        return value == null || source == null ? null : SourcePosition.of(value);
    }

    /**
     * The snapshot marker of the source block; null when it has none.
     *
     * @throws DataException when the marker is none Sluice knows
     */
    public SourceInfo.Snapshot snapshotMarker() {
        try {
            return source == null || source.schema().field("snapshot") == null ? null : SourceInfo.Snapshot.forCode(source.getString("snapshot"));
        } catch (IllegalArgumentException e) {
            throw new DataException(e.getMessage() + " in the source block of a record on " + record.topic());
        }
    }

    /** Whether the event is a row of a table copied into the stream (re-synced or added while streaming). */
    public boolean copiedIntoStream() {
        return snapshotMarker() == SourceInfo.Snapshot.INCREMENTAL;
    }

    /** The source table ({@code schema.table}), for what is said about the record; null when it names none. */
    public String table() {
        if (source == null || source.schema().field("table") == null) {
            return null;
        }
        String table = source.getString("table");
        return table == null ? null : source.getString("schema") + "." + table;
    }
}
