package io.sluice.sink.core.pgstate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

import io.sluice.schemas.naming.Identifiers;
import org.apache.kafka.common.TopicPartition;

/**
 * Two tables in a sink's own database (the PostgreSQL target, the webhook state database) that let the tasks of one sink connector, on any workers, agree on
 * ordering barriers: {@code barrier_arrivals} says which topic partitions have every row before
 * a barrier on the target, and {@code barrier_releases} which barriers' events are applied. The
 * target is the one place every task sees, and what it holds survives restarts and rebalances.
 */
public final class BarrierTables {

    private final String schema;
    private final String arrivals;
    private final String releases;
    private final String connector;

    /**
     * @param schema    the schema of Sluice's own tables on the target (that of the position table)
     * @param connector the sink connector's name: two connectors on one target keep apart
     */
    public BarrierTables(String schema, String connector) {
        this.schema = schema;
        this.arrivals = Identifiers.quote(schema, "barrier_arrivals");
        this.releases = Identifiers.quote(schema, "barrier_releases");
        this.connector = connector;
    }

    /** Creates the tables if they are missing. */
    public void ensure(Connection c) throws SQLException {
        OwnTables.create(c, "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema) + "; CREATE TABLE IF NOT EXISTS " + arrivals
                + " (connector text NOT NULL, barrier text NOT NULL, topic text NOT NULL, kafka_partition int NOT NULL, "
                + "arrived_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (connector, barrier, topic, kafka_partition)); "
                + "CREATE TABLE IF NOT EXISTS " + releases + " (connector text NOT NULL, barrier text NOT NULL, "
                + "released_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (connector, barrier))");
    }

    /** Records that every row of the partition before the barrier is on the target. */
    public void arrive(Connection c, String barrier, TopicPartition partition) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + arrivals + " (connector, barrier, topic, kafka_partition) "
                + "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
            s.setString(1, connector);
            s.setString(2, barrier);
            s.setString(3, partition.topic());
            s.setInt(4, partition.partition());
            s.execute();
        }
    }

    /** The partitions of these topics that have reached the barrier. */
    public Set<TopicPartition> arrived(Connection c, String barrier, Collection<String> topics) throws SQLException {
        Set<TopicPartition> arrived = new HashSet<>();
        try (PreparedStatement s = c.prepareStatement("SELECT topic, kafka_partition FROM " + arrivals
                + " WHERE connector = ? AND barrier = ? AND topic = ANY (?)")) {
            s.setString(1, connector);
            s.setString(2, barrier);
            s.setArray(3, c.createArrayOf("text", topics.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    arrived.add(new TopicPartition(rs.getString(1), rs.getInt(2)));
                }
            }
        } catch (SQLException e) {
            if (!MissingRelation.is(e)) {
                throw e;
            }
        }
        return arrived;
    }

    /** Which of these barriers have their events applied. */
    public Set<String> released(Connection c, Collection<String> barriers) throws SQLException {
        Set<String> released = new HashSet<>();
        if (barriers.isEmpty()) {
            return released;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT barrier FROM " + releases + " WHERE connector = ? AND barrier = ANY (?)")) {
            s.setString(1, connector);
            s.setArray(2, c.createArrayOf("text", barriers.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    released.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            if (!MissingRelation.is(e)) {
                throw e;
            }
        }
        return released;
    }

    /**
     * Records, in the caller's transaction (that of the event's own work where it has one), that
     * the barrier's event is applied: the partitions held at it go on. Its arrivals are done with.
     */
    public void release(Connection c, String barrier) throws SQLException {
        ensure(c);
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + releases + " (connector, barrier) VALUES (?, ?) ON CONFLICT DO NOTHING");
             PreparedStatement d = c.prepareStatement("DELETE FROM " + arrivals + " WHERE connector = ? AND barrier = ?")) {
            s.setString(1, connector);
            s.setString(2, barrier);
            s.execute();
            d.setString(1, connector);
            d.setString(2, barrier);
            d.execute();
        }
    }
}
