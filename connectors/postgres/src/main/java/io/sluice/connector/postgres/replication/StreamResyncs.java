package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Supplier;

import io.sluice.connector.postgres.metrics.SourceMeters;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.connector.postgres.resync.ChangedKeys;
import io.sluice.connector.postgres.resync.ChunkRead;
import io.sluice.connector.postgres.resync.KeyValues;
import io.sluice.connector.postgres.resync.RecentCommits;
import io.sluice.connector.postgres.resync.SelectionLedger;
import io.sluice.connector.postgres.resync.SignalTable;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.postgres.PgConnect;
import org.apache.kafka.connect.data.Struct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tables re-synced while the stream goes on, as the signal table asks: one at a time, chunk by
 * chunk, one chunk read and waiting for its watermark at a time. The stream tells it every change
 * of the table being re-synced ({@link #changed}); at the chunk's watermark ({@link #reached}) it
 * gives the rows the stream does not carry newer changes of, with the chunk's key range, for
 * {@link ChangeRecords} to hand out in the watermark's transaction, with its positions. Progress
 * is written back to the signal table once those records are durable, so a restarted pipeline
 * goes on from the last chunk it knows the targets have (a chunk read again is written again,
 * which the targets take as the upserts they are). Not thread-safe except {@link #durableThrough}:
 * the stream reader owns it.
 */
final class StreamResyncs implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamResyncs.class);
    /** How often the signal table is looked at while no re-sync runs. */
    private static final long LOOK_EVERY_NANOS = 1_000_000_000L;

    /**
     * What the re-sync of one chunk hands out at its watermark.
     *
     * @param subscription the webhook subscription the rows are for alone (a backfill); null for every target
     * @param ranged       whether the chunk covers its key range from {@code from} to {@code to}, so that the targets drop
     *                     the rows in it it does not {@code keep}; false for a repair's chunk of given keys
     * @param deletes      rows (their key columns set) to delete: a repair's keys the source does not have
     */
    record Chunk(StreamTable table, List<Struct> rows, List<String[]> texts, Struct from, Struct to, List<Struct> keep,
                 List<String> keyOrder, String subscription, boolean ranged, List<Struct> deletes) {
    }

    /** A chunk handed out: durable once the stored offset reaches its watermark's commit. */
    private record Handed(long requestId, String target, long commitLsn, String[] progressKey, long rows, long chunks, boolean done,
                          long startedNanos) {
    }

    private final SignalTable signals;
    private final String pipeline;
    private final int chunkRows;
    private final TableSelector selector;
    private final Supplier<Connection> writable;
    private final boolean viaRoot;
    private final BiPredicate<String, String> selects;
    private Connection connection;
    private ResyncJob job;
    private ChunkRead.Chunk inFlight;
    private final ChangedKeys changed = new ChangedKeys();
    /** What the stream decoded before the current part was watched, for what its first chunks' snapshots may not have seen. */
    private final RecentCommits recent = new RecentCommits();
    private final ArrayDeque<Handed> handed = new ArrayDeque<>();
    /** The newest chunk durable downstream (set by the offset commit's thread). */
    private volatile Handed durable;
    private Handed persisted;
    private long nextLook;
    /** The ledger of the tables the stream sends, kept up as its DDL selects more; null without a signal table. */
    private final SelectionLedger.Updates ledger;
    /** Times in a row the current chunk could not be read for a table whose shape changed. */
    private int rereads;
    /** Undefined column, undefined table: what a chunk read in a shape DDL just changed fails with. */
    private static final java.util.Set<String> SHAPE_CHANGED = java.util.Set.of("42703", "42P01");

    /**
     * @param signals  the signal table; null when requests are not taken
     * @param writable connections to the server that takes writes (the chunk's watermark is a write)
     * @param viaRoot  whether partitions' changes come as their root's
     * @param selects  whether the stream sends changes of a table of this name (schema, table)
     */
    StreamResyncs(SignalTable signals, String pipeline, int chunkRows, TableSelector selector, Supplier<Connection> writable,
                  boolean viaRoot, BiPredicate<String, String> selects, Supplier<java.util.Set<String>> streamed) {
        this.signals = signals;
        this.pipeline = pipeline;
        this.chunkRows = chunkRows;
        this.selector = selector;
        this.writable = writable;
        this.viaRoot = viaRoot;
        this.selects = selects;
        this.ledger = signals == null ? null : new SelectionLedger.Updates(new SelectionLedger(signals), pipeline, streamed);
    }

    /** Takes no requests (for tests of the stream alone). */
    static StreamResyncs none() {
        return new StreamResyncs(null, "", 1, null, () -> null, true, (schema, table) -> false, java.util.Set::of);
    }

    /** Whether the stream's changes of this relation are looked at: its table is being re-synced. */
    boolean watches(int oid) {
        return job != null && job.table != null && job.table.relation().oid() == oid;
    }

    /** A change of the watched table, with the row's old and new image (either null). */
    void changed(int xid, long commitLsn, Struct before, Struct after) {
        if (before != null) {
            changed.changed(xid, commitLsn, KeyValues.of(before, job.keyColumns));
        }
        if (after != null) {
            changed.changed(xid, commitLsn, KeyValues.of(after, job.keyColumns));
        }
    }

    /**
     * DDL changed the watched table, in its place in the stream: a chunk read in the old shape
     * must not be handed out after it (a sink would take its rows for the old columns), so it is
     * read again, and the table described again (its name and columns may have changed).
     */
    void tableChanged() {
        inFlight = null;
        job.table = null;
    }

    /** A transaction the stream decoded committed. */
    void committed(int xid, long commitLsn) {
        recent.committed(xid, commitLsn);
    }

    /** The watched table was emptied. */
    void truncated(int xid, long commitLsn) {
        changed.truncated(xid, commitLsn);
    }

    /**
     * The stream reached a re-sync watermark (this pipeline's or another's); what to hand out in
     * its transaction, or null: another pipeline's, one read before a restart or a reconnect, or
     * a chunk voided by a truncation it did not see (read again).
     */
    Chunk reached(String marker, long commitLsn) {
        if (inFlight == null || !inFlight.marker().equals(marker)) {
            return null;
        }
        ChunkRead.Chunk chunk = inFlight;
        inFlight = null;
        ChangedKeys.Unseen unseen = changed.unseenBy(chunk.seen());
        changed.forgetSeenByAll(chunk.seen());
        if (unseen.truncated()) {
            LOG.info("{} was emptied while a chunk of its re-sync was read: the chunk is read again", job.table.qualifiedName());
            return null;
        }
        if (recent.unseenBeforeWatching(chunk.seen())) {
            LOG.debug("A transaction decoded before {} was watched was not visible to its chunk yet: the chunk is read again",
                    job.table.qualifiedName());
            return null;
        }
        Chunk out = job.keys != null ? job.repaired(chunk, unseen) : job.ranged(chunk, unseen);
        SourceMeters.RESYNC_ROWS.labelValues(pipeline, job.request.target()).inc(out.rows().size());
        SourceMeters.RESYNC_CHUNKS.labelValues(pipeline, job.request.target()).inc();
        boolean partDone = chunk.complete();
        boolean jobDone = partDone && job.part == job.parts.size() - 1;
        String[] progress = job.keys != null || jobDone ? null : partDone ? new String[] {Long.toString(job.parts.get(job.part + 1).oid())}
                : ResyncParts.withPart(job.parts.get(job.part).oid(), job.afterKey);
        hand(commitLsn, progress, jobDone, partDone);
        return out;
    }

    /** Notes a chunk handed out (durable once the stored offset reaches its commit), and moves the job on. */
    private void hand(long commitLsn, String[] progress, boolean jobDone, boolean partDone) {
        synchronized (this) {
            handed.add(new Handed(job.request.id(), job.request.target(), commitLsn, progress, job.rows, job.chunks, jobDone,
                    job.startedNanos));
        }
        if (jobDone) {
            SourceMeters.RESYNC_RUNNING.labelValues(pipeline).set(0);
            job = null;
            changed.clear();
        } else if (partDone) {
            job.part++;
            job.table = null; // the next part is described before its first chunk
            changed.clear();
        }
    }

    /** The runtime stored offsets through this commit position: chunks up to it are durable. */
    synchronized void durableThrough(long commitLsn) {
        while (!handed.isEmpty() && Long.compareUnsigned(handed.peek().commitLsn(), commitLsn) <= 0) {
            durable = handed.poll();
        }
    }

    /** The stream was lost: a chunk waiting for its watermark is read again (its watermark, if it comes, is passed over). */
    void reset() {
        inFlight = null;
        closeConnection();
    }

    /**
     * Moves re-syncs on, from the stream reader between messages: writes durable progress, takes
     * the next request, reads the next chunk.
     *
     * @param schemas describes a table as the stream's records do
     * @throws SQLException when the source cannot be reached (the stream reconnects); other errors end the request as failed
     */
    void step(Function<PgOutputMessage.Relation, StreamTable> schemas) throws SQLException {
        if (signals == null) {
            return;
        }
        long now = System.nanoTime();
        if (job == null && durable == persisted && now - nextLook < 0) {
            return; // called between every two transactions read: idle, it only looks at the clock
        }
        try {
            writeProgress();
            ledger.due(this::connectionOrFail);
            if (job == null) {
                if (now - nextLook < 0) {
                    return;
                }
                nextLook = now + LOOK_EVERY_NANOS;
                takeRequest();
                return;
            }
            if (inFlight == null) {
                if (job.table == null) {
                    describe(schemas);
                }
                if (job.keys != null) {
                    int n = Math.min(chunkRows, job.keys.size() - job.keysDone);
                    inFlight = ChunkRead.readKeys(connection(), job.shape, job.keys.subList(job.keysDone, job.keysDone + n),
                            job.keysDone + n >= job.keys.size(), pipeline);
                    job.keysInFlight = n;
                } else {
                    inFlight = ChunkRead.read(connection(), job.shape, job.afterKey, chunkRows, pipeline);
                }
                rereads = 0;
            }
        } catch (SQLException | RuntimeException e) {
            if (PgConnect.unreachable(e)) {
                closeConnection();
                throw e instanceof SQLException sql ? sql : new SQLException(e.getMessage(), "08006", e);
            }
            if (job != null && e instanceof SQLException sql && SHAPE_CHANGED.contains(sql.getSQLState()) && ++rereads <= 3) {
                // DDL committed before the chunk was read (a column dropped, the table renamed): described again, read again;
                // the DDL reaches the stream before this chunk's watermark could, and is applied first.
                LOG.info("The shape of {} changed under its re-sync ({}): described again", job.request.target(), sql.getMessage());
                job.table = null;
                return;
            }
            fail(e);
        }
    }

    private void fail(Exception e) throws SQLException {
        if (job == null) {
            LOG.warn("Reading the re-sync requests of {} from {} failed: {}", pipeline, signals.name(), e.getMessage());
            return;
        }
        String why = e.getMessage();
        LOG.warn("The re-sync of {} (request {}) failed: {}", job.request.target(), job.request.id(), why);
        signals.end(connection(), job.request.id(), SignalTable.State.FAILED, job.rows, job.chunks, why);
        SourceMeters.RESYNC_RUNNING.labelValues(pipeline).set(0);
        job = null;
        inFlight = null;
        changed.clear();
    }

    private void writeProgress() throws SQLException {
        Handed now;
        synchronized (this) {
            now = durable;
        }
        if (now == null || now == persisted) {
            return;
        }
        if (now.done()) {
            signals.end(connection(), now.requestId(), SignalTable.State.DONE, now.rows(), now.chunks(), null);
            LOG.info("Re-synced {}: {} rows in {} chunks, {} s", now.target(), now.rows(), now.chunks(),
                    (System.nanoTime() - now.startedNanos()) / 1_000_000_000L);
        } else {
            signals.progress(connection(), now.requestId(), now.progressKey(), now.rows(), now.chunks());
        }
        persisted = now;
    }

    /** Takes the oldest open request, if any: finds its table's parts, or ends it as failed saying why. */
    private void takeRequest() throws SQLException {
        Connection c = connection();
        if (!signals.exists(c)) {
            return;
        }
        List<SignalTable.Request> open = signals.open(c, pipeline);
        if (open.isEmpty()) {
            return;
        }
        SignalTable.Request request = open.get(0);
        synchronized (this) {
            if (!handed.isEmpty() && handed.peekLast().requestId() == request.id()) {
                return; // its last chunk is not durable yet
            }
        }
        Optional<String> problem;
        List<ResyncParts.Part> parts = new ArrayList<>();
        problem = ResyncParts.parts(c, request.target(), viaRoot, selects, pipeline, parts);
        if (problem.isPresent()) {
            LOG.warn("Cannot re-sync {} (request {} of {}): {}", request.target(), request.id(), signals.name(), problem.get());
            signals.end(c, request.id(), SignalTable.State.FAILED, 0, 0, problem.get());
            return;
        }
        if (request.keys() != null && parts.size() != 1) {
            String why = "repairing rows by key is built for a table whose rows the stream sends under one name; " + request.target()
                    + "'s partitions are published as themselves: re-sync the whole table";
            LOG.warn("Cannot repair {} (request {}): {}", request.target(), request.id(), why);
            signals.end(c, request.id(), SignalTable.State.FAILED, 0, 0, why);
            return;
        }
        ResyncJob next = new ResyncJob(request, parts);
        String[] after = request.keys() != null ? null : request.afterKey(); // a repair that stopped starts over: its rows are few
        if (after != null && after.length > 0) {
            // Progress: the part being re-synced (an oid) and the key copied through in it, if any.
            long oid = Long.parseLong(after[0]);
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i).oid() == oid) {
                    next.part = i;
                    next.afterKey = after.length > 1 ? java.util.Arrays.copyOfRange(after, 1, after.length) : null;
                }
            }
            next.rows = request.rows();
            next.chunks = request.chunks();
        }
        job = next;
        SourceMeters.RESYNC_RUNNING.labelValues(pipeline).set(1);
        signals.progress(c, request.id(), after, next.rows, next.chunks);
        LOG.info("{} {} while streaming (request {}{})", request.keys() == null ? "Re-syncing" : "Repairing " + request.keys().length
                + " rows of", request.target(), request.id(),
                next.afterKey == null ? "" : ", going on after the " + next.chunks + " chunks copied before");
    }

    /** Describes the current part; its changes are watched from here on. */
    private void describe(Function<PgOutputMessage.Relation, StreamTable> schemas) throws SQLException {
        ResyncParts.Described d = ResyncParts.describe(connection(), job.parts.get(job.part), selector, schemas, job.afterKey);
        job.table = d.table();
        job.shape = d.shape();
        job.keyColumns = d.keyColumns();
        job.keyOrder = d.keyOrder();
        job.fromKey = d.fromKey();
        if (job.keys != null && job.keys.stream().anyMatch(k -> k.length != d.shape().keys().length)) {
            throw new IllegalStateException("the request's keys have other than the " + d.shape().keys().length + " columns of "
                    + job.request.target() + "'s key " + d.keyColumns());
        }
        changed.clear();
        recent.watchFromNow();
    }

    private Connection connectionOrFail() {
        try {
            return connection();
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = writable.get();
        }
        return connection;
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("Closing the re-sync connection", e);
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        closeConnection();
    }
}
