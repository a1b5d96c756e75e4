package io.sluice.sink.postgres.connections;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections to the target kept open between statements. A connection that failed is closed
 * instead of being given back, so a broken session is never reused.
 */
public final class ConnectionPool implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionPool.class);

    private final PgEndpoint endpoint;
    private final String applicationName;
    private final Consumer<Connection> setup;
    private final LinkedBlockingQueue<Connection> idle = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    /**
     * @param setup prepares each new connection (session settings); it must not throw for a
     *              setting that is merely refused
     */
    public ConnectionPool(PgEndpoint endpoint, String applicationName, Consumer<Connection> setup) {
        this.endpoint = endpoint;
        this.applicationName = applicationName;
        this.setup = setup;
    }

    public PgEndpoint endpoint() {
        return endpoint;
    }

    /** An idle connection, or a new one. */
    public Connection borrow() {
        Connection c = idle.poll();
        if (c != null) {
            return c;
        }
        c = PgConnect.open(endpoint, applicationName);
        setup.accept(c);
        return c;
    }

    /** Work done on one connection. */
    @FunctionalInterface
    public interface Work {
        void run(Connection connection) throws SQLException;
    }

    /** Runs the work on a pooled connection, given back after it, or closed when the work failed. */
    public void use(Work work) throws SQLException {
        Connection c = borrow();
        boolean healthy = false;
        try {
            work.run(c);
            healthy = true;
        } finally {
            giveBack(c, healthy);
        }
    }

    /**
     * Opens connections on the executor until this many are idle, so that the first statements
     * find them ready: on a distant server opening one costs several round trips. A failure is
     * left for {@link #borrow()} to report when the connection is needed.
     */
    public void openAhead(int count, Executor executor) {
        for (int i = idle.size(); i < count; i++) {
            executor.execute(() -> {
                try {
                    giveBack(borrow(), true);
                } catch (RuntimeException e) {
                    LOG.debug("Opening a connection ahead to {} failed", endpoint.display(), e);
                }
            });
        }
    }

    /** Gives a connection back; one that failed, or that comes back after {@link #close()}, is closed. */
    public void giveBack(Connection c, boolean healthy) {
        if (healthy && !closed) {
            idle.add(c);
            if (closed && idle.remove(c)) {
                close(c);
            }
        } else {
            close(c);
        }
    }

    private static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            LOG.debug("Closing a target connection", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        Connection c;
        while ((c = idle.poll()) != null) {
            close(c);
        }
    }
}
