package io.sluice.sink.core.pgstate;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Set;

import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.barrier.BarrierStore;
import org.apache.kafka.common.TopicPartition;

/**
 * A barrier store in PostgreSQL: the {@link BarrierTables} of a sink's own database (the
 * PostgreSQL sink's target, the webhook sink's state database), on a connection of its own. A
 * sink that keeps Kafka offsets there moves them along when a partition arrives (the
 * {@link Arrival} hook), so the task that gets the partition next starts at the barrier. A
 * release that belongs in the transaction of the event's own work is written with
 * {@link #release(Connection, String)}.
 */
public final class PostgresBarrierStore implements BarrierStore {

    /** What else a partition's arrival at a barrier writes, in the same statement batch. */
    @FunctionalInterface
    public interface Arrival {
        void arrived(Connection c, TopicPartition partition, long offset) throws SQLException;
    }

    private final PgEndpoint endpoint;
    private final BarrierTables tables;
    private final Arrival arrival;
    private Connection connection;
    private boolean ensured;

    /**
     * @param arrival what else an arrival writes (the sink's Kafka offsets moved to the barrier); null for nothing
     */
    public PostgresBarrierStore(PgEndpoint endpoint, BarrierTables tables, Arrival arrival) {
        this.endpoint = endpoint;
        this.tables = tables;
        this.arrival = arrival;
    }

    @Override
    public void arrive(String barrier, TopicPartition partition, long offset) {
        query(c -> {
            tables.arrive(c, barrier, partition);
            if (arrival != null) {
                arrival.arrived(c, partition, offset);
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
        PgConnect.closeQuietly(connection);
        connection = null;
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
