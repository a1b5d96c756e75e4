package io.sluice.connector.postgres.barrier;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.KeyRanges;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.naming.TopicNames;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Adds ordering barriers (see {@link Barriers}) to what the source task hands to Kafka Connect:
 * after each schema event, and after each truncation of a table (streamed, the start of a table's
 * copy into the stream, or the emptying of a keyless table a resumed snapshot copies again), each
 * end of a re-synced chunk (its range delete must follow every partition's rows before it) and
 * each update that moves a row to a new key keeping TOASTed values it did not send, one barrier
 * record in every partition of each table topic the event concerns. A truncation has no
 * key, so without its barrier it would land in any partition, and the rows written before it in
 * the others could be applied after it. The event itself goes to partition 0 of the schema-change topic, so that events keep
 * their order whatever the topic's partition count, and names its barrier in headers.
 */
public final class BarrierWriter {

    private final String topicPrefix;
    private final int partitions;

    /**
     * @param partitions the partition count of the table topics (each gets a barrier in every partition)
     */
    public BarrierWriter(String topicPrefix, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("Barriers need at least one partition, got " + partitions);
        }
        this.topicPrefix = topicPrefix;
        this.partitions = partitions;
    }

    /** The records, each event followed by its barriers. */
    public List<SourceRecord> withBarriers(List<SourceRecord> records) {
        List<SourceRecord> out = null;
        for (int i = 0; i < records.size(); i++) {
            SourceRecord record = records.get(i);
            Barriers.Barrier barrier = barrierFor(record);
            if (barrier == null) {
                if (out != null) {
                    out.add(record);
                }
                continue;
            }
            if (out == null) {
                out = new ArrayList<>(records.subList(0, i));
            }
            Headers headers = new ConnectHeaders(record.headers());
            Barriers.mark(headers, barrier);
            out.add(record.newRecord(TopicNames.forSchemaChanges(topicPrefix), 0, record.keySchema(), record.key(), record.valueSchema(),
                    record.value(), record.timestamp(), headers));
            Struct value = Barriers.value(barrier.id(), topicPrefix, partitions);
            for (String topic : barrier.topics()) {
                for (int p = 0; p < partitions; p++) {
                    out.add(new SourceRecord(record.sourcePartition(), record.sourceOffset(), topic, p, null, null,
                            Barriers.VALUE_SCHEMA, value, record.timestamp()));
                }
            }
        }
        return out == null ? records : out;
    }

    /** The barrier an event needs; null for a row. */
    Barriers.Barrier barrierFor(SourceRecord record) {
        if (record.valueSchema() == null || !(record.value() instanceof Struct value)) {
            return null;
        }
        if (SchemaChangeEvents.VALUE_SCHEMA.name().equals(record.valueSchema().name())) {
            Set<String> topics = new LinkedHashSet<>();
            for (SchemaChangeEvents.TableChange change : SchemaChangeEvents.tableChanges(value)) {
                if (change.publishedAs() != null) {
                    // A partition's change for sinks that keep the tree: its rows are on its root's topic (it has none).
                    topics.add(topicOf(change.publishedAs()));
                    continue;
                }
                topics.add(topicOf(change.id()));
                if (change.previousId() != null) {
                    topics.add(topicOf(change.previousId()));
                }
            }
            return new Barriers.Barrier(idOf(value), List.copyOf(topics), partitions);
        }
        if (isTruncation(value) || movesStoredValues(record) || KeyRanges.is(value.schema())) {
            return new Barriers.Barrier(idOf(value), List.of(record.topic()), partitions);
        }
        return null;
    }

    /**
     * Whether an update changed the row's key and left TOASTed values unchanged: a sink finds them
     * only in the row stored under the old key, as the old key's earlier changes in another
     * partition left it, and the new key's later changes must not come first.
     */
    static boolean movesStoredValues(SourceRecord record) {
        Header changed = record.headers().lastWithName(EventHeaders.KEY_CHANGED);
        Header unchanged = record.headers().lastWithName(EventHeaders.UNCHANGED_TOAST);
        return changed != null && Boolean.TRUE.equals(changed.value()) && unchanged != null && unchanged.value() != null
                && !unchanged.value().toString().isEmpty();
    }

    /** Whether an event is a truncation of a table. */
    static boolean isTruncation(Struct value) {
        if (!Envelope.isEnvelope(value.schema()) || value.schema().field(Envelope.OP) == null) {
            return false;
        }
        return Operation.TRUNCATE.code().equals(value.getString(Envelope.OP)) && value.getStruct(Envelope.SOURCE) != null;
    }

    /**
     * An id that is the same when the source sends the event again after a restart: from the
     * event's place in the source — its log position and order in the transaction for a streamed
     * schema change, the snapshot's time and stage (and table) for the snapshot's events.
     */
    static String idOf(Struct value) {
        Struct source = value.getStruct(Envelope.SOURCE);
        StringBuilder id = new StringBuilder(source.getString("name")).append('/');
        Object lsn = source.get("lsn");
        if (lsn != null) {
            id.append("lsn:").append(lsn);
            Struct transaction = value.schema().field(Envelope.TRANSACTION) == null ? null : value.getStruct(Envelope.TRANSACTION);
            if (transaction != null) {
                id.append('#').append(transaction.get("total_order"));
            }
        } else {
            id.append("snapshot:").append(source.get("ts_us")).append('/').append(source.getString("snapshot"));
        }
        if (value.schema().field(Envelope.OP) != null) {
            id.append("/").append(value.getString(Envelope.OP));
        }
        String table = source.getString("table");
        if (table != null && !table.isEmpty()) {
            id.append('/').append(Identifiers.quote(source.getString("schema"), table));
        }
        return id.toString();
    }

    private String topicOf(String qualifiedTable) {
        String[] table = Identifiers.unquoteQualified(qualifiedTable);
        return TopicNames.forTable(topicPrefix, table[0], table[1]);
    }
}
