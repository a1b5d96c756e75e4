package io.sluice.sink.postgres.copy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.postgres.connections.ConnectionPool;
import org.apache.kafka.connect.errors.ConnectException;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs binary COPYs into the target on a few connections at once. Each chunk is one COPY in
 * its own transaction, durable when it returns. At most {@code parallelism} chunks are in
 * flight; submitting more waits, which keeps memory bounded.
 */
public final class CopyLoader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CopyLoader.class);
    private static final byte[] HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0};
    private static final byte[] TRAILER = {(byte) 0xFF, (byte) 0xFF};

    private final PgEndpoint endpoint;
    private final boolean replicaRole;
    private final ExecutorService executor;
    private final Semaphore slots;
    private final ConnectionPool connections;
    private final List<InFlight> inFlight = new ArrayList<>();
    private final AtomicBoolean replicaRoleRefused = new AtomicBoolean();
    private final AtomicLong rowsLoaded = new AtomicLong();
    private final AtomicLong bytesLoaded = new AtomicLong();

    public CopyLoader(PgEndpoint endpoint, int parallelism, boolean replicaRole) {
        this.endpoint = endpoint;
        this.replicaRole = replicaRole;
        this.executor = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "sluice-copy");
            t.setDaemon(true);
            return t;
        });
        this.slots = new Semaphore(parallelism);
        this.connections = new ConnectionPool(endpoint, "sluice load", this::setUp);
    }

    private record InFlight(String target, CompletableFuture<Void> copy) {
    }

    /** Starts a COPY of the chunk; waits first while all connections are busy. */
    public synchronized void submit(TableBatch.Chunk chunk) throws InterruptedException {
        slots.acquire();
        try {
            inFlight.removeIf(f -> f.copy().isDone() && !f.copy().isCompletedExceptionally());
            inFlight.add(new InFlight(chunk.target(), CompletableFuture.runAsync(() -> {
                try {
                    copy(chunk);
                } finally {
                    slots.release();
                }
            }, executor)));
        } catch (RuntimeException e) {
            slots.release();
            throw e;
        }
    }

    /**
     * Completes when every COPY into the target submitted so far is committed; fails with the
     * first failed one.
     *
     * @param target as {@link TableBatch#target()} names it
     */
    public synchronized CompletableFuture<Void> loaded(String target) {
        return CompletableFuture.allOf(inFlight.stream().filter(f -> f.target().equals(target)).map(InFlight::copy)
                .toArray(CompletableFuture[]::new));
    }

    /** Runs one statement on a load connection (after {@link #awaitAll()}, so it sees every row sent before it). */
    public void execute(String sql, String what) {
        Connection connection = connections.borrow();
        boolean healthy = false;
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
            healthy = true;
        } catch (SQLException e) {
            throw new ConnectException(what + " on " + endpoint.display() + " failed: " + PgConnect.explain(e, endpoint).getMessage(), e);
        } finally {
            connections.giveBack(connection, healthy);
        }
    }

    /** Waits for every submitted COPY; the first failure is thrown, naming its table. */
    public synchronized void awaitAll() throws InterruptedException {
        ConnectException failure = null;
        for (InFlight f : inFlight) {
            try {
                f.copy().get();
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof ConnectException c ? c : new ConnectException(e.getCause().getMessage(), e.getCause());
                }
            }
        }
        inFlight.clear();
        if (failure != null) {
            throw failure;
        }
    }

    private void copy(TableBatch.Chunk chunk) {
        Connection connection = connections.borrow();
        boolean healthy = false;
        try {
            if (chunk.upsert() != null) {
                connection.setAutoCommit(false);
                try (Statement s = connection.createStatement()) {
                    s.execute(chunk.upsert().stageSql());
                }
            }
            CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(chunk.copySql());
            try {
                copy.writeToCopy(HEADER, 0, HEADER.length);
                copy.writeToCopy(chunk.tuples().array(), 0, chunk.tuples().size());
                copy.writeToCopy(TRAILER, 0, TRAILER.length);
                copy.endCopy();
            } finally {
                if (copy.isActive()) {
                    copy.cancelCopy();
                }
            }
            if (chunk.upsert() != null) {
                try (Statement s = connection.createStatement()) {
                    s.execute(chunk.upsert().insertSql());
                }
                connection.commit();
                connection.setAutoCommit(true);
            }
            rowsLoaded.addAndGet(chunk.rows());
            bytesLoaded.addAndGet(chunk.tuples().size());
            healthy = true;
        } catch (SQLException e) {
            throw new ConnectException("COPY of " + chunk.rows() + " rows into " + chunk.target() + " on " + endpoint.display()
                    + " failed: " + PgConnect.explain(e, endpoint).getMessage(), e);
        } finally {
            connections.giveBack(connection, healthy);
        }
    }

    private void setUp(Connection c) {
        if (replicaRole && !replicaRoleRefused.get()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET session_replication_role = replica");
            } catch (SQLException e) {
                if (replicaRoleRefused.compareAndSet(false, true)) {
                    LOG.warn("User {} may not set session_replication_role ({}); loading with triggers and foreign-key checks "
                            + "active. Grant it (GRANT SET ON PARAMETER session_replication_role TO {}) or load as a superuser "
                            + "for a faster load that does not depend on table order.", endpoint.user(), e.getMessage(), endpoint.user());
                }
            }
        }
    }

    public long rowsLoaded() {
        return rowsLoaded.get();
    }

    public long bytesLoaded() {
        return bytesLoaded.get();
    }

    @Override
    public void close() {
        executor.shutdownNow();
        connections.close();
    }
}
