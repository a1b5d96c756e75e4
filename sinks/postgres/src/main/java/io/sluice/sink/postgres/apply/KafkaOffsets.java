package io.sluice.sink.postgres.apply;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.postgres.connections.MissingRelation;

/**
 * The table on the target that holds, per sink connector and topic partition, the Kafka offset
 * after the last record applied. It is written in the same transaction as the rows, so after a
 * crash or a rebalance the task that gets a partition starts right after what the target has,
 * whatever Kafka Connect had committed: nothing is applied twice and nothing skipped. Unlike
 * source positions, offsets are ordered within a partition only, which is all that holds when
 * many partitions and tasks feed one target.
 */
public final class KafkaOffsets {

    private final String schema;
    private final String qualified;
    private final String connector;

    /**
     * @param schema    the schema of Sluice's own tables on the target (that of the position table)
     * @param connector the sink connector's name: two connectors reading one topic into one target keep apart
     */
    public KafkaOffsets(String schema, String connector) {
        this.schema = schema;
        this.qualified = Identifiers.quote(schema, "kafka_offsets");
        this.connector = connector;
    }

    /** The table, as {@code schema.table}. */
    public String name() {
        return schema + ".kafka_offsets";
    }

    /** Creates the table if it is missing. */
    public void ensure(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema) + "; CREATE TABLE IF NOT EXISTS " + qualified
                    + " (connector text NOT NULL, topic text NOT NULL, kafka_partition int NOT NULL, next_offset bigint NOT NULL, "
                    + "applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (connector, topic, kafka_partition))");
        }
    }

    /** The offsets after the last records applied, of the partitions that have any; the table may not exist yet. */
    public Map<TopicPartition, Long> read(Connection c, Collection<TopicPartition> partitions) throws SQLException {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        if (partitions.isEmpty()) {
            return offsets;
        }
        String[] topics = partitions.stream().map(TopicPartition::topic).toArray(String[]::new);
        Integer[] numbers = partitions.stream().map(TopicPartition::partition).toArray(Integer[]::new);
        try (PreparedStatement s = c.prepareStatement("SELECT o.topic, o.kafka_partition, o.next_offset FROM " + qualified
                + " o JOIN unnest(?::text[], ?::int[]) AS p(topic, kafka_partition) USING (topic, kafka_partition) WHERE o.connector = ?")) {
            Array topicArray = c.createArrayOf("text", topics);
            Array numberArray = c.createArrayOf("int4", numbers);
            s.setArray(1, topicArray);
            s.setArray(2, numberArray);
            s.setString(3, connector);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    offsets.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
                }
            }
        } catch (SQLException e) {
            if (!MissingRelation.is(e)) {
                throw e;
            }
        }
        return offsets;
    }

    /**
     * Records, inside the caller's transaction, the offsets after the records it applies. An
     * offset never moves back: a task that lost a partition in a rebalance and still commits a
     * batch of it cannot undo what the partition's new task wrote.
     */
    public void write(Connection c, Map<TopicPartition, Long> nextOffsets) throws SQLException {
        if (nextOffsets.isEmpty()) {
            return;
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + qualified + " AS o (connector, topic, kafka_partition, next_offset) "
                + "VALUES (?, ?, ?, ?) ON CONFLICT (connector, topic, kafka_partition) DO UPDATE SET "
                + "next_offset = greatest(o.next_offset, EXCLUDED.next_offset), applied_at = now()")) {
            for (Map.Entry<TopicPartition, Long> e : nextOffsets.entrySet()) {
                s.setString(1, connector);
                s.setString(2, e.getKey().topic());
                s.setInt(3, e.getKey().partition());
                s.setLong(4, e.getValue());
                s.addBatch();
            }
            s.executeBatch();
        }
    }
}
