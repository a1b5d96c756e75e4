package io.sluice.sink.postgres.state;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Set;

import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.barrier.BarrierStore;
import org.apache.kafka.common.TopicPartition;

/**
 * The PostgreSQL sink's barrier store: the {@link BarrierTables} on the target, on a connection
 * of its own. A partition's arrival also moves its stored Kafka offset to the barrier (where the
 * target keeps offsets), so the task that gets the partition next starts there. A release that
 * belongs in the transaction of the event's own work is written with {@link #release(Connection, String)}.
 */
public final class TargetBarrierStore implements BarrierStore {

    private final PgEndpoint endpoint;
    private final BarrierTables tables;
    private final KafkaOffsets offsets;
    private Connection connection;
    private boolean ensured;

    /**
     * @param offsets the target's Kafka offsets, moved to a barrier when a partition arrives there; null when it keeps none
     */
    public TargetBarrierStore(PgEndpoint endpoint, BarrierTables tables, KafkaOffsets offsets) {
        this.endpoint = endpoint;
        this.tables = tables;
        this.offsets = offsets;
    }

    @Override
    public void arrive(String barrier, TopicPartition partition, long offset) {
        query(c -> {
            tables.arrive(c, barrier, partition);
            if (offsets != null) {
                offsets.ensure(c);
                offsets.settle(c, partition, offset);
            }
            return null;
        });
    }

    @Override
    public Set<TopicPartition> arrived(String barrier, Collection<String> topics) {
        return query(c -> tables.arrived(c, barrier, topics));
    }

    @Override
    public Set<String> released(Collection<String> barriers) {
        return query(c -> tables.released(c, barriers));
    }

    @Override
    public void release(String barrier) {
        query(c -> {
            tables.release(c, barrier);
            return null;
        });
    }

    @Override
    public void releaseElsewhere(String barrier) {
        try (Connection c = PgConnect.open(endpoint, "sluice barriers")) {
            tables.release(c, barrier);
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    /** Writes the barrier's release inside the caller's transaction. */
    public void release(Connection c, String barrier) throws SQLException {
        tables.release(c, barrier);
    }

    @Override
    public void reset() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // it is being dropped
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        reset();
    }

    @FunctionalInterface
    private interface Query<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T query(Query<T> query) {
        try {
            return query.run(connection());
        } catch (SQLException e) {
            reset();
            throw PgConnect.explain(e, endpoint);
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = PgConnect.open(endpoint, "sluice barriers");
            ensured = false;
        }
        if (!ensured) {
            tables.ensure(connection);
            ensured = true;
        }
        return connection;
    }
}
