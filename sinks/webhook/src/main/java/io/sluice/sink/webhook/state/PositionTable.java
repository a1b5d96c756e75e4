package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.common.TopicPartition;

/**
 * Per topic partition, what the outbox holds, written in the same transaction as the changes: the
 * newest source position whose change it holds, so that a change the source sends again after a
 * crash (it confirms its position only now and then) is known and not written twice; and, on
 * Kafka Connect, the offset after the last record it holds, so that a record Kafka hands out again
 * (after a crash or a rebalance, before Connect committed it) is not either. Only the offset
 * catches a record without a source position, such as a snapshot's row: written twice, it would
 * reach subscribers again after the newer changes of its row.
 */
public final class PositionTable {

    private final String table;
    private final String offsets;
    private final String connector;

    /** @param connector the connector's (pipeline's) name: two of them on one state database keep their positions apart */
    public PositionTable(StateDatabase state, String connector) {
        this.table = state.table("webhook_positions");
        this.offsets = state.table("webhook_kafka_offsets");
        this.connector = connector;
    }

    /** Moves the stored positions forward to these; in the caller's transaction. */
    void advance(Connection c, Map<TopicPartition, SourcePosition> positions) throws SQLException {
        if (positions.isEmpty()) {
            return;
        }
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + table + " AS p (connector, topic, kafka_partition, commit_lsn, event) "
                + "VALUES (?, ?, ?, ?, ?) ON CONFLICT (connector, topic, kafka_partition) DO UPDATE SET commit_lsn = excluded.commit_lsn, "
                + "event = excluded.event WHERE (p.commit_lsn, p.event) < (excluded.commit_lsn, excluded.event)")) {
            for (Map.Entry<TopicPartition, SourcePosition> e : positions.entrySet()) {
                st.setString(1, connector);
                st.setString(2, e.getKey().topic());
                st.setInt(3, e.getKey().partition());
                st.setLong(4, e.getValue().commitLsn());
                st.setLong(5, e.getValue().event());
                st.addBatch();
            }
            st.executeBatch();
        }
    }

    /**
     * Moves the stored offsets (each the offset after the last record the outbox holds) forward
     * to these; in the caller's transaction, or alone for records that needed no outbox row.
     */
    public void advanceOffsets(Connection c, Map<TopicPartition, Long> upTo) throws SQLException {
        if (upTo.isEmpty()) {
            return;
        }
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + offsets + " AS o (connector, topic, kafka_partition, next_offset) "
                + "VALUES (?, ?, ?, ?) ON CONFLICT (connector, topic, kafka_partition) DO UPDATE SET next_offset = excluded.next_offset "
                + "WHERE o.next_offset < excluded.next_offset")) {
            for (Map.Entry<TopicPartition, Long> e : upTo.entrySet()) {
                st.setString(1, connector);
                st.setString(2, e.getKey().topic());
                st.setInt(3, e.getKey().partition());
                st.setLong(4, e.getValue());
                st.addBatch();
            }
            st.executeBatch();
        }
    }

    /** The stored offsets of these partitions (those with one): each the offset after the last record the outbox holds. */
    public Map<TopicPartition, Long> readOffsets(Connection c, Collection<TopicPartition> partitions) throws SQLException {
        Map<TopicPartition, Long> found = new HashMap<>();
        try (PreparedStatement st = c.prepareStatement("SELECT topic, kafka_partition, next_offset FROM " + offsets
                + " WHERE connector = ?")) {
            st.setString(1, connector);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    TopicPartition tp = new TopicPartition(rs.getString(1), rs.getInt(2));
                    if (partitions.contains(tp)) {
                        found.put(tp, rs.getLong(3));
                    }
                }
            }
        }
        return found;
    }

    /** The stored positions of the connector's partitions. */
    public Map<TopicPartition, SourcePosition> read(Connection c) throws SQLException {
        Map<TopicPartition, SourcePosition> positions = new HashMap<>();
        try (PreparedStatement st = c.prepareStatement("SELECT topic, kafka_partition, commit_lsn, event FROM " + table
                + " WHERE connector = ?")) {
            st.setString(1, connector);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    positions.put(new TopicPartition(rs.getString(1), rs.getInt(2)), new SourcePosition(rs.getLong(3), rs.getLong(4)));
                }
            }
        }
        return positions;
    }
}
