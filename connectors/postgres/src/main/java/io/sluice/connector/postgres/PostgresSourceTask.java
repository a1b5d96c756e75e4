package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.connector.postgres.PostgresSourceConfig.SnapshotMode;
import io.sluice.connector.postgres.barrier.BarrierWriter;
import io.sluice.connector.postgres.health.HeartbeatSpread;
import io.sluice.connector.postgres.health.HeartbeatWriter;
import io.sluice.connector.postgres.health.SlotHealth;
import io.sluice.connector.postgres.health.SlotWarnings;
import io.sluice.connector.postgres.offsets.ServerPartition;
import io.sluice.connector.postgres.replication.ReplicationSlot;
import io.sluice.connector.postgres.replication.SequenceSync;
import io.sluice.connector.postgres.replication.StreamConnections;
import io.sluice.connector.postgres.replication.StreamRun;
import io.sluice.connector.postgres.resync.SignalTable;
import io.sluice.connector.postgres.schema.PgDump;
import io.sluice.connector.postgres.schema.SchemaSnapshot;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.connector.postgres.snapshot.TableProgress;
import io.sluice.connector.postgres.snapshot.VisibleTransactions;
import io.sluice.metrics.JmxBridge;
import io.sluice.metrics.SluiceMetrics;
import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one task of {@link PostgresSourceConnector}: runs the snapshot, then streams the changes
 * committed after it from the replication slot created with it. With {@code initial_only} it
 * produces nothing after the end-of-snapshot event. The slot is confirmed from {@link #commit}
 * with the offsets the runtime has stored, so only durable changes are released.
 */
public class PostgresSourceTask extends SourceTask {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresSourceTask.class);
    /** Most records one poll hands out: a full batch means the source has more waiting. */
    public static final int MAX_BATCH = 4096;
    private static final long POLL_WAIT_MILLIS = 500;

    private PostgresSourceConfig config;
    private PgEndpoint endpoint;
    private StreamingSetup setup;
    private SnapshotRun snapshot;
    /** The replication connection that created the slot; its exported snapshot lives until it runs another command. */
    private Connection slotCreator;
    private volatile StreamRun stream;
    private SequenceSync sequences;
    private boolean snapshotting;
    /** Whether this task ran the snapshot (it knows what its snapshot saw without reading offsets). */
    private boolean snapshotStarted;
    /** Adds ordering barriers for a sink on a Kafka Connect cluster; null when none are asked for. */
    private BarrierWriter barriers;
    /** Reads the slot's health for metrics and warnings; null without a slot or when turned off. */
    private SlotHealth slotHealth;
    /** Copies each heartbeat into every partition of its topic, for every sink task to see. */
    private HeartbeatSpread heartbeatSpread = new HeartbeatSpread(1);
    /** Writes the heartbeats while changes stream; null when turned off. */
    private HeartbeatWriter heartbeats;
    /** Set when a record landed in a partition that holds no barriers; the next poll fails with it. */
    private volatile String beyondBarriers;

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        config = new PostgresSourceConfig(props);
        JmxBridge.ensureStarted(); // a Connect worker serves no metrics of ours: its JMX shows them
        heartbeatSpread = new HeartbeatSpread(config.heartbeatPartitions());
        endpoint = PostgresSourceConnector.endpoint(config);
        setup = new StreamingSetup(config, endpoint);
        barriers = config.barrierPartitions() > 0 ? new BarrierWriter(config.topicPrefix(), config.barrierPartitions()) : null;
        SnapshotMode mode = config.snapshotMode();
        PgDump dump = config.schemaScope() == SchemaSnapshot.Scope.NONE ? null : PgDump.forSource(config.pgDumpPath(), endpoint);
        snapshot = newSnapshot(dump, config.viaPartitionRoot());
        try {
            Optional<ReplicationSlot.State> slot = mode == SnapshotMode.INITIAL_ONLY ? Optional.empty() : setup.prepare(snapshot.begun());
            if (mode != SnapshotMode.INITIAL_ONLY && setup.viaRoot() != config.viaPartitionRoot()) {
                snapshot = newSnapshot(dump, setup.viaRoot());
            }
            if (mode == SnapshotMode.NEVER || snapshot.alreadyCompleted()) {
                if (mode == SnapshotMode.INITIAL_ONLY) {
                    LOG.info("The snapshot of {} finished in an earlier run; nothing to read (reset the offsets to copy again)", endpoint);
                } else {
                    if (slot.isEmpty()) {
                        if (mode == SnapshotMode.INITIAL) {
                            throw missingSlot();
                        }
                        createSlot();
                    }
                    startStream();
                    watchSlot();
                }
                return;
            }
            String exported = null;
            if (mode == SnapshotMode.INITIAL) {
                exported = createSlotWithSnapshot(slot);
            }
            boolean resumed = snapshot.begun();
            snapshotting = true;
            snapshotStarted = true;
            if (resumed) {
                snapshot.leaveOut(setup.joined());
            }
            snapshot.start(exported);
            if (!resumed && mode == SnapshotMode.INITIAL) {
                // Before any of it is handed out: a resumed run tells the tables that joined since by this record.
                setup.recordSelection(snapshot.selectedNames());
            }
            if (mode == SnapshotMode.INITIAL) {
                watchSlot();
            }
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while starting the snapshot", e);
        }
    }

    /** Starts reading the slot's health (docs/metrics.md), unless slot.health.interval.ms is 0. */
    private void watchSlot() {
        if (slotHealth != null || config.slotHealthIntervalMillis() == 0) {
            return;
        }
        slotHealth = new SlotHealth(config.topicPrefix(), config.slotName(),
                new SlotWarnings(config.slotName(), config.slotLagWarnBytes(), config.slotSafeWalWarnBytes()),
                () -> PgConnect.open(endpoint, "sluice slot health " + config.topicPrefix()));
        slotHealth.start(config.slotHealthIntervalMillis());
    }

    private SnapshotRun newSnapshot(PgDump dump, boolean viaRoot) {
        SnapshotRun.Settings settings = new SnapshotRun.Settings(config.topicPrefix(), selector(), mapper(),
                config.snapshotBatchBytes(), config.snapshotThreads(), config.snapshotQueueBytes(),
                dump == null ? null : new SnapshotRun.SchemaSource(dump, endpoint, config.schemaScope()),
                config.rawTuples(), config.rawTuplesExcludes(), viaRoot, config.subsetRoots());
        return new SnapshotRun(settings, () -> PgConnect.open(endpoint, "sluice snapshot " + config.topicPrefix()),
                partition -> context.offsetStorageReader().offset(partition));
    }

    /**
     * The snapshot is done but the slot whose changes follow it is gone: streaming from a new slot
     * would miss whatever changed in between, so the pipeline stops and says how to recover.
     */
    private ConnectException missingSlot() {
        Map<String, Object> stored = context.offsetStorageReader().offset(ServerPartition.of(config.topicPrefix()));
        boolean streamed = stored != null && stored.containsKey(ServerPartition.STREAMING);
        return new ConnectException((streamed
                ? "Replication slot " + config.slotName() + " on " + endpoint.display() + " is gone (dropped by someone, invalidated "
                        + "when it fell behind max_slot_wal_keep_size, or left behind by a failover: only a failover slot, "
                        + "slot.failover=true on 17 and later, follows a promotion), so the changes since the last one applied are lost to Sluice."
                : "The snapshot of this pipeline finished without a replication slot (snapshot.mode=initial_only, as `sluice snapshot` "
                        + "takes it), so the changes made since are unknown to Sluice.")
                + " Take the snapshot again with streaming (`sluice run --fresh`, or reset this connector's offsets), or set "
                + "snapshot.mode=never to stream only from now on, accepting the gap.");
    }

    private TableSelector selector() {
        return config.tableSelector();
    }

    private TypeMapper mapper() {
        return new TypeMapper(config.mappingOptions());
    }

    /**
     * Creates the slot and returns the snapshot it exported. When the slot already exists, a
     * snapshot was interrupted after it was made. If none of that snapshot was handed out
     * durably, the slot is made again, and with it a snapshot that the stream follows exactly.
     * Otherwise this returns null: the rest of the snapshot reads a snapshot of its own, and the
     * stream replays the changes made since the slot's position; those of transactions the new
     * snapshot already saw are dropped for the tables it reads whole, and the others land as
     * upserts on keyed tables.
     */
    private String createSlotWithSnapshot(Optional<ReplicationSlot.State> existing) throws SQLException {
        if (existing.isPresent()) {
            Map<String, Object> stored = context.offsetStorageReader().offset(ServerPartition.of(config.topicPrefix()));
            if (stored != null && Boolean.TRUE.equals(stored.get(SnapshotRun.STARTED))) {
                LOG.warn("Replication slot {} exists already (from an interrupted run): the rest of the snapshot reads a snapshot of its "
                        + "own and changes since {} are streamed again after it", config.slotName(),
                        Lsn.format(existing.get().confirmedFlush()));
                return null;
            }
            try (Connection c = PgConnect.open(endpoint, "sluice setup " + config.topicPrefix())) {
                ReplicationSlot.awaitReleased(c, config.slotName(), StreamingSetup.SLOT_RELEASE_MILLIS);
                ReplicationSlot.drop(c, config.slotName());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ConnectException("Interrupted while waiting for replication slot " + config.slotName(), e);
            }
            LOG.info("Replication slot {} was left by a run stopped before its snapshot got under way: made again", config.slotName());
        }
        slotCreator = PgConnect.openReplication(endpoint, "sluice slot " + config.topicPrefix());
        ReplicationSlot.Created created = setup.createSlot(slotCreator);
        LOG.info("Created replication slot {} at {}; the snapshot reads in its exported snapshot {}", created.name(),
                Lsn.format(created.consistentPoint()), created.snapshotName());
        return created.snapshotName();
    }

    private void createSlot() throws SQLException {
        try (Connection replication = PgConnect.openReplication(endpoint, "sluice slot " + config.topicPrefix())) {
            ReplicationSlot.Created created = setup.createSlot(replication);
            LOG.info("Created replication slot {} at {}", created.name(), Lsn.format(created.consistentPoint()));
        }
    }

    private void startStream() throws SQLException {
        closeSlotCreator();
        Map<String, String> partition = ServerPartition.of(config.topicPrefix());
        Map<String, Object> stored = context.offsetStorageReader().offset(partition);
        StreamRun.Settings settings = new StreamRun.Settings(config.topicPrefix(), config.slotName(), config.publicationName(), selector(),
                mapper(), config.statusIntervalMillis(), config.reconnectTimeoutMillis(), config.copyOnColumnChange(), setup.viaRoot(),
                signals(), config.resyncChunkRows(), config.subsetRoots());
        Connection catalog = PgConnect.open(endpoint, "sluice catalog " + config.topicPrefix());
        Connection replication = null;
        try {
            ReplicationSlot.awaitReleased(catalog, config.slotName(), StreamingSetup.SLOT_RELEASE_MILLIS);
            boolean messages = catalog.getMetaData().getDatabaseMajorVersion() >= 14;
            replication = PgConnect.openReplication(endpoint, "sluice stream " + config.topicPrefix());
            sequences = new SequenceSync(config.topicPrefix(), config.sequencesIntervalMillis(),
                    config.allSequences(), selector(), () -> PgConnect.open(endpoint,
                    "sluice sequences " + config.topicPrefix()));
            if (snapshotStarted && settings.signals() != null) {
                setup.recordSelection(catalog); // the first record: what later starts compare with
            }
            stream = new StreamRun(settings, catalog, replication, partition, Map.of(ServerPartition.STREAMING, true), stored, messages,
                    new StreamConnections(() -> PgConnect.open(endpoint, "sluice stream " + config.topicPrefix()),
                            () -> PgConnect.openReplication(endpoint, "sluice stream " + config.topicPrefix()),
                            () -> PgConnect.open(setup.writable(), "sluice table copy " + config.topicPrefix())),
                    seenBySnapshot(catalog));
            if (messages && config.heartbeatIntervalMillis() > 0 && heartbeats == null) {
                heartbeats = new HeartbeatWriter(config.topicPrefix(), () -> PgConnect.open(setup.writable(), "sluice heartbeat "
                        + config.topicPrefix()), config.heartbeatTable());
                heartbeats.start(config.heartbeatIntervalMillis());
            }
        } catch (InterruptedException e) {
            catalog.close();
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while waiting for replication slot " + config.slotName(), e);
        } catch (SQLException | RuntimeException e) {
            catalog.close();
            if (replication != null) {
                replication.close();
            }
            if (e instanceof SQLException sql && "55006".equals(sql.getSQLState())) {
                throw new ConnectException("Replication slot " + config.slotName() + " on " + endpoint.display()
                        + " is in use by another process (" + sql.getMessage() + "): is another Sluice running this pipeline?", e);
            }
            throw e;
        }
    }

    /**
     * The signal table, made when it is missing; null when requests are not taken, or when it cannot
     * be made (said once, with the statement to run).
     */
    private SignalTable signals() {
        SignalTable signals = config.signalTable();
        if (signals == null) {
            return null;
        }
        try (Connection c = PgConnect.open(setup.writable(), "sluice signals " + config.topicPrefix())) {
            Optional<String> problem = signals.ensure(c);
            if (problem.isPresent()) {
                LOG.warn("{}. Until then this pipeline takes no re-sync requests", problem.get());
                return null;
            }
            return signals;
        } catch (SQLException e) {
            LOG.warn("Cannot make the signal table {} ({}): this pipeline takes no re-sync requests", signals.name(), e.getMessage());
            return null;
        }
    }

    /**
     * The tables read whole under a snapshot other than the slot's, with what it saw: from the
     * snapshot this task ran, or else from the tables' stored offsets.
     */
    private Map<String, VisibleTransactions> seenBySnapshot(Connection catalog) throws SQLException {
        if (snapshotStarted) {
            return snapshot.seenBy();
        }
        Map<String, VisibleTransactions> seen = new HashMap<>();
        if (config.snapshotMode() == SnapshotMode.NEVER) {
            return seen;
        }
        List<SelectedTable> tables;
        try {
            tables = selector().select(catalog, catalog.getCatalog());
        } catch (ConnectException e) {
            return seen; // no table selected right now
        }
        for (SelectedTable t : tables) {
            Map<String, Object> offset = TableProgress.stored(context.offsetStorageReader()::offset, config.topicPrefix(), t.qualifiedName());
            SnapshotRun.seenBy(offset).ifPresent(v -> seen.put(t.qualifiedName(), v));
        }
        return seen;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (beyondBarriers != null) {
            throw new ConnectException(beyondBarriers);
        }
        StreamRun running = stream;
        if (running != null) {
            List<SourceRecord> records = withBarriers(heartbeatSpread.spread(running.poll(MAX_BATCH, POLL_WAIT_MILLIS)));
            SourceRecord values = sequences == null ? null : sequences.due();
            if (values != null) {
                records = new java.util.ArrayList<>(records);
                records.add(values);
            }
            return records.isEmpty() ? null : records;
        }
        if (!snapshotting) {
            Thread.sleep(POLL_WAIT_MILLIS);
            return null;
        }
        List<SourceRecord> records = snapshot.poll(MAX_BATCH, POLL_WAIT_MILLIS);
        boolean ended = !records.isEmpty() && isEndOfSnapshot(records.get(records.size() - 1));
        records = withBarriers(records);
        if (ended) {
            snapshotting = false;
            closeSlotCreator();
            if (config.snapshotMode() == SnapshotMode.INITIAL) {
                try {
                    startStream();
                } catch (SQLException e) {
                    throw PgConnect.explain(e, endpoint);
                }
            }
        }
        return records.isEmpty() ? null : records;
    }

    private List<SourceRecord> withBarriers(List<SourceRecord> records) {
        return barriers == null || records.isEmpty() ? records : barriers.withBarriers(records);
    }

    private static boolean isEndOfSnapshot(SourceRecord record) {
        return record.sourceOffset() != null && Boolean.TRUE.equals(record.sourceOffset().get(SnapshotRun.COMPLETED));
    }

    /**
     * Checks, with barriers on, that each record landed in a partition that gets them: a topic
     * with more partitions than {@code barriers.topic.partitions} would let the sink apply the
     * rows of the others out of order. (Fewer fail by themselves: a barrier cannot be written.)
     */
    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        if (barriers != null && metadata != null && metadata.partition() >= config.barrierPartitions() && beyondBarriers == null) {
            beyondBarriers = "Topic " + metadata.topic() + " has a partition " + metadata.partition() + ", but "
                    + PostgresSourceConfig.BARRIER_PARTITIONS + "=" + config.barrierPartitions() + " writes ordering barriers into "
                    + "partitions 0 to " + (config.barrierPartitions() - 1) + " only, so a Sluice sink could apply its rows out of "
                    + "order. Set " + PostgresSourceConfig.BARRIER_PARTITIONS + " to the table topics' partition count (all must "
                    + "have the same), then restart the connector";
            LOG.error(beyondBarriers);
        }
    }

    /** Called after the runtime stored offsets: the slot may release what they cover. */
    @Override
    public void commit() {
        StreamRun running = stream;
        if (running != null) {
            running.committed(context.offsetStorageReader().offset(ServerPartition.of(config.topicPrefix())));
        }
    }

    private void closeSlotCreator() {
        if (slotCreator != null) {
            try {
                slotCreator.close();
            } catch (SQLException e) {
                LOG.debug("Closing the connection that created the slot", e);
            }
            slotCreator = null;
        }
    }

    @Override
    public void stop() {
        if (heartbeats != null) {
            heartbeats.close();
        }
        if (slotHealth != null) {
            slotHealth.close();
        }
        if (snapshot != null) {
            snapshot.close();
        }
        closeSlotCreator();
        if (sequences != null) {
            sequences.close();
        }
        StreamRun running = stream;
        if (running != null) {
            running.close();
        }
        if (config != null) {
            SluiceMetrics.forget("pipeline", config.topicPrefix());
        }
    }
}
