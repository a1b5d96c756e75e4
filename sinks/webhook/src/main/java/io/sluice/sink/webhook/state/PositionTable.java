package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.common.TopicPartition;

/**
 * Per topic partition, the newest source position whose change the outbox holds, written in the
 * same transaction as the change: a change the source sends again after a crash (it confirms
 * its position only now and then) is then known and not written twice.
 */
public final class PositionTable {

    private final String table;
    private final String connector;

    /** @param connector the connector's (pipeline's) name: two of them on one state database keep their positions apart */
    public PositionTable(StateDatabase state, String connector) {
        this.table = state.table("webhook_positions");
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
