package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.ddl.DdlMessage;
import io.sluice.connector.postgres.metrics.DecodedCounts;
import io.sluice.connector.postgres.metrics.SourceMeters;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.connector.postgres.resync.SignalTable;
import io.sluice.connector.postgres.selection.SubsetRoots;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.connector.postgres.subset.SubsetRoles;
import io.sluice.connector.postgres.snapshot.VisibleTransactions;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.retry.RetryPolicy;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams the changes of the selected tables from the slot and confirms to the server what is
 * durable downstream. The stored offset tells where to resume: the stream asks for changes
 * after the confirmed position, and records of a transaction sent again up to the last one
 * stored are skipped. What is durable is learned from the offsets Connect (or the embedded
 * engine) has committed, never from records merely handed out.
 */
public final class StreamRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamRun.class);
    /** How often an idle stream is looked at: the delay before a change that comes is noticed. */
    private static final long IDLE_SLEEP_MILLIS = 1;
    /**
     * How long a batch that has records waits for more when the socket is momentarily empty, at
     * most. The walsender sends a backlog in spurts; returning at every gap would hand out
     * batches of a few changes, each applied and confirmed on its own. It bounds the latency a
     * batch adds.
     */
    private static final long LINGER_MILLIS = 10;
    /**
     * A batch goes once the stream has been quiet this long: a spurt of a backlog is followed by
     * the next within a millisecond or so, while commits a live workload makes visible together
     * (the WAL writer flushes them every few milliseconds) come as one spurt and then nothing.
     */
    private static final long QUIET_NANOS = 2_000_000;
    /**
     * A batch of fewer changes than this, gathered for {@link #LIVE_LINGER_NANOS}, is a live
     * stream's, and goes then. The socket is seldom found empty under a steady trickle of commits
     * (a read waits briefly for the next message, which comes), so the linger above, counted from
     * an empty socket, let such a batch gather for tens of milliseconds. A backlog is read faster
     * than this many changes in that time, and its batches still fill.
     */
    private static final int LIVE_BATCH = 512;
    private static final long LIVE_LINGER_NANOS = 5_000_000;

    /**
     * What a stream needs from the connector configuration.
     *
     * @param copyOnColumnChange whether every column change copies the table into the stream ({@code ddl.copy.on})
     * @param viaRoot            whether the publication sends partitions' changes as their root's ({@code publish_via_partition_root})
     * @param signals            the table of re-sync requests ({@code signal.table}); null to take none
     * @param resyncChunkRows    rows per chunk of a re-sync ({@code resync.chunk.rows})
     * @param subset             the roots of a staging subset whose rows the targets judge by its rule; {@link SubsetRoots#NONE} for none
     */
    public record Settings(String topicPrefix, String slot, String publication, TableSelector selector, TypeMapper mapper,
                           long statusIntervalMillis, long reconnectTimeoutMillis, boolean copyOnColumnChange, boolean viaRoot,
                           SignalTable signals, int resyncChunkRows, SubsetRoots subset) {

        /** Which tables DDL events are sent for, and which changes copy a table. */
        DdlMessage.Selection ddlSelection() {
            return DdlMessage.Selection.of(selector::selects, copyOnColumnChange, viaRoot, selector::columnsOf);
        }
    }

    private final Settings settings;
    private Connection catalog;
    /** The server streamed from, {@code host:port}: a reconnect that leads to another one checks the slot there goes on. */
    private String server;
    private volatile ChangeStream stream;
    private ChangeRecords records;
    private final String database;
    private final Map<String, ?> partition;
    private final Map<String, Object> baseOffset;
    private final boolean messages;
    private final StreamSelection selection;
    private long handedOutCommit;
    private long handedOutEvent;
    private List<SourceRecord> pending = new ArrayList<>();
    private final StreamConnections connections;
    private final Map<String, VisibleTransactions> seenBySnapshot;
    private RelationSchemas schemas;
    private TableCopy copy;
    private StreamTable copyTable;
    private volatile boolean closed;
    private final DecodedCounts decoded;
    private final StreamResyncs resyncs;
    /** Marks the rows of the tables a staging subset decides; null without one. */
    private final SubsetMarks subset;
    /** Describes a table as the relation schemas now do; made once, as it is handed over between every two transactions. */
    private final java.util.function.Function<PgOutputMessage.Relation, StreamTable> resolveTable = r -> schemas.resolve(r);

    /**
     * @param catalog     a normal connection to the source database, for catalog lookups; closed with the run
     * @param replication a replication connection to stream on; closed with the run
     * @param partition   the source partition of stream records
     * @param baseOffset  entries every stream offset carries
     * @param stored      the stored offset of that partition, null when none
     * @param messages    whether the server can send logical messages (PostgreSQL 14 and later)
     * @param connections new connections to the source: for copying tables that join the selection with rows, and
     *                    to reconnect after the source was unreachable
     * @param seenBySnapshot tables read whole under a snapshot other than the slot's, with what it saw (see
     *                       {@link VisibleTransactions})
     */
    public StreamRun(Settings settings, Connection catalog, Connection replication, Map<String, ?> partition, Map<String, Object> baseOffset,
                     Map<String, Object> stored, boolean messages, StreamConnections connections, Map<String, VisibleTransactions> seenBySnapshot)
            throws SQLException {
        this.settings = settings;
        this.decoded = new DecodedCounts(settings.topicPrefix());
        this.seenBySnapshot = Map.copyOf(seenBySnapshot);
        this.connections = connections;
        this.catalog = catalog;
        this.database = catalog.getCatalog();
        this.partition = partition;
        this.baseOffset = baseOffset;
        this.messages = messages;
        this.selection = new StreamSelection(settings.ddlSelection(),
                () -> StreamSelection.published(settings.selector(), settings.viaRoot(), this.catalog, database));
        selection.addFromCatalog();
        this.resyncs = new StreamResyncs(settings.signals(), settings.topicPrefix(), settings.resyncChunkRows(), settings.selector(),
                connections.writable(), settings.viaRoot(), selection::selects, selection::names);
        long confirmed = number(stored, ChangeRecords.CONFIRM_LSN);
        handedOutCommit = number(stored, ChangeRecords.COMMIT_LSN);
        handedOutEvent = number(stored, ChangeRecords.EVENT);
        this.schemas = new RelationSchemas(catalog, settings.topicPrefix(), settings.mapper(), selection::selects);
        this.subset = settings.subset().isEmpty() ? null
                : new SubsetMarks(SubsetRoles.of(catalog, settings.selector().select(catalog, database), settings.subset()),
                        connections.normal(), resolveTable, settings.viaRoot(), settings.topicPrefix(), database);
        this.records = newRecords(confirmed);
        this.stream = ChangeStream.start(replication, settings.slot(), settings.publication(), confirmed, messages,
                settings.statusIntervalMillis());
        this.server = SlotContinuity.server(catalog);
    }

    /** Records that start after {@code confirmed} and skip what was handed out before. */
    private ChangeRecords newRecords(long confirmed) {
        ChangeRecords made = new ChangeRecords(settings.topicPrefix(), database, partition, baseOffset, schemas::resolve, confirmed,
                handedOutCommit, handedOutEvent, settings.ddlSelection(), selection::follow, seenBySnapshot, resyncs);
        if (subset != null) {
            made.markSubset(subset);
        }
        return made;
    }

    /**
     * The source went away (restarted, network lost): drops what was read but not handed out,
     * and streams again from the confirmed position once the source is back, trying as
     * {@link RetryPolicy#reconnecting} says (pauses growing from 100 ms to 10 s) until the reconnect timeout. The server sends again what
     * followed that position; what was handed out already is skipped, a table copy is taken
     * again.
     */
    private void reconnect(Exception cause) throws InterruptedException {
        // Closing reports the newest confirmed position: read after it, this is at least what the server was told.
        stream.close();
        long confirmed = stream.confirmed();
        LOG.warn("Lost the stream from slot {} ({}); reconnecting, from {}", settings.slot(), cause.getMessage(), Lsn.format(confirmed));
        SourceMeters.RECONNECTS.labelValues(settings.topicPrefix()).inc();
        closeQuietly(catalog);
        if (copy != null) {
            copy.close();
            copy = null;
        }
        resyncs.reset();
        if (subset != null) {
            subset.reset();
        }
        pending = new ArrayList<>();
        RetryPolicy.reconnecting(settings.reconnectTimeoutMillis()).run(() -> {
            if (closed) {
                return null;
            }
            Connection newCatalog = null;
            Connection replication = null;
            try {
                newCatalog = connections.normal().get();
                // The hosts may lead to another server now (a failover): it must hold this stream's slot, where it left off.
                server = SlotContinuity.check(newCatalog, settings.slot(), confirmed, server);
                replication = connections.replication().get();
                stream = ChangeStream.start(replication, settings.slot(), settings.publication(), confirmed, messages,
                        settings.statusIntervalMillis());
                catalog = newCatalog;
                return null;
            } catch (SQLException | RuntimeException e) {
                if (newCatalog != null) {
                    closeQuietly(newCatalog);
                }
                if (replication != null) {
                    closeQuietly(replication);
                }
                throw e;
            }
        }, new RetryPolicy.Failures() {
            @Override
            public boolean isTransient(Exception failure) {
                // The server may still hold the old walsender (and the slot) until it notices the connection is gone.
                boolean slotBusy = failure instanceof SQLException sql && "55006".equals(sql.getSQLState());
                return PgConnect.unreachable(failure) || slotBusy;
            }

            @Override
            public RuntimeException giveUp(Exception failure, boolean timedOut) {
                if (failure instanceof SlotContinuity.Broken broken) {
                    return broken;
                }
                if (!timedOut && failure instanceof SQLException sql) {
                    return StreamFailures.explain(sql, settings.slot(), settings.publication()); // not an outage: what it means
                }
                return new ConnectException("Streaming from slot " + settings.slot() + " failed (" + cause.getMessage()
                        + ") and reconnecting did not succeed within " + settings.reconnectTimeoutMillis() + " ms: " + failure.getMessage(),
                        failure);
            }
        });
        if (closed) {
            return;
        }
        selection.rewind(confirmed);
        schemas = new RelationSchemas(catalog, settings.topicPrefix(), settings.mapper(), selection::selects);
        records = newRecords(confirmed);
        LOG.info("Streaming from slot {} again", settings.slot());
    }

    private static long number(Map<String, Object> offset, String key) {
        return offset != null && offset.get(key) instanceof Number n ? n.longValue() : 0L;
    }

    /** Change records in commit order, at most about {@code maxRecords}; empty when none came within the timeout. */
    public List<SourceRecord> poll(int maxRecords, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        long lingerUntil = 0;
        long quietSince = 0;
        long firstAt = 0;
        try {
            synchronized (this) {
                while (pending.size() < maxRecords) {
                    copyChunk(maxRecords - pending.size());
                    if (!records.inTransaction()) {
                        // Between transactions: a table starts being watched with no transaction half read.
                        resyncs.step(resolveTable);
                    }
                    boolean read = readMore();
                    if (!pending.isEmpty() && firstAt == 0) {
                        firstAt = System.nanoTime();
                    }
                    if (pending.size() > 0 && pending.size() < LIVE_BATCH && System.nanoTime() - firstAt >= LIVE_LINGER_NANOS) {
                        break; // a live stream's few changes: they go now, whether or not the socket was ever found empty
                    }
                    if (!read) {
                        if (!pending.isEmpty()) {
                            long now = System.nanoTime();
                            lingerUntil = lingerUntil != 0 ? lingerUntil : now + LINGER_MILLIS * 1_000_000L;
                            quietSince = quietSince != 0 ? quietSince : now;
                            if (now >= lingerUntil || now - quietSince >= QUIET_NANOS) {
                                break;
                            }
                            wait(1);
                            continue;
                        }
                        if (System.nanoTime() >= deadline) {
                            break;
                        }
                        // Waiting on the monitor lets committed() run meanwhile.
                        wait(IDLE_SLEEP_MILLIS);
                        continue;
                    }
                    quietSince = 0;
                }
                List<SourceRecord> out = pending;
                pending = new ArrayList<>();
                if (out.size() >= maxRecords && !readMore()) {
                    // A full batch tells the runtime that more is coming; when nothing more is ready, the tail waits for the next
                    // poll, which hands it out short of full: a caught-up batch must say so (the runtime then applies and confirms
                    // it at once), or changes that end on a full batch would stay unconfirmed for seconds.
                    pending.addAll(out.subList(maxRecords - 1, out.size()));
                    out = new ArrayList<>(out.subList(0, maxRecords - 1));
                }
                if (subset != null && !out.isEmpty()) {
                    out = subset.mark(out);
                }
                if (!out.isEmpty()) {
                    Map<String, ?> last = out.get(out.size() - 1).sourceOffset();
                    handedOutCommit = ((Number) last.get(ChangeRecords.COMMIT_LSN)).longValue();
                    handedOutEvent = ((Number) last.get(ChangeRecords.EVENT)).longValue();
                }
                return out;
            }
        } catch (SQLException | RuntimeException e) {
            if (closed) {
                return List.of(); // stopped while reading: the closed connection is no outage
            }
            if (PgConnect.unreachable(e)) {
                synchronized (this) {
                    reconnect(e);
                }
                return List.of();
            }
            throw e instanceof SQLException sql ? StreamFailures.explain(sql, settings.slot(), settings.publication()) : (RuntimeException) e;
        }
    }

    /** Reads the next message, if one is ready, into the pending records; whether one was. */
    private boolean readMore() throws SQLException {
        PgOutputMessage message = stream.read();
        if (message == null) {
            return false;
        }
        decoded.count(message);
        records.accept(message);
        pending.addAll(records.drain());
        return true;
    }

    /**
     * Moves on a table copy: starts the next one when the stream is between transactions, or
     * hands out a chunk of the running one's rows. Stream messages are read between chunks, so
     * the replication connection stays alive during a long copy.
     */
    private void copyChunk(int room) throws SQLException {
        if (copy == null) {
            Integer oid = records.nextCopy();
            if (oid == null) {
                return;
            }
            Connection c = connections.writable().get();
            try {
                copy = TableCopy.start(c, Integer.toUnsignedLong(oid), settings.selector().filters());
            } catch (SQLException e) {
                closeQuietly(c);
                if (!"42P01".equals(e.getSQLState())) {
                    throw e;
                }
                LOG.info("Table {} was dropped before it could be copied into the stream", Integer.toUnsignedLong(oid));
                records.copyAbandoned(oid);
                return;
            }
            copyTable = schemas.resolve(copy.relation());
            if (!copyTable.selected()) {
                // Its later DDL took it out of the selection again (a partition detached and attached again, say): that DDL is
                // further on in the stream, and says what becomes of the table.
                LOG.info("{} left the selected tables again before it could be copied into the stream", copyTable.qualifiedName());
                copy.close();
                copy = null;
                records.copyAbandoned(oid);
                return;
            }
            records.copyStarted(oid, copy.marker());
            records.copyBegins(copyTable);
        }
        List<String[]> rows = copy.next(Math.max(1, Math.min(room, 1000)));
        if (rows.isEmpty()) {
            copy.close();
            copy = null;
            records.copyEnds(copyTable);
        } else {
            records.copied(copyTable, rows);
        }
        pending.addAll(records.drain());
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            LOG.debug("Closing a copy connection", e);
        }
    }

    /**
     * Tells the run which offset the runtime has committed (stored durably): the slot may be
     * confirmed up to it; and when every record handed out is durable and none is waiting,
     * up to the end of the last transaction received, so WAL is released while the selected
     * tables are idle.
     */
    public void committed(Map<String, Object> stored) {
        long confirm = number(stored, ChangeRecords.CONFIRM_LSN);
        resyncs.durableThrough(number(stored, ChangeRecords.COMMIT_LSN));
        synchronized (this) {
            boolean allDurable = number(stored, ChangeRecords.COMMIT_LSN) == handedOutCommit
                    && number(stored, ChangeRecords.EVENT) == handedOutEvent && pending.isEmpty() && !records.holding();
            if (allDurable && !records.inTransaction() && records.confirmCeiling() == null) {
                // Between transactions the server has sent everything committed before its last
                // keepalive's position, so that position can be released too: this is what keeps
                // WAL from piling up while the selected tables are idle and others are busy.
                confirm = max(confirm, max(records.lastCompleteEnd(), stream.lastReceived()));
            }
        }
        if (confirm != 0) {
            stream.confirm(confirm);
        }
    }

    private static long max(long a, long b) {
        return Long.compareUnsigned(a, b) >= 0 ? a : b;
    }

    @Override
    public void close() {
        closed = true;
        if (copy != null) {
            copy.close();
        }
        resyncs.close();
        stream.close();
        try {
            catalog.close();
        } catch (SQLException e) {
            LOG.debug("Closing the catalog connection", e);
        }
    }
}
