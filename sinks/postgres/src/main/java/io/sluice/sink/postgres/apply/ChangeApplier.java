package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Consumer;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies streamed changes to the target, many source transactions in one target transaction:
 * truncates first, then each table's coalesced changes ({@link ChangeTable}), then the newest
 * source position of each source into the position table, and commit. So the position on the
 * target always says exactly which changes are in, and a change at or below it is skipped
 * ({@link #isApplied}) when it comes again after a restart.
 */
public final class ChangeApplier implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeApplier.class);

    private final PgEndpoint endpoint;
    private final Consumer<Connection> setUp;
    private final AppliedPositions positions;
    private final Map<String, ChangeTable> tables = new LinkedHashMap<>();
    private final Set<String> truncated = new LinkedHashSet<>();
    private final Map<String, SourcePosition> pendingPositions = new HashMap<>();
    private final Map<String, Long> pendingChanges = new HashMap<>();
    private final Map<String, SourcePosition> appliedPositions = new HashMap<>();
    private final Set<String> createdStages = new HashSet<>();
    private final long retryTimeoutMillis;
    private Connection connection;
    private long pendingSince;
    private long rowsApplied;
    private long transactions;

    /**
     * @param setUp              session settings for the connection (replica role); must not throw for a setting merely refused
     * @param retryTimeoutMillis how long to keep trying while the target cannot be reached
     */
    public ChangeApplier(PgEndpoint endpoint, AppliedPositions positions, Consumer<Connection> setUp, long retryTimeoutMillis) {
        this.endpoint = endpoint;
        this.positions = positions;
        this.setUp = setUp;
        this.retryTimeoutMillis = retryTimeoutMillis;
    }

    /** The pending changes of a target table; null when none are pending. */
    public ChangeTable table(String target) {
        return tables.get(target);
    }

    /** Starts gathering the changes of a target table, after whatever is pending for it was applied. */
    public void open(ChangeTable table) {
        ChangeTable old = tables.get(table.target());
        if (old != null && !old.isEmpty()) {
            throw new IllegalStateException("Changes of " + table.target() + " are pending; apply them first");
        }
        tables.put(table.target(), table);
    }

    /** Marks a target table to be emptied before the changes that follow; pending ones are dropped. */
    public void truncate(String target, String[] qualified) {
        ChangeTable table = tables.get(target);
        if (table != null) {
            table.truncate();
        }
        truncated.add(Identifiers.quote(qualified[0], qualified[1]));
        touched();
    }

    /** Whether the change at {@code position} of {@code source} is already on the target. */
    public boolean isApplied(String source, SourcePosition position) {
        SourcePosition applied = appliedPositions.computeIfAbsent(source, this::readPosition);
        return applied != NONE && position.compareTo(applied) <= 0;
    }

    /** Records that a change was taken, so the position written with it moves on. */
    public void taken(String source, SourcePosition position) {
        if (position != null) {
            pendingPositions.merge(source, position, (a, b) -> a.compareTo(b) >= 0 ? a : b);
            pendingChanges.merge(source, 1L, Long::sum);
        }
        touched();
    }

    private void touched() {
        if (pendingSince == 0) {
            pendingSince = System.nanoTime();
        }
    }

    /** Whether anything is waiting to be applied. */
    public boolean hasPending() {
        return pendingSince != 0;
    }

    /** How long the oldest pending change has waited, in milliseconds; 0 when none. */
    public long pendingMillis() {
        return pendingSince == 0 ? 0 : (System.nanoTime() - pendingSince) / 1_000_000;
    }

    /** Approximate memory the pending changes hold. */
    public long pendingBytes() {
        long bytes = 0;
        for (ChangeTable t : tables.values()) {
            bytes += t.bytes();
        }
        return bytes;
    }

    /** Rows (coalesced changes) written so far. */
    public long rowsApplied() {
        return rowsApplied;
    }

    /**
     * Applies everything pending in one transaction; on failure nothing of it is applied and the
     * changes stay pending. While the target cannot be reached it tries again, with backoff, for
     * up to the retry timeout.
     */
    public void apply() {
        if (!hasPending()) {
            return;
        }
        long started = System.nanoTime();
        long changes = 0;
        for (ChangeTable t : tables.values()) {
            changes += t.changes();
        }
        retrying("Applying " + changes + " changes", c -> {
            c.setAutoCommit(false);
            if (!truncated.isEmpty()) {
                StringJoiner list = new StringJoiner(", ");
                truncated.forEach(list::add);
                try (Statement s = c.createStatement()) {
                    s.execute("TRUNCATE ONLY " + list);
                }
            }
            for (ChangeTable t : tables.values()) {
                t.apply(c, createdStages);
            }
            if (!pendingPositions.isEmpty()) {
                positions.write(c, pendingPositions, pendingChanges);
            }
            c.commit();
            c.setAutoCommit(true);
        });
        for (ChangeTable t : tables.values()) {
            t.clear();
        }
        appliedPositions.putAll(pendingPositions);
        pendingPositions.clear();
        pendingChanges.clear();
        truncated.clear();
        rowsApplied += changes;
        transactions++;
        pendingSince = 0;
        LOG.debug("Applied {} changes in {} ms", changes, (System.nanoTime() - started) / 1_000_000);
    }

    /** Work on the target inside the transaction that also writes a source position. */
    @FunctionalInterface
    public interface TargetWork {
        void run(Connection c) throws SQLException;
    }

    /**
     * Applies what is pending, then runs {@code work} (a schema change) in a transaction of its
     * own that also writes {@code position}, so after a restart it is skipped like a change.
     * Staging tables and the tables' pending state are dropped: the tables' shapes may have
     * changed.
     *
     * @param position the schema change's position; null when it has none
     */
    public void applyAlone(String source, SourcePosition position, String what, TargetWork work) {
        apply();
        retrying("Applying " + what, c -> {
            c.setAutoCommit(false);
            work.run(c);
            if (position != null) {
                positions.write(c, Map.of(source, position), Map.of(source, 1L));
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("DISCARD TEMP");
            }
        });
        createdStages.clear();
        tables.clear();
        if (position != null) {
            appliedPositions.put(source, position);
        }
    }

    /**
     * Runs {@code work} on the connection. A failure rolls back (the connection is dropped);
     * one that says the target cannot be reached (connection lost, server shutting down or
     * starting, refusing connections) is tried again after a pause that doubles from 100 ms up
     * to 10 s, until the retry timeout has passed.
     */
    private void retrying(String what, TargetWork work) {
        long deadline = System.nanoTime() + retryTimeoutMillis * 1_000_000L;
        long pause = 100;
        while (true) {
            try {
                work.run(connection());
                return;
            } catch (SQLException | RuntimeException e) {
                discardConnection();
                String reason = e instanceof SQLException sql ? PgConnect.explain(sql, endpoint).getMessage() : e.getMessage();
                boolean unreachable = PgConnect.unreachable(e);
                if (!unreachable || System.nanoTime() + pause * 1_000_000L > deadline) {
                    throw new ConnectException(what + " to " + endpoint.display() + " failed: " + reason
                            + (unreachable ? " (the target was unreachable for longer than " + io.sluice.sink.postgres.PostgresSinkConfig.APPLY_RETRY_TIMEOUT + ")"
                            : ""), e);
                }
                LOG.warn("{} to {} failed, the target seems unreachable ({}); trying again in {} ms", what, endpoint.display(), reason, pause);
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new ConnectException(what + " was interrupted while the target was unreachable", e);
                }
                pause = Math.min(pause * 2, 10_000);
            }
        }
    }

    private static final SourcePosition NONE = new SourcePosition(0, Long.MIN_VALUE);

    private SourcePosition readPosition(String source) {
        SourcePosition[] read = new SourcePosition[1];
        retrying("Reading the applied position from " + positions.name(), c -> read[0] = positions.read(c, source));
        if (read[0] != null) {
            LOG.info("Changes of {} up to {} are on the target already; older ones are skipped", source, read[0]);
        }
        return read[0] == null ? NONE : read[0];
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
            createdStages.clear();
            connection = c;
        }
        return connection;
    }

    private void discardConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("Closing the apply connection", e);
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        discardConnection();
    }
}
