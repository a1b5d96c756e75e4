package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.schemas.retry.RetryPolicy;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.postgres.state.KafkaOffsets;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The apply thread's connection to the target, set up for applying (session settings, Sluice's
 * own tables there), and the work done on it: a failure drops the connection, and one that says
 * the target cannot be reached is tried again on a new one. Work that may have committed before
 * its connection died (the reply to COMMIT lost) is first looked for on the target, once the
 * lost connection's backend has gone: applied twice, a keyless table's rows would be doubled.
 * Used on the apply thread only.
 */
final class ApplySession implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ApplySession.class);

    private final PgEndpoint endpoint;
    private final Consumer<Connection> setUp;
    private final AppliedPositions positions;
    private final KafkaOffsets offsets;
    private final RetryPolicy retry;
    private final long retryTimeoutMillis;
    private final String retryTimeoutKey;
    /** Staging tables created on this connection; a new connection has none. */
    private final Set<String> createdStages = new HashSet<>();
    private Connection connection;
    /** The server's backend of {@link #connection}; null when the server did not say. */
    private TargetBackend backend;

    /**
     * @param setUp              session settings (replica role); must not throw for a setting merely refused
     * @param offsets            Sluice's Kafka offset tables, created with the position table; null when not kept
     * @param retryTimeoutMillis how long to keep trying while the target cannot be reached
     * @param retryTimeoutKey    the setting that says so, named when the time is up
     */
    ApplySession(PgEndpoint endpoint, Consumer<Connection> setUp, AppliedPositions positions, KafkaOffsets offsets,
                 long retryTimeoutMillis, String retryTimeoutKey) {
        this.endpoint = endpoint;
        this.setUp = setUp;
        this.positions = positions;
        this.offsets = offsets;
        this.retry = RetryPolicy.reconnecting(retryTimeoutMillis);
        this.retryTimeoutMillis = retryTimeoutMillis;
        this.retryTimeoutKey = retryTimeoutKey;
    }

    /** Staging tables already created on the connection; the caller adds those it creates. */
    Set<String> createdStages() {
        return createdStages;
    }

    /**
     * Runs {@code work} on the connection. A failure rolls back (the connection is dropped);
     * one that says the target cannot be reached (connection lost, server shutting down or
     * starting, refusing connections) is tried again as {@link RetryPolicy#reconnecting} says
     * (pauses growing from 100 ms to 10 s, jittered), until the retry timeout has passed.
     *
     * @param what what the work does, for messages ("Applying 20 changes")
     */
    void run(String what, ChangeWriter.TargetWork work) {
        run(what, work, c -> false);
    }

    /** Tells, on a new connection, whether work tried on a lost one is on the target after all. */
    @FunctionalInterface
    interface Committed {
        boolean isOn(Connection c) throws SQLException;
    }

    /**
     * As {@link #run(String, ChangeWriter.TargetWork)}, for work that commits: when a try was
     * sent and its connection lost, the next try first waits for that connection's backend to end
     * (see {@link TargetBackend}) and asks {@code committed}; if the work is on the target, it is
     * not done again.
     */
    void run(String what, ChangeWriter.TargetWork work, Committed committed) {
        TargetBackend[] sentOn = {null};
        boolean[] sent = {false};
        try {
            retry.run(() -> {
                Connection c = connection();
                if (sent[0]) {
                    if (sentOn[0] != null) {
                        sentOn[0].awaitGone(c, retryTimeoutMillis, what);
                    }
                    if (committed.isOn(c)) {
                        LOG.info("{} to {}: the target committed it before the connection was lost; not doing it again", what,
                                endpoint.display());
                        return null;
                    }
                }
                sent[0] = true;
                sentOn[0] = backend;
                work.run(c);
                return null;
            }, new RetryPolicy.Failures() {
                @Override
                public boolean isTransient(Exception failure) {
                    close();
                    return PgConnect.unreachable(failure);
                }

                @Override
                public void retrying(Exception failure, long pauseMillis) {
                    LOG.warn("{} to {} failed, the target seems unreachable ({}); trying again in {} ms", what, endpoint.display(),
                            reason(failure), pauseMillis);
                }

                @Override
                public RuntimeException giveUp(Exception failure, boolean timedOut) {
                    return new ConnectException(what + " to " + endpoint.display() + " failed: " + reason(failure)
                            + (timedOut ? " (the target was unreachable for longer than " + retryTimeoutKey + ")" : ""), failure);
                }
            });
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new ConnectException(what + " was interrupted while the target was unreachable", interrupted);
        }
    }

    private String reason(Exception failure) {
        return failure instanceof SQLException sql ? PgConnect.explain(sql, endpoint).getMessage() : failure.getMessage();
    }

    private Connection connection() {
        if (connection == null) {
            Connection c = PgConnect.open(endpoint, "sluice apply");
            setUp.accept(c);
            try (Statement s = c.createStatement()) {
                // A batch's staged rows are sorted into source order; the default work_mem would spill them to disk.
                s.execute("SET work_mem = '64MB'");
            } catch (SQLException e) {
                LOG.debug("Raising work_mem for the apply session", e);
            }
            try {
                positions.ensure(c);
                if (offsets != null) {
                    offsets.ensure(c);
                }
            } catch (SQLException e) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // already failing
                }
                throw new ConnectException("Creating the position table " + positions.name() + " on " + endpoint.display()
                        + " failed: " + PgConnect.explain(e, endpoint).getMessage() + ". The sink's user needs CREATE on the database, "
                        + "or create the table beforehand", e);
            }
            try {
                backend = TargetBackend.of(c);
            } catch (SQLException e) {
                LOG.debug("Reading the apply connection's backend", e);
                backend = null;
            }
            createdStages.clear();
            connection = c;
        }
        return connection;
    }

    /** Drops the connection; the next work opens a new one. */
    @Override
    public void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("Closing the apply connection", e);
            }
            connection = null;
        }
    }
}
