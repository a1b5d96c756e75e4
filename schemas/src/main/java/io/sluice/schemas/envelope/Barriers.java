package io.sluice.schemas.envelope;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.header.Headers;

/**
 * Ordering barriers, for a Kafka Connect cluster, where order holds within one partition only.
 * An event that must apply between rows — a schema change, a stage of the snapshot — travels on
 * the schema-change topic; with it, the source writes a barrier record into every partition of
 * each table topic the event concerns, in line with that partition's rows. A sink applies the
 * event once every one of those partitions has reached its barrier (all rows before it are on
 * the target), and holds each partition at its barrier until the event is applied (no row after
 * it goes first). The event carries the barrier's id, the topics and their partition count in
 * headers; the barrier records carry the id.
 */
public final class Barriers {

    /** The value of a barrier record. */
    public static final Schema VALUE_SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.postgresql.Barrier")
            .doc("An ordering barrier: the rows before it in this partition come before the event with this id, the rows after it after")
            .field("id", Schema.STRING_SCHEMA)
            .field("source", Schema.STRING_SCHEMA)
            .field("partitions", Schema.INT32_SCHEMA)
            .build();

    /** On the event a barrier stands for: the barrier's id. */
    public static final String ID_HEADER = "sluice.barrier.id";
    /** On the event: the table topics that hold its barrier, comma-separated. */
    public static final String TOPICS_HEADER = "sluice.barrier.topics";
    /** On the event: how many partitions of each of those topics hold the barrier. */
    public static final String PARTITIONS_HEADER = "sluice.barrier.partitions";

    private Barriers() {
    }

    /** Whether a value schema is that of a barrier record. */
    public static boolean is(Schema valueSchema) {
        return valueSchema != null && VALUE_SCHEMA.name().equals(valueSchema.name());
    }

    public static Struct value(String id, String source, int partitions) {
        return new Struct(VALUE_SCHEMA).put("id", id).put("source", source).put("partitions", partitions);
    }

    /** Sets on an event's headers the barrier it waits for. */
    public static void mark(Headers headers, Barrier barrier) {
        headers.addString(ID_HEADER, barrier.id());
        headers.addString(TOPICS_HEADER, String.join(",", barrier.topics()));
        headers.addInt(PARTITIONS_HEADER, barrier.partitions());
    }

    /** The barrier an event waits for; null when it carries none (the source writes no barriers). */
    public static Barrier of(Headers headers) {
        Header id = headers.lastWithName(ID_HEADER);
        if (id == null || id.value() == null) {
            return null;
        }
        Header topics = headers.lastWithName(TOPICS_HEADER);
        Header partitions = headers.lastWithName(PARTITIONS_HEADER);
        String list = topics == null || topics.value() == null ? "" : topics.value().toString();
        List<String> names = new ArrayList<>();
        for (String topic : list.split(",")) {
            if (!topic.isBlank()) {
                names.add(topic);
            }
        }
        int count = partitions == null || partitions.value() == null ? 0 : Integer.parseInt(partitions.value().toString());
        return new Barrier(id.value().toString(), names, count);
    }

    /**
     * @param id         unique within the source, and the same when the source sends the event again
     * @param topics     the table topics holding the barrier
     * @param partitions the partitions of each topic, numbered from 0, that hold it
     */
    public record Barrier(String id, List<String> topics, int partitions) {
        public Barrier {
            topics = List.copyOf(topics);
        }
    }
}
