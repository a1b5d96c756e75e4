package io.sluice.connector.postgres.health;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work the source does on the side, every interval, on a thread and a connection of its own
 * (reading the slot's health, writing heartbeats): the connection is opened when first needed
 * and again after a failure, so a source that restarts is picked up at the next interval.
 */
abstract class OwnConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OwnConnection.class);

    private final String threadName;
    private final Supplier<Connection> connections;
    private ScheduledExecutorService timer;
    private Connection connection;

    OwnConnection(String threadName, Supplier<Connection> connections) {
        this.threadName = threadName;
        this.connections = connections;
    }

    /** The work of one interval. */
    abstract void once();

    /** Runs {@link #once} every {@code intervalMillis}, the first time after {@code firstAfterMillis}. */
    final void every(long firstAfterMillis, long intervalMillis) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(() -> {
            try {
                once();
            } catch (RuntimeException e) {
                LOG.debug("{} failed; tried again in the next interval", threadName, e);
                closeConnection();
            }
        }, firstAfterMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** The connection, opened now if there is none. */
    final Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = connections.get();
        }
        return connection;
    }

    /** Closes the connection after a failure: the next interval opens another. */
    final void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("Closing the connection of {}", threadName, e);
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeConnection();
    }
}
