package io.sluice.connector.postgres.snapshot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.naming.TopicNames;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consistent snapshot of the selected tables. A coordinating transaction exports a
 * snapshot and plans the tables in it; reader threads, each on its own connection that joined
 * the snapshot, take page ranges (largest tables first, so tables finish one after another)
 * and fill a byte-bounded queue. After the last row comes one event on the schema-change
 * topic whose source says {@code snapshot=last}: the end of the snapshot.
 */
public final class SnapshotRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotRun.class);

    /** Source partition and offset of the end-of-snapshot event. */
    public static final String COMPLETED = "snapshot_completed";

    private final Settings settings;
    private final Supplier<Connection> connections;
    private final Function<Map<String, String>, Map<String, Object>> storedOffsets;
    private final RecordQueue<SourceRecord> queue;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger runningReaders = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private final List<TableProgress> progress = new ArrayList<>();
    private Connection coordinator;
    private boolean endEmitted;
    private String database;
    private long snapshotMicros;

    /** What a run needs from the connector configuration. */
    public record Settings(String topicPrefix, TableSelector selector, TypeMapper mapper, long batchBytes, int threads, long queueBytes) {
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

    /** The partition of the end-of-snapshot event; its stored offset tells whether a snapshot already finished. */
    public static Map<String, String> serverPartition(String topicPrefix) {
        return Map.of("server", topicPrefix);
    }

    /** Whether an earlier run of this connector already finished its snapshot. */
    public boolean alreadyCompleted() {
        Map<String, Object> stored = storedOffsets.apply(serverPartition(settings.topicPrefix()));
        return stored != null && Boolean.TRUE.equals(stored.get(COMPLETED));
    }

    public void start() throws SQLException {
        coordinator = connections.get();
        String snapshotId;
        try (Statement s = coordinator.createStatement()) {
            s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
            try (ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_export_snapshot(), now(), current_database()")) {
                rs.next();
                snapshotId = rs.getString(1);
                Timestamp at = rs.getTimestamp(2);
                snapshotMicros = at.getTime() / 1000 * 1_000_000L + at.getNanos() / 1000;
                database = rs.getString(3);
            }
        }
        List<SelectedTable> tables = settings.selector().select(coordinator, database);
        SnapshotPlanner planner = new SnapshotPlanner(settings.topicPrefix(), settings.mapper(), settings.batchBytes());
        List<TablePlan> plans = planner.plan(coordinator, tables,
                t -> storedOffsets.apply(TableProgress.partition(settings.topicPrefix(), t.qualifiedName())));

        ConcurrentLinkedQueue<PageRange> work = new ConcurrentLinkedQueue<>();
        Map<TablePlan, TableProgress> byPlan = new LinkedHashMap<>();
        for (TablePlan plan : plans.stream().sorted(Comparator.comparingLong(TablePlan::bytes).reversed()).toList()) {
            Map<String, String> partition = TableProgress.partition(settings.topicPrefix(), plan.table().qualifiedName());
            Map<String, Object> stored = storedOffsets.apply(partition);
            FinishedRanges finished = stored == null ? FinishedRanges.none()
                    : FinishedRanges.decode((String) stored.get(TableProgress.DONE));
            TableProgress table = new TableProgress(plan, partition, finished);
            byPlan.put(plan, table);
            progress.add(table);
            for (int i = 0; i < plan.rangeCount(); i++) {
                if (!finished.contains(i)) {
                    work.add(plan.range(i));
                }
            }
        }
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

    private void readRanges(String snapshotId, ConcurrentLinkedQueue<PageRange> work, Map<TablePlan, TableProgress> byPlan) {
        Map<TablePlan, Struct> sources = new LinkedHashMap<>();
        try (RangeReader reader = new RangeReader(connections.get(), snapshotId, queue)) {
            PageRange range;
            while (failure.get() == null && (range = work.poll()) != null) {
                TablePlan plan = range.plan();
                Struct source = sources.computeIfAbsent(plan, p -> new SourceInfo(settings.topicPrefix(), database, p.table().schema(),
                        p.table().name(), snapshotMicros, SourceInfo.Snapshot.TRUE, null, null, null).toStruct());
                reader.read(range, byPlan.get(plan), source);
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
        if (records.isEmpty() && readersDone && failure.get() == null && !endEmitted) {
            endEmitted = true;
            closeCoordinator();
            return List.of(endOfSnapshot());
        }
        return records;
    }

    private SourceRecord endOfSnapshot() {
        SourceInfo source = new SourceInfo(settings.topicPrefix(), database, "", "", snapshotMicros, SourceInfo.Snapshot.LAST,
                null, null, null);
        long rows = progress.stream().mapToLong(TableProgress::rows).sum();
        LOG.info("Snapshot of {} read: {} tables, {} rows", database, progress.size(), rows);
        return new SourceRecord(serverPartition(settings.topicPrefix()), Map.of(COMPLETED, true),
                TopicNames.forSchemaChanges(settings.topicPrefix()), null,
                SchemaChangeEvents.KEY_SCHEMA, SchemaChangeEvents.key(database),
                SchemaChangeEvents.VALUE_SCHEMA, SchemaChangeEvents.value(source, null, null, List.of(), System.currentTimeMillis()));
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
