package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.postgres.state.AppliedHeartbeats;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.postgres.state.KafkaOffsets;

/**
 * Changes sealed for one target transaction: the tables to empty first, each table's coalesced
 * changes, and the newest position of each source (or, on Kafka Connect, the offset after the
 * newest change of each topic partition), written with them so the target always says exactly
 * which changes it has.
 *
 * @param truncated the tables emptied before the changes, quoted, each after ONLY unless partitioned
 * @param positions per source, the newest position among the changes
 * @param whole     per source, whether the change at that position ends its source transaction
 * @param counts    per source, how many changes were taken (for the position table's statistics)
 * @param offsets   per topic partition, the Kafka offset after the newest change (on Kafka Connect; else empty)
 * @param partitionPositions per topic partition, the source position of its newest change (on Kafka Connect)
 * @param heartbeats per source, its newest heartbeat taken
 * @param changes   changes taken, before coalescing
 */
record ChangeBatch(List<String> truncated, List<ChangeTable.Sealed> tables, Map<String, SourcePosition> positions, Map<String, Boolean> whole,
                   Map<String, Long> counts, Map<TopicPartition, Long> offsets, Map<TopicPartition, SourcePosition> partitionPositions,
                   Map<String, AppliedHeartbeats.Beat> heartbeats, long changes) {

    /**
     * Writes the batch inside the connection's open transaction; the caller commits. Each table's
     * rows are staged by COPY, and the statements that move them into the tables go together with
     * the position write, in one round trip, unless {@code queue} runs them one at a time.
     */
    void write(Connection c, AppliedPositions positionTable, KafkaOffsets offsetTable, Set<String> createdStages, QueuedStatements queue)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            if (!truncated.isEmpty()) {
                s.execute("TRUNCATE " + String.join(", ", truncated));
            }
            for (ChangeTable.Sealed table : tables) {
                table.apply(c, s, createdStages, queue);
            }
            if (!positions.isEmpty()) {
                queue.add(s, positionTable.writeSql(positions, counts, whole), rows -> { });
            }
            if (!heartbeats.isEmpty()) {
                queue.add(s, positionTable.heartbeats().writeSql(heartbeats), rows -> { });
            }
            queue.run(s);
        }
        if (!offsets.isEmpty()) {
            offsetTable.write(c, offsets, partitionPositions);
        }
    }

    /** What the batch holds, for messages: its changes, or a heartbeat when it holds nothing else. */
    String describe() {
        return changes == 0 && !heartbeats.isEmpty() ? "a heartbeat (nothing changed on the source)" : changes + " changes";
    }

    /** Whether the target has this batch: what it stores is at or past every position and offset the batch writes. */
    boolean isOn(Connection c, AppliedPositions positionTable, KafkaOffsets offsetTable) throws SQLException {
        return isOn(c, positionTable, offsetTable, positions, offsets);
    }

    /**
     * Whether the target has a transaction that wrote these positions and offsets: what it stores
     * is at or past each. False when there are none, since then nothing tells.
     */
    static boolean isOn(Connection c, AppliedPositions positionTable, KafkaOffsets offsetTable, Map<String, SourcePosition> positions,
                        Map<TopicPartition, Long> offsets) throws SQLException {
        if (positions.isEmpty() && (offsets.isEmpty() || offsetTable == null)) {
            return false;
        }
        for (Map.Entry<String, SourcePosition> p : positions.entrySet()) {
            SourcePosition stored = positionTable.read(c, p.getKey());
            if (stored == null || stored.compareTo(p.getValue()) < 0) {
                return false;
            }
        }
        if (!offsets.isEmpty() && offsetTable != null) {
            Map<TopicPartition, Long> stored = offsetTable.read(c, offsets.keySet());
            for (Map.Entry<TopicPartition, Long> o : offsets.entrySet()) {
                Long next = stored.get(o.getKey());
                if (next == null || next < o.getValue()) {
                    return false;
                }
            }
        }
        return true;
    }
}
