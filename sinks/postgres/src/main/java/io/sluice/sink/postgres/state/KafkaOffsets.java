package io.sluice.sink.postgres.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.pgstate.OwnTables;
import io.sluice.sink.core.pgstate.MissingRelation;

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
    private final String loaded;
    private final String connector;

    /**
     * @param schema    the schema of Sluice's own tables on the target (that of the position table)
     * @param connector the sink connector's name: two connectors reading one topic into one target keep apart
     */
    public KafkaOffsets(String schema, String connector) {
        this.schema = schema;
        this.qualified = Identifiers.quote(schema, "kafka_offsets");
        this.loaded = Identifiers.quote(schema, "kafka_loaded_runs");
        this.connector = connector;
    }

    /** The table, as {@code schema.table}. */
    public String name() {
        return schema + ".kafka_offsets";
    }

    /** Creates the table if it is missing. */
    public void ensure(Connection c) throws SQLException {
        OwnTables.create(c, "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema) + "; CREATE TABLE IF NOT EXISTS " + qualified
                + " (connector text NOT NULL, topic text NOT NULL, kafka_partition int NOT NULL, next_offset bigint NOT NULL, "
                + "applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (connector, topic, kafka_partition)); "
                + "CREATE TABLE IF NOT EXISTS " + loaded + " (connector text NOT NULL, topic text NOT NULL, kafka_partition int NOT NULL, "
                + "first_offset bigint NOT NULL, last_offset bigint NOT NULL, PRIMARY KEY (connector, topic, kafka_partition, first_offset)); "
                + OwnTables.columnUnlessThere(qualified, "source_lsn", "pg_lsn") + "; "
                + OwnTables.columnUnlessThere(qualified, "source_event", "bigint"));
    }

    /** Whether any connector has recorded offsets in this target (the table may not exist). */
    public boolean any(Connection c) throws SQLException {
        try (java.sql.Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM " + qualified + ")")) {
            rs.next();
            return rs.getBoolean(1);
        } catch (SQLException e) {
            if (MissingRelation.is(e)) {
                return false;
            }
            throw e;
        }
    }

    /** The offsets after the last records applied, of the partitions that have any; the table may not exist yet. */
    public Map<TopicPartition, Long> read(Connection c, Collection<TopicPartition> partitions) throws SQLException {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        eachRow(c, partitions, "SELECT o.topic, o.kafka_partition, o.next_offset FROM " + qualified + " o", "",
                (tp, rs) -> offsets.put(tp, rs.getLong(3)));
        return offsets;
    }

    /**
     * Records, inside the caller's transaction (a snapshot COPY's), the runs of offsets whose rows
     * it writes: COPYs of one partition commit in any order, so no single offset says what is in.
     */
    public void writeRuns(Connection c, Map<TopicPartition, List<long[]>> runs) throws SQLException {
        if (runs.isEmpty()) {
            return;
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + loaded + " (connector, topic, kafka_partition, first_offset, last_offset) "
                + "VALUES (?, ?, ?, ?, ?) ON CONFLICT (connector, topic, kafka_partition, first_offset) DO UPDATE SET "
                + "last_offset = greatest(" + loaded + ".last_offset, EXCLUDED.last_offset)")) {
            for (Map.Entry<TopicPartition, List<long[]>> e : runs.entrySet()) {
                for (long[] run : e.getValue()) {
                    s.setString(1, connector);
                    s.setString(2, e.getKey().topic());
                    s.setInt(3, e.getKey().partition());
                    s.setLong(4, run[0]);
                    s.setLong(5, run[1]);
                    s.addBatch();
                }
            }
            s.executeBatch();
        }
    }

    /** The runs of offsets the target has rows of, {first, last} by first, per partition; the table may not exist yet. */
    public Map<TopicPartition, NavigableMap<Long, Long>> readRuns(Connection c, Collection<TopicPartition> partitions) throws SQLException {
        Map<TopicPartition, NavigableMap<Long, Long>> runs = new HashMap<>();
        eachRow(c, partitions, "SELECT o.topic, o.kafka_partition, o.first_offset, o.last_offset FROM " + loaded + " o", "",
                (tp, rs) -> runs.computeIfAbsent(tp, p -> new TreeMap<>()).put(rs.getLong(3), rs.getLong(4)));
        return runs;
    }

    /**
     * Moves a partition's offset to {@code next} (everything before it is on the target) and
     * forgets the runs it covers, inside the caller's transaction.
     */
    public void settle(Connection c, TopicPartition partition, long next) throws SQLException {
        write(c, Map.of(partition, next));
        try (PreparedStatement s = c.prepareStatement("DELETE FROM " + loaded + " WHERE connector = ? AND topic = ? AND kafka_partition = ? "
                + "AND last_offset < ?")) {
            s.setString(1, connector);
            s.setString(2, partition.topic());
            s.setInt(3, partition.partition());
            s.setLong(4, next);
            s.execute();
        }
    }

    /**
     * Records, inside the caller's transaction, the offsets after the records it applies. An
     * offset never moves back: a task that lost a partition in a rebalance and still commits a
     * batch of it cannot undo what the partition's new task wrote.
     */
    public void write(Connection c, Map<TopicPartition, Long> nextOffsets) throws SQLException {
        write(c, nextOffsets, Map.of());
    }

    /**
     * As {@link #write(Connection, Map)}, also with the source position of each partition's newest
     * change, which never moves back either.
     */
    public void write(Connection c, Map<TopicPartition, Long> nextOffsets, Map<TopicPartition, SourcePosition> positions) throws SQLException {
        if (nextOffsets.isEmpty()) {
            return;
        }
        String newer = "(EXCLUDED.source_lsn, EXCLUDED.source_event) > (o.source_lsn, o.source_event) OR o.source_lsn IS NULL";
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + qualified + " AS o (connector, topic, kafka_partition, next_offset, "
                + "source_lsn, source_event) VALUES (?, ?, ?, ?, ?::pg_lsn, ?) ON CONFLICT (connector, topic, kafka_partition) DO UPDATE SET "
                + "next_offset = greatest(o.next_offset, EXCLUDED.next_offset), applied_at = now(), "
                + "source_lsn = CASE WHEN " + newer + " THEN coalesce(EXCLUDED.source_lsn, o.source_lsn) ELSE o.source_lsn END, "
                + "source_event = CASE WHEN " + newer + " THEN coalesce(EXCLUDED.source_event, o.source_event) ELSE o.source_event END")) {
            for (Map.Entry<TopicPartition, Long> e : nextOffsets.entrySet()) {
                SourcePosition position = positions.get(e.getKey());
                s.setString(1, connector);
                s.setString(2, e.getKey().topic());
                s.setInt(3, e.getKey().partition());
                s.setLong(4, e.getValue());
                s.setString(5, position == null ? null : position.lsnText());
                if (position == null) {
                    s.setNull(6, java.sql.Types.BIGINT);
                } else {
                    s.setLong(6, position.event());
                }
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    /** The source position of each partition's newest change the target has, of the partitions that have one. */
    public Map<TopicPartition, SourcePosition> readPositions(Connection c, Collection<TopicPartition> partitions) throws SQLException {
        Map<TopicPartition, SourcePosition> positions = new HashMap<>();
        eachRow(c, partitions, "SELECT o.topic, o.kafka_partition, o.source_lsn::text, o.source_event FROM " + qualified + " o",
                " AND o.source_lsn IS NOT NULL", (tp, rs) -> positions.put(tp, new SourcePosition(Lsn.parse(rs.getString(3)), rs.getLong(4))));
        return positions;
    }

    @FunctionalInterface
    private interface Row {
        void read(TopicPartition partition, ResultSet rs) throws SQLException;
    }

    /**
     * Runs {@code select} (columns topic and kafka_partition first, from a table aliased {@code o})
     * for this connector and these partitions, handing each row over; nothing when the table does
     * not exist yet.
     */
    private void eachRow(Connection c, Collection<TopicPartition> partitions, String select, String condition, Row row) throws SQLException {
        if (partitions.isEmpty()) {
            return;
        }
        try (PreparedStatement s = c.prepareStatement(select + " JOIN unnest(?::text[], ?::int[]) AS p(topic, kafka_partition) "
                + "USING (topic, kafka_partition) WHERE o.connector = ?" + condition)) {
            s.setArray(1, c.createArrayOf("text", partitions.stream().map(TopicPartition::topic).toArray()));
            s.setArray(2, c.createArrayOf("int4", partitions.stream().map(TopicPartition::partition).toArray()));
            s.setString(3, connector);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    row.read(new TopicPartition(rs.getString(1), rs.getInt(2)), rs);
                }
            }
        } catch (SQLException e) {
            if (!MissingRelation.is(e)) {
                throw e;
            }
        }
    }
}
