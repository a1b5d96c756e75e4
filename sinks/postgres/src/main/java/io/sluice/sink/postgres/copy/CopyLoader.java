package io.sluice.sink.postgres.copy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

import io.sluice.schemas.copy.CopyFraming;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.ByteBudget;
import io.sluice.sink.core.batch.ThroughputMeter;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.postgres.state.KafkaOffsets;
import io.sluice.sink.postgres.connections.ConnectionPool;
import io.sluice.sink.postgres.connections.ReplicaRole;
import org.apache.kafka.connect.errors.ConnectException;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * Runs binary COPYs into the target on a few connections at once. Each chunk is one COPY in
 * its own transaction, durable when it returns. At most {@code parallelism} chunks are in
 * flight, holding at most {@code bufferBytes} between them (one chunk always goes); submitting
 * more waits, which keeps memory bounded. Each chunk written whole is reported to the batch
 * size it was filled to, with what all connections sent meanwhile.
 *
 * <p>A table may instead be loaded <em>frozen</em> ({@link #freeze}): all its chunks go, one
 * after another, into a single transaction that first empties the table, so PostgreSQL writes
 * the rows already frozen and visible to all. Nothing needs to set their hint bits or visit them
 * again for the visibility map or against transaction ID wraparound; index builds and foreign-key
 * checks read them as they are. The rows are durable only once {@link #commitFrozen} completes.
 *
 * <p>Past 400 lines on purpose: frozen and ordinary loads share one lock, the chunks in flight,
 * the connection slots and the byte budget, and {@link #submit} chooses between them per chunk
 * (committing a frozen load first when staged rows arrive); apart, they would need that lock
 * across two classes.
 */
public final class CopyLoader implements AutoCloseable {

    private static final byte[] HEADER = CopyFraming.header();
    private static final byte[] TRAILER = CopyFraming.trailer();
    /** Bytes handed to the driver at once, so the meter moves while a large chunk is on its way. */
    private static final int SLICE = 1 << 20;

    private final PgEndpoint endpoint;
    private final ExecutorService executor;
    private final Semaphore slots;
    private final ByteBudget budget;
    private final EncodeBuffers buffers;
    private final ThroughputMeter meter = new ThroughputMeter();
    private final TunedBatchSize batchSize;
    private final ConnectionPool connections;
    private final int parallelism;
    private final List<InFlight> inFlight = new ArrayList<>();
    private final Map<String, FrozenLoad> frozen = new HashMap<>();
    private final AtomicLong rowsLoaded = new AtomicLong();
    private final AtomicLong bytesLoaded = new AtomicLong();
    /** Where each COPY records the Kafka offsets of its rows; null when the target keeps source positions. */
    private final KafkaOffsets offsets;
    private volatile boolean offsetTablesMade;

    /**
     * @param bufferBytes bytes of chunks in flight at most, across all connections
     * @param batchSize   told of each chunk written whole
     * @param offsets     the target's Kafka offset tables, written with each COPY's rows; null for none
     */
    public CopyLoader(PgEndpoint endpoint, int parallelism, boolean replicaRole, long bufferBytes, TunedBatchSize batchSize,
                      KafkaOffsets offsets) {
        this.endpoint = endpoint;
        this.offsets = offsets;
        this.budget = new ByteBudget(bufferBytes);
        this.batchSize = batchSize;
        this.executor = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "sluice-copy");
            t.setDaemon(true);
            return t;
        });
        this.slots = new Semaphore(parallelism);
        // Every connection's chunk, one being filled and one waiting for a connection.
        this.buffers = new EncodeBuffers(parallelism + 2);
        this.parallelism = parallelism;
        this.connections = new ConnectionPool(endpoint, "sluice load", new ReplicaRole(endpoint, replicaRole));
    }

    /**
     * Waits until a COPY stream is free, without taking it. The caller is the one thread that
     * submits, so the stream is still free when it submits next.
     */
    public void awaitFreeStream() throws InterruptedException {
        slots.acquire();
        slots.release();
    }

    /** Buffers for the next chunks; a chunk's own comes back once its COPY has ended. */
    public EncodeBuffers buffers() {
        return buffers;
    }

    /** Opens the load connections in the background, while the schema is being created. */
    public void openAhead() {
        connections.openAhead(parallelism, executor);
    }

    /** A COPY under way; {@code epoch} is the oldest offset epoch of its rows (Long.MAX_VALUE when it has none). */
    private record InFlight(String target, long epoch, CompletableFuture<Void> copy) {
    }

    /** A table loaded in one transaction on one connection; {@code tail} completes when its last submitted step has. */
    private static final class FrozenLoad {
        final String target;
        Connection connection;
        CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

        FrozenLoad(String target) {
            this.target = target;
        }
    }

    /**
     * Loads the target's chunks from now on frozen, in one transaction that empties the table
     * first. Only for a table that holds nothing that must be kept: one created for this load.
     *
     * @param target as {@link TableBatch#target()} names it
     */
    public synchronized void freeze(String target) {
        frozen.putIfAbsent(target, new FrozenLoad(target));
    }

    /** Whether the target's rows are going into an open frozen load. */
    public synchronized boolean isFrozen(String target) {
        return frozen.containsKey(target);
    }

    /**
     * Starts a COPY of the chunk; waits first while all connections are busy or the buffer is full.
     *
     * @param plannedBytes the batch size the chunk was filled towards
     * @param closing      why it was sent: only a full chunk measures its size
     */
    public synchronized void submit(TableBatch.Chunk chunk, long plannedBytes, TunedBatchSize.Closing closing) throws InterruptedException {
        FrozenLoad load = frozen.get(chunk.target());
        if (load != null && chunk.upsert() != null) {
            commitFrozen(chunk.target()); // staged rows cannot go in frozen; what is in so far is committed first
            load = null;
        }
        // A full batch passes its size by up to one record; counted at its size, batches of the load
        // buffer's share of a stream all fit (four 32 MB batches and a few KB went three at a time).
        long bytes = Math.min(chunk.bytes(), Math.max(1, plannedBytes));
        budget.acquire(bytes);
        try {
            slots.acquire();
        } catch (InterruptedException e) {
            budget.release(bytes);
            throw e;
        }
        Runnable release = () -> {
            buffers.give(chunk.tuples());
            slots.release();
            budget.release(bytes);
        };
        try {
            inFlight.removeIf(f -> f.copy().isDone() && !f.copy().isCompletedExceptionally());
            if (closing == TunedBatchSize.Closing.FULL) {
                batchSize.sent(plannedBytes, load == null); // a frozen load's chunks go one after another on its connection
            }
            if (load == null) {
                Measure measure = new Measure(plannedBytes, chunk.bytes(), closing);
                inFlight.add(new InFlight(chunk.target(), chunk.epoch(), CompletableFuture.runAsync(() -> {
                    try {
                        copy(chunk, measure);
                        measure.finish();
                    } finally {
                        measure.close();
                        release.run();
                    }
                }, executor)));
            } else {
                FrozenLoad frozenLoad = load;
                Measure measure = new Measure(plannedBytes, chunk.bytes(), closing);
                load.tail = load.tail.handleAsync((done, failed) -> {
                    try {
                        rethrow(failed);
                        copyFrozen(frozenLoad, chunk, measure);
                        measure.finish();
                        return null;
                    } finally {
                        measure.close();
                        release.run();
                    }
                }, executor);
                inFlight.add(new InFlight(chunk.target(), chunk.epoch(), load.tail));
            }
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
    }

    /**
     * One chunk's sample: what all connections sent from when its COPY had a connection until it
     * returned. Opening a connection costs round trips that no batch size changes, so it is left out.
     */
    private final class Measure {
        private final long plannedBytes;
        private final long ownBytes;
        private final TunedBatchSize.Closing closing;
        private ThroughputMeter.Mark mark;

        Measure(long plannedBytes, long ownBytes, TunedBatchSize.Closing closing) {
            this.plannedBytes = plannedBytes;
            this.ownBytes = ownBytes;
            this.closing = closing;
        }

        void start() {
            mark = meter.mark(plannedBytes);
        }

        void finish() {
            ThroughputMeter.Sample sample = meter.since(mark);
            mark = null;
            batchSize.record(plannedBytes, ownBytes, sample.bytes(), sample.nanos(), closing, sample.besideOtherSizes());
        }

        /** A COPY that failed is no longer on its way: batches after it are not judged as beside it. */
        void close() {
            if (mark != null) {
                meter.forget(mark);
            }
        }
    }

    /**
     * The oldest offset epoch among the rows of COPYs not yet finished, or {@code none} when all
     * are; a failed COPY is thrown.
     */
    public synchronized long oldestUnfinishedEpoch(long none) throws InterruptedException {
        if (inFlight.stream().anyMatch(f -> f.copy().isCompletedExceptionally())) {
            awaitAll();
        }
        inFlight.removeIf(f -> f.copy().isDone());
        return inFlight.stream().mapToLong(InFlight::epoch).min().orElse(none);
    }

    /**
     * Commits the target's frozen load after its submitted chunks; the returned future completes
     * when the rows are durable. Completed at once when the target has no open frozen load.
     */
    public synchronized CompletableFuture<Void> commitFrozen(String target) {
        FrozenLoad load = frozen.remove(target);
        if (load == null) {
            return CompletableFuture.completedFuture(null);
        }
        load.tail = load.tail.handleAsync((done, failed) -> {
            finishFrozen(load, failed == null);
            rethrow(failed);
            return null;
        }, executor);
        inFlight.add(new InFlight(target, Long.MAX_VALUE, load.tail));
        return load.tail;
    }

    /** Commits every open frozen load; see {@link #commitFrozen}. */
    public synchronized void commitAllFrozen() {
        for (String target : List.copyOf(frozen.keySet())) {
            commitFrozen(target);
        }
    }

    private static void rethrow(Throwable failed) {
        if (failed == null) {
            return;
        }
        if (failed instanceof CompletionException c && c.getCause() instanceof RuntimeException r) {
            throw r;
        }
        throw failed instanceof RuntimeException r ? r : new CompletionException(failed);
    }

    private void copyFrozen(FrozenLoad load, TableBatch.Chunk chunk, Measure measure) {
        try {
            if (load.connection == null) {
                load.connection = connections.borrow();
                load.connection.setAutoCommit(false);
                try (Statement s = load.connection.createStatement()) {
                    s.execute("TRUNCATE ONLY " + chunk.table());
                }
            }
            measure.start();
            write(load.connection, chunk, chunk.copySql(true));
            if (offsets != null && !chunk.runs().isEmpty()) {
                if (!offsetTablesMade) {
                    connections.use(offsets::ensure); // not in the load's transaction, which would hold the creation lock to its end
                    offsetTablesMade = true;
                }
                offsets.writeRuns(load.connection, chunk.runs().byPartition());
            }
        } catch (SQLException e) {
            throw new ConnectException("COPY of " + chunk.rows() + " rows into " + chunk.target() + " on " + endpoint.display()
                    + " failed: " + PgConnect.explain(e, endpoint).getMessage(), e);
        }
    }

    private void finishFrozen(FrozenLoad load, boolean commit) {
        Connection c = load.connection;
        if (c == null) {
            return;
        }
        boolean healthy = false;
        try {
            if (commit) {
                c.commit();
                c.setAutoCommit(true);
                healthy = true;
            }
        } catch (SQLException e) {
            throw new ConnectException("Committing the rows of " + load.target + " on " + endpoint.display() + " failed: "
                    + PgConnect.explain(e, endpoint).getMessage(), e);
        } finally {
            // A load that failed is rolled back by closing its connection.
            connections.giveBack(c, healthy);
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
        try {
            connections.use(c -> {
                try (Statement s = c.createStatement()) {
                    s.execute(sql);
                }
            });
        } catch (SQLException e) {
            throw new ConnectException(what + " on " + endpoint.display() + " failed: " + PgConnect.explain(e, endpoint).getMessage(), e);
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

    private void copy(TableBatch.Chunk chunk, Measure measure) {
        try {
            connections.use(connection -> {
                boolean withRuns = offsets != null && !chunk.runs().isEmpty();
                if (withRuns && !offsetTablesMade) {
                    offsets.ensure(connection);
                    offsetTablesMade = true;
                }
                measure.start();
                boolean transaction = chunk.upsert() != null || withRuns;
                if (transaction) {
                    connection.setAutoCommit(false);
                }
                if (chunk.upsert() != null) {
                    try (Statement s = connection.createStatement()) {
                        s.execute(chunk.upsert().stageSql());
                    }
                }
                write(connection, chunk, chunk.copySql(false));
                if (chunk.upsert() != null) {
                    try (Statement s = connection.createStatement()) {
                        s.execute(chunk.upsert().insertSql());
                    }
                }
                if (withRuns) {
                    // In the rows' transaction: a task that gets the partition next skips exactly what is in.
                    offsets.writeRuns(connection, chunk.runs().byPartition());
                }
                if (transaction) {
                    connection.commit();
                    connection.setAutoCommit(true);
                }
            });
        } catch (SQLException e) {
            throw new ConnectException("COPY of " + chunk.rows() + " rows into " + chunk.target() + " on " + endpoint.display()
                    + " failed: " + PgConnect.explain(e, endpoint).getMessage(), e);
        }
    }

    private void write(Connection connection, TableBatch.Chunk chunk, String sql) throws SQLException {
        CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn(sql);
        try {
            copy.writeToCopy(HEADER, 0, HEADER.length);
            for (byte[] part : chunk.raw()) {
                send(copy, part, part.length);
            }
            send(copy, chunk.tuples().array(), chunk.tuples().size());
            copy.writeToCopy(TRAILER, 0, TRAILER.length);
            copy.endCopy();
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
        rowsLoaded.addAndGet(chunk.rows());
        bytesLoaded.addAndGet(chunk.bytes());
    }

    private void send(CopyIn copy, byte[] bytes, int length) throws SQLException {
        for (int at = 0; at < length; at += SLICE) {
            int n = Math.min(SLICE, length - at);
            copy.writeToCopy(bytes, at, n);
            meter.sent(n);
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
        synchronized (this) {
            // Open frozen loads are rolled back: their rows were never confirmed.
            for (FrozenLoad load : frozen.values()) {
                if (load.connection != null) {
                    connections.giveBack(load.connection, false);
                }
            }
            frozen.clear();
        }
        connections.close();
    }
}
