package io.sluice.connector.postgres.snapshot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import io.sluice.connector.postgres.offsets.ServerPartition;
import io.sluice.connector.postgres.schema.PgDump;
import io.sluice.connector.postgres.schema.PostDataSplit;
import io.sluice.connector.postgres.schema.SchemaSnapshot;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.connector.postgres.selection.SubsetRoots;
import io.sluice.connector.postgres.subset.SubsetSelection;
import io.sluice.connector.postgres.selection.TablePattern;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consistent snapshot of the selected tables. A coordinating transaction exports a
 * snapshot and plans the tables in it; reader threads, each on its own connection that joined
 * the snapshot, take page ranges table after table in {@link ReadOrder} (so tables finish one
 * after another, and a sink builds their indexes while the next ones are copied)
 * and fill a byte-bounded queue. Events on the schema-change topic frame the rows: before the
 * first, the pre-data schema ({@code snapshot=first}); after each table's last row, that table's
 * own indexes and key constraints ({@code snapshot=last_in_data_collection}), so a sink can
 * build them while other tables are copied; after the last row, the rest of the post-data
 * schema and the sequence values ({@code snapshot=last}), which also marks the end of the
 * snapshot. A resumed run sends no per-table events: its end event carries all the post-data.
 */
public final class SnapshotRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotRun.class);

    /** Source partition and offset of the end-of-snapshot event. */
    public static final String COMPLETED = "snapshot_completed";
    /** Offset of the start-of-snapshot event: the schema was handed out, so a resumed run must not hand it out again. */
    public static final String STARTED = "snapshot_started";

    private final Settings settings;
    private final Supplier<Connection> connections;
    private final Function<Map<String, String>, Map<String, Object>> storedOffsets;
    private final RecordQueue<SourceRecord> queue;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger runningReaders = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private final List<TableProgress> progress = new ArrayList<>();
    private SnapshotMeters meters;
    private Connection coordinator;
    private boolean endEmitted;
    private String database;
    private long snapshotMicros;
    private PostDataSplit postData;
    private SnapshotEvents events;
    private boolean resumed;
    private List<SchemaChangeEvents.TableChange> tableChanges = List.of();
    /** What this run's snapshot saw, when it is not the slot's own; null when it is. */
    private VisibleTransactions visibility;
    private final SeenWhole seenBy = new SeenWhole();
    /** Per published table (a root through its root), its partitions whose rows are not all queued yet. */
    private final Map<String, AtomicInteger> leavesLeft = new ConcurrentHashMap<>();
    /** Published names of tables this run leaves to the stream (they joined the selection after the snapshot began). */
    private Set<String> leftOut = Set.of();
    /** Published names of the tables selected when this run started, before any subset; empty until then. */
    private List<String> selected = List.of();

    /**
     * What a run needs from the connector configuration.
     *
     * @param schema how to dump the schema; null for none
     * @param subset the roots of a staging subset; {@link SubsetRoots#NONE} to copy the tables whole
     */
    public record Settings(String topicPrefix, TableSelector selector, TypeMapper mapper, long batchBytes, int threads, long queueBytes,
                           SchemaSource schema, boolean rawTuples, List<TablePattern> rawExcludes, boolean viaRoot, SubsetRoots subset) {
    }

    /** Where the schema comes from: pg_dump against the endpoint, for the chosen scope. */
    public record SchemaSource(PgDump dump, PgEndpoint endpoint, SchemaSnapshot.Scope scope) {
    }

    /**
     * @param connections   opens a new connection to the source database (session settings applied)
     * @param storedOffsets the stored offset of a source partition, or null
     */
    public SnapshotRun(Settings settings, Supplier<Connection> connections, Function<Map<String, String>, Map<String, Object>> storedOffsets) {
        this.settings = settings;
        this.connections = connections;
        this.storedOffsets = storedOffsets;
        this.queue = new RecordQueue<>(settings.queueBytes());
    }

    /** Whether an earlier run of this connector handed out part of a snapshot at least (or streamed after one). */
    public boolean begun() {
        return storedOffsets.apply(ServerPartition.of(settings.topicPrefix())) != null;
    }

    /** Whether an earlier run of this connector already finished its snapshot. */
    public boolean alreadyCompleted() {
        Map<String, Object> stored = storedOffsets.apply(ServerPartition.of(settings.topicPrefix()));
        return stored != null && (Boolean.TRUE.equals(stored.get(COMPLETED)) || stored.containsKey(ServerPartition.STREAMING));
    }

    /**
     * Tables a resumed run does not read, by published name: they joined the selection after the
     * snapshot began, so the targets never got their definitions with it. They are copied as
     * tables that join a streaming pipeline are ({@code JoinedTables}). Call before {@link #start}.
     */
    public void leaveOut(Set<String> publishedNames) {
        this.leftOut = Set.copyOf(publishedNames);
    }

    /** The published names of the tables this run selected (before any subset), once started. */
    public List<String> selectedNames() {
        return selected;
    }

    /** Starts a snapshot of its own (exported by a coordinating transaction). */
    public void start() throws SQLException, InterruptedException {
        start(null);
    }

    /**
     * Starts reading.
     *
     * @param exported a snapshot exported elsewhere (by creating a replication slot) to read in,
     *                 which must stay valid until the readers have joined it; null to export one here
     */
    public void start(String exported) throws SQLException, InterruptedException {
        coordinator = connections.get();
        String snapshotId;
        try (Statement s = coordinator.createStatement()) {
            s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
            if (exported != null) {
                s.execute("SET TRANSACTION SNAPSHOT '" + exported.replace("'", "''") + "'");
            }
            try (ResultSet rs = s.executeQuery("SELECT " + (exported == null ? "pg_catalog.pg_export_snapshot()" : "NULL")
                    + ", now(), current_database()")) {
                rs.next();
                snapshotId = exported == null ? rs.getString(1) : exported;
                Timestamp at = rs.getTimestamp(2);
                snapshotMicros = at.getTime() / 1000 * 1_000_000L + at.getNanos() / 1000;
                database = rs.getString(3);
                events = new SnapshotEvents(settings.topicPrefix(), database, snapshotMicros);
            }
            if (exported == null) {
                // Not the slot's snapshot: the stream will replay changes this one saw already. (On a standby, what it has
                // replayed is the WAL's end as this snapshot sees it.)
                String function = coordinator.getMetaData().getDatabaseMajorVersion() >= 13 ? "pg_current_snapshot" : "txid_current_snapshot";
                try (ResultSet rs = s.executeQuery("SELECT pg_catalog." + function + "()::text, CASE WHEN pg_catalog.pg_is_in_recovery() "
                        + "THEN pg_catalog.pg_last_wal_replay_lsn() ELSE pg_catalog.pg_current_wal_insert_lsn() END::text")) {
                    rs.next();
                    visibility = VisibleTransactions.of(rs.getString(1), io.sluice.schemas.postgres.Lsn.parse(rs.getString(2)));
                }
            }
        }
        List<SelectedTable> tables = settings.selector().select(coordinator, database);
        if (!leftOut.isEmpty()) {
            tables = tables.stream().filter(t -> !leftOut.contains(t.publishedName(settings.viaRoot()))).toList();
            LOG.info("{} joined the selected tables after this snapshot began: not read by its rest, but copied once streaming "
                    + "runs, as tables that join the selection are", leftOut);
        }
        selected = tables.stream().map(t -> t.publishedName(settings.viaRoot())).distinct().toList();
        try {
            tables = SubsetSelection.apply(coordinator, tables, settings.subset());
        } catch (IllegalArgumentException e) {
            throw new ConnectException("The subset cannot be taken: " + e.getMessage(), e);
        }
        SnapshotPlanner planner = new SnapshotPlanner(settings.topicPrefix(), settings.mapper(), settings.batchBytes(), settings.viaRoot());
        List<TablePlan> plans = planner.plan(coordinator, tables,
                t -> TableProgress.stored(storedOffsets, settings.topicPrefix(), t.qualifiedName()));

        Map<String, Object> server = storedOffsets.apply(ServerPartition.of(settings.topicPrefix()));
        resumed = server != null && Boolean.TRUE.equals(server.get(STARTED));
        List<TablePlan> keylessToReload = new ArrayList<>();
        List<PageRange> ranges = new ArrayList<>();
        Map<TablePlan, TableProgress> byPlan = new LinkedHashMap<>();
        // Rows of a keyless table cannot be matched, so a partly copied one is emptied and copied whole; through its root,
        // that is the root's every partition (the sinks know the rows by the root only).
        Set<String> keylessReloaded = new HashSet<>();
        if (resumed) {
            for (TablePlan plan : plans) {
                if (plan.schema().keySchema() == null && finishedOf(TableProgress.stored(storedOffsets, settings.topicPrefix(),
                        plan.table().qualifiedName())).count() < plan.rangeCount()) {
                    keylessReloaded.add(published(plan));
                }
            }
        }
        for (TablePlan plan : ReadOrder.of(plans)) {
            Map<String, String> partition = TableProgress.partition(settings.topicPrefix(), plan.table().qualifiedName());
            Map<String, Object> stored = TableProgress.stored(storedOffsets, settings.topicPrefix(), plan.table().qualifiedName());
            FinishedRanges finished = finishedOf(stored);
            if (keylessReloaded.contains(published(plan))) {
                finished = FinishedRanges.none();
                if (keylessToReload.stream().noneMatch(p -> published(p).equals(published(plan)))) {
                    keylessToReload.add(plan);
                }
            }
            leavesLeft.computeIfAbsent(published(plan), r -> new AtomicInteger()).incrementAndGet();
            // A table read whole here is as this snapshot saw it; one partly read before holds rows of two snapshots.
            VisibleTransactions seen = finished.count() == 0 ? visibility
                    : finished.count() >= plan.rangeCount() ? seenBy(stored).orElse(null) : null;
            if (seen != null) {
                seenBy.put(plan.table().qualifiedName(), seen);
            }
            TableProgress table = new TableProgress(plan, partition, finished, finished.count() == 0 ? visibility : null);
            byPlan.put(plan, table);
            progress.add(table);
            for (int i = 0; i < plan.rangeCount(); i++) {
                if (!finished.contains(i)) {
                    ranges.add(plan.range(i));
                }
            }
        }
        Map<String, SchemaChangeEvents.TableChange> changes = new LinkedHashMap<>();
        plans.forEach(plan -> changes.putIfAbsent(published(plan), SnapshotEvents.creation(plan)));
        tableChanges = List.copyOf(changes.values());
        if (settings.viaRoot()) {
            seenBy.addRoots(plans);
        }
        if (settings.schema() != null && settings.schema().scope() != SchemaSnapshot.Scope.NONE) {
            SchemaSnapshot schema = SchemaSnapshot.take(settings.schema().dump(), settings.schema().endpoint(), snapshotId, coordinator,
                    settings.schema().scope(), tables);
            postData = PostDataSplit.of(schema.postData(), coordinator, tables);
            if (!resumed) {
                queue.put(schemaEvent(schema.preData(), SourceInfo.Snapshot.FIRST, Map.of(STARTED, true)), schema.preData().length());
            }
        } else if (!resumed) {
            queue.put(schemaEvent(null, SourceInfo.Snapshot.FIRST, Map.of(STARTED, true)), 1024);
        }
        for (TablePlan plan : keylessToReload) {
            TableProgress table = byPlan.get(plan);
            LOG.info("{} has no key and was partly copied before the interruption: it is emptied and copied again", published(plan));
            queue.put(events.truncation(plan, table), 512);
        }
        RangeQueue work = new RangeQueue(ranges);
        long pending = work.size();
        LOG.info("Snapshot {} of {}: {} tables, {} ranges to read ({} already read), {} reader connections", snapshotId, database,
                plans.size(), pending, plans.stream().mapToLong(TablePlan::rangeCount).sum() - pending, settings.threads());

        int readers = (int) Math.max(1, Math.min(settings.threads(), pending));
        runningReaders.set(readers);
        for (int i = 0; i < readers; i++) {
            Thread thread = new Thread(() -> readRanges(snapshotId, work, byPlan), "sluice-snapshot-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    private void readRanges(String snapshotId, RangeQueue work, Map<TablePlan, TableProgress> byPlan) {
        Map<TablePlan, Struct> sources = new LinkedHashMap<>();
        try (RangeReader reader = new RangeReader(connections.get(), snapshotId, queue, resumed, settings.rawTuples(),
                settings.rawExcludes())) {
            PageRange range = null;
            while (failure.get() == null && (range = work.next(range)) != null) {
                TablePlan plan = range.plan();
                Struct source = sources.computeIfAbsent(plan, p -> new SourceInfo(settings.topicPrefix(), database, p.schema().schemaName(),
                        p.schema().tableName(), snapshotMicros, SourceInfo.Snapshot.TRUE, null, null, null).toStruct());
                TableProgress table = byPlan.get(plan);
                if (reader.read(range, table, source) && !resumed && leavesLeft.get(published(plan)).decrementAndGet() == 0) {
                    // Through a root, its rows are all in once every partition's are.
                    queue.put(tableLoaded(plan, table), 4096);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            failure.compareAndSet(null, e);
        } finally {
            runningReaders.decrementAndGet();
        }
    }

    /** Records read so far, at most {@code maxRecords}; empty while none are ready, and for ever after the end event. */
    public List<SourceRecord> poll(int maxRecords, long timeoutMillis) throws InterruptedException {
        Throwable failed = failure.get();
        if (failed != null) {
            throw failed instanceof ConnectException c ? c
                    : new ConnectException("Snapshot of " + database + " failed: " + failed.getMessage(), failed);
        }
        boolean readersDone = runningReaders.get() == 0;
        List<SourceRecord> records = queue.drain(maxRecords, readersDone ? 0 : timeoutMillis);
        if (meters == null) {
            meters = new SnapshotMeters(settings.topicPrefix());
        }
        meters.update(progress, readersDone && records.isEmpty());
        if (records.isEmpty() && readersDone && failure.get() == null && !endEmitted) {
            endEmitted = true;
            closeCoordinator();
            return List.of(endOfSnapshot());
        }
        return records;
    }

    private SourceRecord endOfSnapshot() {
        long rows = progress.stream().mapToLong(TableProgress::rows).sum();
        LOG.info("Snapshot of {} read: {} tables, {} rows", database, progress.size(), rows);
        String ddl = postData == null ? null : resumed ? postData.all() : postData.rest();
        SourceRecord end = schemaEvent(ddl, SourceInfo.Snapshot.LAST, Map.of(STARTED, true, COMPLETED, true));
        if (resumed) {
            // Some of the post-data may have been built before the interruption.
            end.headers().addBoolean(EventHeaders.SNAPSHOT_RESUMED, true);
        }
        return end;
    }

    /**
     * The event after a table's last row: its indexes and key constraints, which a sink may
     * build at once, while the other tables are still being copied. Through a root, those of all
     * its partitions.
     */
    private SourceRecord tableLoaded(TablePlan plan, TableProgress table) {
        String ddl = null;
        if (postData != null) {
            StringBuilder all = new StringBuilder();
            for (TableProgress p : progress) {
                if (published(p.plan()).equals(published(plan))) {
                    String part = postData.forTable(p.plan().table());
                    if (part != null && !part.isBlank()) {
                        all.append(all.length() == 0 ? "" : "\n").append(part);
                    }
                }
            }
            ddl = all.length() == 0 ? postData.forTable(plan.table()) : all.toString();
        }
        LOG.debug("{} read: {} rows", published(plan), table.rows());
        return events.tableLoaded(plan, table, ddl);
    }

    private SourceRecord schemaEvent(String ddl, SourceInfo.Snapshot marker, Map<String, Object> offset) {
        return events.schemaEvent(ddl, marker, offset, tableChanges);
    }

    /** What the sinks know a plan's rows as: its root's name through the root, else its own. */
    private String published(TablePlan plan) {
        return plan.table().publishedName(settings.viaRoot());
    }

    private static FinishedRanges finishedOf(Map<String, Object> stored) {
        return stored == null ? FinishedRanges.none() : FinishedRanges.decode((String) stored.get(TableProgress.DONE));
    }

    /**
     * The tables whose rows were all read under one snapshot other than the slot's (see
     * {@link VisibleTransactions}), by qualified name, with what that snapshot saw; known once
     * the run has started.
     */
    public Map<String, VisibleTransactions> seenBy() {
        return seenBy.asMap();
    }

    /** What the stored offset of a finished table says its snapshot saw; empty when it was read under the slot's snapshot. */
    public static java.util.Optional<VisibleTransactions> seenBy(Map<String, Object> tableOffset) {
        return SeenWhole.of(tableOffset);
    }

    /** Per-table progress, for progress displays. */
    public List<TableProgress> progress() {
        return List.copyOf(progress);
    }

    private void closeCoordinator() {
        if (coordinator != null) {
            try {
                coordinator.close();
            } catch (SQLException e) {
                LOG.debug("Closing the snapshot's coordinating connection", e);
            }
            coordinator = null;
        }
    }

    @Override
    public void close() {
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        closeCoordinator();
    }
}
