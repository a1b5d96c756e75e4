package io.sluice.sink.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.ObjectChanges;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.ColumnMismatch;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SequenceEvents;
import io.sluice.schemas.envelope.ValueNotes;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.naming.TopicNames;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.postgres.apply.ChangeApplier;
import io.sluice.sink.postgres.apply.ChangeTable;
import io.sluice.sink.postgres.state.KafkaOffsets;
import io.sluice.sink.postgres.apply.SequenceAdvance;
import io.sluice.sink.postgres.state.SourcePosition;
import io.sluice.sink.postgres.barrier.BarrierGate;
import io.sluice.sink.postgres.barrier.BarrierTables;
import io.sluice.sink.postgres.barrier.Subscription;
import io.sluice.sink.postgres.connections.ReplicaRole;
import io.sluice.sink.postgres.copy.Batches;
import io.sluice.sink.postgres.copy.CopyLoader;
import io.sluice.sink.postgres.copy.RowEncoder;
import io.sluice.sink.postgres.copy.TableBatch;
import io.sluice.sink.postgres.schema.AddedColumns;
import io.sluice.sink.postgres.schema.ExistingTables;
import io.sluice.sink.postgres.schema.SnapshotClaims;
import io.sluice.sink.postgres.schema.SnapshotRecords;
import io.sluice.sink.postgres.schema.SchemaApplier;
import io.sluice.sink.postgres.schema.StreamedSchemaChange;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.batch.TunedBatchSize.Closing;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.metrics.SinkMetrics;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads row events into PostgreSQL with binary COPY: each target table gathers encoded rows
 * until its batch is full, then a COPY sends them on one of several connections while the
 * task goes on. {@link #flush} returns only when every row handed over is committed.
 */
public class PostgresSinkTask extends SinkTask {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresSinkTask.class);

    private PostgresSinkConfig config;
    private TargetTables tables;
    private CopyLoader loader;
    private SchemaApplier schema;
    /** Where records that cannot be applied go, or whether they stop the task. */
    private DeadLetters deadLetters;
    private final Batches batches = new Batches();
    private final Set<String[]> checkedRaw = Collections.newSetFromMap(new IdentityHashMap<>());
    private long pendingBytes;
    private final Map<String, Target> targets = new HashMap<>();
    private final Map<String, String[]> canonicalTargets = new HashMap<>();
    /** The name ({@code schema.table}) of each canonical target, looked up by identity. */
    private final Map<String[], String> targetNames = new IdentityHashMap<>();
    /** Whether tables this task created may be loaded frozen (see {@link CopyLoader#freeze}). */
    private boolean freezeLoads;
    /** Targets whose way of loading (frozen or not) is decided. */
    private final Set<String> loadDecided = new HashSet<>();
    /**
     * Per target of an open or undecided frozen load, the first offset of each topic partition
     * that went into it: none of these records is durable before the load commits.
     */
    private final Map<String, Map<TopicPartition, Long>> holds = new ConcurrentHashMap<>();
    /** Temporary unique indexes that let a resumed snapshot upsert before the target has its keys. */
    private final Map<String, String> resumeIndexes = new LinkedHashMap<>();
    /** Which target tables an unfinished snapshot created, per source. */
    private SnapshotClaims claims;
    private SnapshotRecords snapshotRecords;
    /** Streamed changes waiting to be applied. */
    private ChangeApplier changes;
    /** Whether streamed changes have begun: the snapshot's rows are all in. */
    private volatile boolean streaming;
    /** The transaction of the last change taken, to apply batches at transaction boundaries. */
    private Object lastTransaction;
    /** Per topic partition, the offset after the last record put. */
    private final Map<TopicPartition, Long> putOffsets = new HashMap<>();
    /**
     * Per partition this task was given, the offset after the last change the target has (Kafka
     * offset positions): records below it are on the target already and are skipped.
     */
    private final Map<TopicPartition, Long> appliedUpTo = new HashMap<>();
    /**
     * Per partition this task was given, the runs of offsets whose snapshot rows are on the target
     * already (COPYs commit out of order, so one offset cannot say it); records in them are skipped.
     */
    private final Map<TopicPartition, NavigableMap<Long, Long>> loadedRuns = new HashMap<>();
    /** Per partition, the batch its last record went into, while that record went into one (the run of offsets goes on). */
    private final Map<TopicPartition, TableBatch> lastBatchOf = new HashMap<>();
    /**
     * Per partition, the source position of the newest change taken or on the target: a change
     * at or below it was sent again by a source that restarted (at least once) and is skipped.
     */
    private final Map<TopicPartition, SourcePosition> partitionPositions = new HashMap<>();
    /** The batch the record being applied went into; null when it went into none. */
    private TableBatch coveredBy;
    /** Whether the target keeps Kafka offsets (else source positions), read once: it is asked for every change. */
    private boolean byKafkaOffset;
    /** Per topic partition, the offset up to which (exclusive) every record is on the target; written by the apply thread. */
    private final Map<TopicPartition, Long> durableOffsets = new ConcurrentHashMap<>();
    /** Whether snapshot rows were sent to COPY and not yet waited for. */
    private boolean loadsOutstanding;
    private long skipped;
    /** The size snapshot COPY batches are filled to. */
    private TunedBatchSize copyBatches;
    /** The size streamed changes are applied in. */
    private TunedBatchSize applyBatches;
    private SinkMetrics metrics;
    /**
     * Snapshot rows are confirmed by epoch rather than by waiting for every COPY: each
     * {@link #preCommit} ends an epoch, remembering where each partition's records stood then; an
     * epoch is durable once no open batch or unfinished COPY holds rows from it or before it.
     */
    private long epoch;
    /** Holds partitions at ordering barriers (a source on a Kafka Connect cluster writes them). */
    private BarrierGate gate;
    /** Releases of barriers whose tables are being built in the background, until they are written. */
    private final List<CompletableFuture<Void>> releasing = new ArrayList<>();
    /** Per ended epoch, the offsets after its records, until it is durable. */
    private final TreeMap<Long, Map<TopicPartition, Long>> epochOffsets = new TreeMap<>();
    /** A partial batch older than this is sent, so that its epoch can be confirmed. */
    private static final long STALE_BATCH_NANOS = TimeUnit.SECONDS.toNanos(60);

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        config = new PostgresSinkConfig(props);
        tables = new TargetTables(config.endpoint(), config.tableNameFormat());
        copyBatches = new TunedBatchSize("snapshot COPY", config.batchTuning(), config.batchBytes());
        applyBatches = new TunedBatchSize("stream apply", config.batchTuning(), config.batchBytes());
        schema = new SchemaApplier(config.endpoint(), config.copyParallelism(), config.maintenanceWorkMem(), config.vacuum());
        AppliedPositions positions = new AppliedPositions(config.positionTable());
        claims = new SnapshotClaims(positions.schema());
        snapshotRecords = new SnapshotRecords(positions.schema());
        byKafkaOffset = config.positionsByKafkaOffset();
        KafkaOffsets offsets = byKafkaOffset ? new KafkaOffsets(positions.schema(), config.connectorName()) : null;
        loader = new CopyLoader(config.endpoint(), config.copyParallelism(), config.replicaRole(), config.loadBufferBytes(), copyBatches,
                offsets);
        gate = new BarrierGate(config.endpoint(), new BarrierTables(positions.schema(), config.connectorName()), offsets,
                Subscription.of(props));
        changes = new ChangeApplier(config.endpoint(), positions, offsets,
                new ReplicaRole(config.endpoint(), config.replicaRole()), config.applyRetryTimeoutMillis(),
                PostgresSinkConfig.APPLY_RETRY_TIMEOUT, applyBatches);
        ErrantRecordReporter reporter;
        try {
            reporter = context == null ? null : context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            reporter = null; // a worker older than Kafka 2.6
        }
        deadLetters = new DeadLetters(reporter, DeadLetterConfig.mismatchAction(config), ColumnMismatch.class::isInstance,
                System::currentTimeMillis);
        metrics = SinkMetrics.of(context);
        deadLetters.register(metrics.plugin());
        copyBatches.register(metrics.plugin(), "snapshot-copy");
        applyBatches.register(metrics.plugin(), "stream-apply");
    }

    /** The batch size in use and its tuning, for a progress display: snapshot COPYs, then streamed changes. */
    public String batchStatus() {
        return streaming ? applyBatches.status() : copyBatches.status();
    }

    /** The snapshot COPY batch size and its tuning (for tests and the benchmark's convergence path). */
    public TunedBatchSize copyBatchSize() {
        return copyBatches;
    }

    /** The streamed apply batch size and its tuning (for tests). */
    public TunedBatchSize applyBatchSize() {
        return applyBatches;
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        schema.checkFailures();
        try {
            for (SinkRecord record : records) {
                TopicPartition partition = partitionOf(record);
                if (gate.holds(partition)) {
                    continue; // held at a barrier: its records come again when it goes on
                }
                Long applied = appliedUpTo.get(partition);
                if (applied != null && record.kafkaOffset() < applied) {
                    // On the target already (delivered again after a crash or a rebalance), so durable: Connect may commit past it.
                    skipped++;
                    putOffsets.put(partition, record.kafkaOffset() + 1);
                    durableOffsets.merge(partition, record.kafkaOffset() + 1, Math::max);
                    continue;
                }
                if (inLoadedRun(partition, record.kafkaOffset())) {
                    skipped++; // a snapshot row the target has (its COPY committed before a crash or a rebalance)
                    putOffsets.put(partition, record.kafkaOffset() + 1);
                    continue;
                }
                if (Barriers.is(record.valueSchema()) && record.value() instanceof Struct barrier) {
                    if (passes(barrier.getString("id"), partition, record.kafkaOffset())) {
                        putOffsets.put(partition, record.kafkaOffset() + 1);
                    }
                    continue;
                }
                Barriers.Barrier event = record.value() == null ? null : Barriers.of(record.headers());
                if (event != null && gate.isReleased(event.id())) {
                    skipped++; // applied before a restart or a rebalance
                    putOffsets.put(partition, record.kafkaOffset() + 1);
                    continue;
                }
                if (event != null && !gate.ready(context, partition, record.kafkaOffset(), event)) {
                    continue;
                }
                coveredBy = null;
                try {
                    apply(record);
                } catch (DataException e) {
                    deadLetters.reject(record, tableOf(record), e);
                }
                if (byKafkaOffset && coveredBy == null) {
                    lastBatchOf.remove(partition); // the partition's run of offsets in its batch ends
                }
                putOffsets.put(partition, record.kafkaOffset() + 1);
            }
            applyIfDue();
            wakeForPendingChanges();
            gate.check(context);
            deadLetters.logIfDue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while loading", e);
        }
    }

    /**
     * Asks the worker to call {@link #put} again by the time the oldest pending change is due:
     * without it, a task whose topics went quiet is called only when the worker commits offsets
     * ({@code offset.flush.interval.ms}, a minute by default), and its last changes would wait
     * that long on an idle stream.
     */
    private void wakeForPendingChanges() {
        if (context == null || !changes.hasPending()) {
            return;
        }
        long due = config.applyMaxDelayMillis() - changes.pendingMillis();
        // Due but the target is still writing the batch before: look again soon, as the batch may be done by then.
        context.timeout(due > 0 ? due : Math.max(1, Math.min(config.applyMaxDelayMillis(), 10)));
    }

    /** The source table of a record ({@code schema.table}), for what is said about it; null when it names none. */
    private static String tableOf(SinkRecord record) {
        if (record.value() instanceof Struct value && value.schema().field(Envelope.SOURCE) != null
                && value.get(Envelope.SOURCE) instanceof Struct source && source.schema().field("table") != null) {
            String table = source.getString("table");
            return table == null ? null : source.getString("schema") + "." + table;
        }
        return null;
    }

    /** Notes that the record's row went into the batch (before the batch may be sent), extending its partition's run of offsets. */
    private void covered(SinkRecord record, TableBatch batch) {
        coveredBy = batch;
        if (byKafkaOffset) {
            TopicPartition partition = partitionOf(record);
            batch.covers(partition, record.kafkaOffset(), lastBatchOf.get(partition) == batch);
            lastBatchOf.put(partition, batch);
        }
    }

    private boolean inLoadedRun(TopicPartition partition, long offset) {
        NavigableMap<Long, Long> runs = loadedRuns.isEmpty() ? null : loadedRuns.get(partition);
        if (runs == null) {
            return false;
        }
        Map.Entry<Long, Long> run = runs.floorEntry(offset);
        return run != null && offset <= run.getValue();
    }

    /**
     * Whether a partition goes past a barrier record: at once when the barrier's event is applied;
     * else every row before it is made durable on the target and the partition is held there.
     */
    private boolean passes(String barrier, TopicPartition partition, long offset) {
        if (gate.isReleased(barrier)) {
            // Another task may have changed the target's tables: what this one knows of them is read again.
            if (changes.hasPending()) {
                changes.apply();
            }
            tables.invalidate();
            targets.clear();
            checkedRaw.clear();
            return true;
        }
        changes.apply();
        sendAndAwait();
        markDurable(putOffsets);
        gate.holdAtBarrier(context, partition, offset, barrier);
        return false;
    }

    private void apply(SinkRecord record) throws InterruptedException {
        if (record.value() == null) {
            return; // a tombstone: deletes are carried by the delete event before it
        }
        if (!(record.value() instanceof Struct value)) {
            throw new DataException("Record on " + record.topic() + " has no struct value; the PostgreSQL sink needs schemas "
                    + "(value.converter.schemas.enable=true with JSON)");
        }
        String valueName = record.valueSchema().name();
        if (SchemaChangeEvents.VALUE_SCHEMA.name().equals(valueName)) {
            applySchemaChange(record, value);
            return;
        }
        if (RawTuples.is(record.valueSchema())) {
            applyRaw(record, value);
            return;
        }
        if (SequenceEvents.is(record.valueSchema())) {
            advanceSequences(record, value);
            return;
        }
        if (!Envelope.isEnvelope(record.valueSchema())) {
            throw new DataException("Record on " + record.topic() + " is not a change event (schema " + valueName
                    + "); send the connector's events unflattened");
        }
        ValueNotes.restore(value, record.headers());
        String op = value.getString(Envelope.OP);
        Struct source = value.getStruct(Envelope.SOURCE);
        if (op.equals("t") && "true".equals(source.getString("snapshot"))) {
            Barriers.Barrier barrier = Barriers.of(record.headers());
            if (barrier != null) {
                emptyForReload(record, source, barrier);
            } else {
                emptyForReload(targetOf(record.topic(), source.getString("schema"), source.getString("table")));
            }
            return;
        }
        // Rows of a table copied into the stream (it joined the selection with rows) go with the changes, in their order.
        if (!op.equals("r") || "incremental".equals(source.getString("snapshot"))) {
            applyChange(record, value, op, source);
            return;
        }
        Struct after = value.getStruct(Envelope.AFTER);
        String[] target = targetOf(record.topic(), source.getString("schema"), source.getString("table"));
        hold(target, record);
        TableBatch batch = batchFor(target, after, mayExist(record) ? upsertKeys(target, eventKey(record)) : null);
        long before = batch.bytes();
        batch.opened(epoch);
        batch.add(after);
        covered(record, batch);
        pendingBytes += batch.bytes() - before;
        sendIfFull(batch);
    }

    /**
     * A streamed change: coalesced with the pending changes of its table, applied with them in
     * one target transaction. A change the target has already (at or below the source's position
     * in the position table) is skipped.
     */
    private void applyChange(SinkRecord record, Struct value, String op, Struct source) throws InterruptedException {
        String sourceName = source.getString("name");
        SourcePosition position = SourcePosition.of(value);
        if (onTargetAlready(sourceName, position)) {
            return;
        }
        if (byKafkaOffset && position != null) {
            SourcePosition newest = partitionPositions.get(partitionOf(record));
            if (newest != null && position.compareTo(newest) <= 0) {
                skipped++; // sent again by the source after its restart: this partition has it already
                return;
            }
        }
        Struct transaction = value.schema().field(Envelope.TRANSACTION) == null ? null : value.getStruct(Envelope.TRANSACTION);
        Object txId = transaction == null ? null : transaction.getString("id");
        long pending = changes.pendingBytes();
        long size = applyBatches.bytes();
        // Apply at a source transaction's boundary when a batch is full; inside a huge transaction only at twice the size.
        if (pending >= 2 * size || (pending >= size && (txId == null || !txId.equals(lastTransaction)))) {
            changes.applyInBackground(durableOnCommit(), Closing.FULL);
        }
        lastTransaction = txId;
        String[] target = targetOf(record.topic(), source.getString("schema"), source.getString("table"));
        String name = targetNames.get(target);
        Struct before = value.getStruct(Envelope.BEFORE);
        Struct after = value.getStruct(Envelope.AFTER);
        switch (op) {
            case "t" -> changes.truncate(name, target);
            case "c", "r" -> changeTable(target, name, after.schema()).insert(after);
            case "u" -> changeTable(target, name, after.schema()).update(before, after, unchangedColumns(record));
            case "d" -> {
                if (before == null) {
                    throw new DataException("A delete on " + record.topic() + " carries no old row, so the row cannot be found on "
                            + "the target. Give the source table a primary key or REPLICA IDENTITY FULL");
                }
                changeTable(target, name, before.schema()).delete(before);
            }
            default -> throw new DataException("Change event with unknown op=" + op + " on " + record.topic());
        }
        taken(record, sourceName, position);
    }

    /** Records that a change was taken: by its Kafka offset or its source position, whichever the target keeps. */
    private void taken(SinkRecord record, String sourceName, SourcePosition position) {
        if (byKafkaOffset) {
            TopicPartition partition = partitionOf(record);
            changes.takenAt(partition, record.kafkaOffset() + 1, position);
            if (position != null) {
                partitionPositions.merge(partition, position, (a, b) -> a.compareTo(b) >= 0 ? a : b);
            }
        } else {
            changes.taken(sourceName, position);
        }
    }

    private static TopicPartition partitionOf(SinkRecord record) {
        return new TopicPartition(record.topic(), record.kafkaPartition() == null ? 0 : record.kafkaPartition());
    }

    /**
     * Whether a streamed event is on the target already (at or below its source's applied
     * position), counted as skipped. The first streamed event makes the snapshot's loads durable.
     */
    private boolean onTargetAlready(String sourceName, SourcePosition position) throws InterruptedException {
        if (!streaming) {
            finishLoads();
            streaming = true;
        }
        // By Kafka offset, what the target has was skipped in put; positions from many partitions have no common order.
        if (!byKafkaOffset && position != null && changes.isApplied(sourceName, position)) {
            skipped++;
            return true;
        }
        return false;
    }

    /** The pending changes of a target, opened anew when the rows' shape changed (what was pending in the old shape is applied first). */
    private ChangeTable changeTable(String[] target, String name, org.apache.kafka.connect.data.Schema rowSchema) {
        ChangeTable table = changes.table(name);
        if (table != null && (table.rowSchema() == rowSchema || table.rowSchema().equals(rowSchema))) {
            return table;
        }
        if (table != null && !table.isEmpty()) {
            changes.apply();
        }
        addMissingColumns(target, rowSchema);
        table = new ChangeTable(target[0], target[1], rowSchema, new RowEncoder(name, rowSchema, tables.columns(target[0], target[1])),
                tables.keyColumns(target[0], target[1]));
        changes.open(table);
        return table;
    }

    /**
     * Adds to the target table, nullable, the columns the rows carry and it lacks (the source
     * added them and its DDL is not captured), unless the user keeps the target's schema.
     */
    private void addMissingColumns(String[] target, org.apache.kafka.connect.data.Schema rowSchema) {
        if (!config.schemaApply()) {
            return;
        }
        List<org.apache.kafka.connect.data.Field> missing = AddedColumns.missing(rowSchema, tables.columns(target[0], target[1]));
        if (missing.isEmpty()) {
            return;
        }
        String name = targetNames.get(target);
        String added = AddedColumns.describe(missing);
        loader.execute(AddedColumns.sql(target[0], target[1], missing), "Adding columns " + added + " to " + name);
        LOG.warn("Added {} to {}: the incoming rows carry them and the target had none (the source added them while its DDL was "
                + "not captured). They are nullable and have no default; rows the source has not changed since hold NULL there "
                + "whatever the source's default. Capture DDL (ddl.capture) for defaults, constraints and types exactly as the "
                + "source has them.", added, name);
        tables.invalidate();
        checkedRaw.clear();
    }

    private static Set<String> unchangedColumns(SinkRecord record) {
        org.apache.kafka.connect.header.Header header = record.headers().lastWithName(EventHeaders.UNCHANGED_TOAST);
        if (header == null || header.value() == null || header.value().toString().isEmpty()) {
            return Set.of();
        }
        return Set.of(header.value().toString().split(","));
    }

    /**
     * Empties a table that a resumed snapshot copies again whole (it has no key to match rows
     * by): at once, before any of its new rows, and outside the streamed changes, which only
     * begin after the snapshot.
     */
    private void emptyForReload(String[] target) throws InterruptedException {
        String name = targetNames.get(target);
        sendAll();
        loader.commitFrozen(name);
        loader.awaitAll();
        loader.execute("TRUNCATE " + Identifiers.quote(target[0], target[1]), "Emptying " + name + " to copy it again");
    }

    /**
     * Empties a table a resumed snapshot copies again, on a cluster: every row of it before the
     * barrier is in (the event waited for that), none after it yet; the emptying and the barrier's
     * release are one transaction. The event came on the schema-change topic, so its table's topic
     * is named from the source.
     */
    private void emptyForReload(SinkRecord record, Struct source, Barriers.Barrier barrier) throws InterruptedException {
        String sourceName = source.getString("name");
        String[] target = tableTarget(sourceName, source);
        sendAll();
        loader.awaitAll();
        changes.applyAlone(sourceName, null, byKafkaOffset ? Map.of(partitionOf(record), record.kafkaOffset() + 1) : Map.of(),
                "emptying " + targetNames.get(target) + " to copy it again", c -> {
                    try (Statement s = c.createStatement()) {
                        s.execute("TRUNCATE " + Identifiers.quote(target[0], target[1]));
                    }
                    gate.release(c, barrier.id());
                });
        gate.released(barrier.id());
    }

    /** The target of the table a schema event names, whose topic is named from the source. */
    private String[] tableTarget(String sourceName, Struct source) {
        String schemaName = source.getString("schema");
        String table = source.getString("table");
        return targetOf(TopicNames.forTable(sourceName, schemaName, table), schemaName, table);
    }

    /** Makes every snapshot row durable before the first streamed change, and reads the target's keys again (post-data made them). */
    private void finishLoads() throws InterruptedException {
        sendAll();
        loader.commitAllFrozen();
        loader.awaitAll();
        loadsOutstanding = false;
        holds.clear();
        tables.invalidate();
    }

    /** The target of events from one source table, resolved once rather than per row. */
    private String[] targetOf(String topic, String schema, String table) {
        Target cached = targets.get(topic);
        if (cached == null || !cached.schema().equals(schema) || !cached.table().equals(table)) {
            String[] resolved = tables.targetOf(topic, schema, table);
            // One array per target table, whichever topic named it: open batches are found by identity.
            String[] fresh = resolved;
            resolved = canonicalTargets.computeIfAbsent(resolved[0] + "\0" + resolved[1], k -> {
                targetNames.put(fresh, fresh[0] + "." + fresh[1]);
                return fresh;
            });
            cached = new Target(schema, table, resolved);
            targets.put(topic, cached);
        }
        return cached.target();
    }

    private record Target(String schema, String table, String[] target) {
    }

    /**
     * The columns to upsert a resumed row on: the target's key, or, while the target has none
     * yet (its keys come with post-data), the event key's columns, backed by a temporary unique
     * index that is dropped before post-data builds the real one. Null for a keyless event.
     */
    private List<String> upsertKeys(String[] target, List<String> eventKey) throws InterruptedException {
        List<String> keys = tables.keyColumns(target[0], target[1]);
        if (!keys.isEmpty()) {
            return keys;
        }
        if (eventKey.isEmpty()) {
            return null;
        }
        String table = Identifiers.quote(target[0], target[1]);
        if (!resumeIndexes.containsKey(table)) {
            String index = "sluice_resume_" + Integer.toHexString(table.hashCode());
            sendAll();
            loader.awaitAll();
            String create = "CREATE UNIQUE INDEX IF NOT EXISTS " + Identifiers.quote(index) + " ON " + table + " ("
                    + String.join(", ", eventKey.stream().map(Identifiers::quote).toList()) + ")";
            // On a cluster, tasks resuming the same table make the same index: one at a time, the others find it there.
            loader.execute("DO $$BEGIN PERFORM pg_advisory_xact_lock(hashtext(" + Identifiers.literal(table) + ")); EXECUTE "
                    + Identifiers.literal(create) + "; END$$", "Indexing " + table + " to resume");
            resumeIndexes.put(table, Identifiers.quote(target[0], index));
        }
        return eventKey;
    }

    private static List<String> eventKey(SinkRecord record) {
        if (record.keySchema() == null || record.keySchema().type() != org.apache.kafka.connect.data.Schema.Type.STRUCT) {
            return List.of();
        }
        return record.keySchema().fields().stream().map(org.apache.kafka.connect.data.Field::name).toList();
    }

    private static boolean mayExist(SinkRecord record) {
        org.apache.kafka.connect.header.Header resumed = record.headers().lastWithName(EventHeaders.SNAPSHOT_RESUMED);
        return resumed != null && Boolean.TRUE.equals(resumed.value());
    }

    /**
     * Raw COPY tuples of one source table (the fast path): written as they are, once the target
     * is known to have the same columns with the same declared types.
     */
    private void applyRaw(SinkRecord record, Struct value) throws InterruptedException {
        Struct source = value.getStruct("source");
        String[] target = targetOf(record.topic(), source.getString("schema"), source.getString("table"));
        hold(target, record);
        List<String> columns = value.getArray("columns");
        List<String> types = value.getArray("types");
        checkRawTarget(target, columns, types);
        List<String> upsert = mayExist(record) ? upsertKeys(target, value.getArray("key")) : null;
        Batches.Kind kind = upsert != null ? Batches.Kind.RAW_UPSERT : Batches.Kind.RAW;
        TableBatch batch = batches.get(target, kind);
        if (batch == null || !columns.equals(batch.rawColumns())) {
            if (batch != null) {
                send(batch);
            }
            batch = TableBatch.raw(target[0], target[1], columns, upsert);
            batches.put(target, kind, batch);
        }
        byte[] tuples = value.getBytes("tuples");
        batch.opened(epoch);
        batch.addRaw(tuples, value.getInt32("rows"));
        covered(record, batch);
        pendingBytes += tuples.length;
        sendIfFull(batch);
    }

    private void checkRawTarget(String[] target, List<String> columns, List<String> types) {
        if (checkedRaw.contains(target)) {
            return;
        }
        List<ColumnMapping> targetColumns = tables.columns(target[0], target[1]);
        for (int i = 0; i < columns.size(); i++) {
            String name = columns.get(i);
            ColumnMapping column = targetColumns.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
            if (column == null || column.column().generated() || !column.column().declaredType().equals(types.get(i))) {
                throw new ColumnMismatch("Raw rows of " + target[0] + "." + target[1] + " cannot be written: column " + name + " is "
                        + types.get(i) + " at the source but " + (column == null ? "missing" : column.column().declaredType()
                        + (column.column().generated() ? " (generated)" : "")) + " on the target. Make the tables match, or set "
                        + "snapshot.raw.tuples=false on the source");
            }
        }
        checkedRaw.add(target);
    }

    /**
     * @param upsertKeys the key to upsert on when the row may already be on the target (a resumed
     *                   snapshot); null to insert
     */
    private TableBatch batchFor(String[] target, Struct after, List<String> upsertKeys) throws InterruptedException {
        Batches.Kind kind = upsertKeys != null ? Batches.Kind.UPSERT : Batches.Kind.INSERT;
        TableBatch batch = batches.get(target, kind);
        if (batch != null && !batch.rowSchema().equals(after.schema())) {
            // The rows' shape changed: what is gathered goes out in the old shape first.
            send(batch);
            batch = null;
        }
        if (batch == null) {
            if (!loader.isFrozen(targetNames.get(target))) {
                // A frozen load holds the table's lock until its last rows: adding a column would wait for it for ever.
                addMissingColumns(target, after.schema());
            }
            batch = new TableBatch(target[0], target[1], after.schema(), tables.columns(target[0], target[1]), upsertKeys);
            batches.put(target, kind, batch);
        }
        return batch;
    }

    /**
     * While frozen loads are possible, a record for a table whose load is open or not yet
     * decided is held back from the offsets {@link #preCommit} confirms.
     */
    private void hold(String[] target, SinkRecord record) {
        if (!freezeLoads) {
            return;
        }
        String name = targetNames.get(target);
        if (loadDecided.contains(name) && !loader.isFrozen(name)) {
            return;
        }
        Map<TopicPartition, Long> held = holds.computeIfAbsent(name, t -> new ConcurrentHashMap<>());
        int partition = record.kafkaPartition() == null ? 0 : record.kafkaPartition();
        for (TopicPartition tp : held.keySet()) {
            if (tp.partition() == partition && tp.topic().equals(record.topic())) {
                return; // the first record of this partition is held already, and it is the one that counts
            }
        }
        held.put(new TopicPartition(record.topic(), partition), record.kafkaOffset());
    }

    /**
     * A snapshot opens with its pre-data schema and closes with the rest of its post-data
     * schema; in between, after each table's rows, come that table's indexes and constraints,
     * built in the background as soon as its rows are committed.
     */
    private void applySchemaChange(SinkRecord record, Struct value) throws InterruptedException {
        Struct source = value.getStruct(Envelope.SOURCE);
        String marker = source.getString("snapshot");
        String ddl = value.getString("ddl");
        boolean tolerateExisting = config.tableExists() != ExistingTables.FAIL || mayExist(record);
        Barriers.Barrier barrier = Barriers.of(record.headers());
        if (barrier == null && byKafkaOffset && config.schemaApply()) {
            throw new ConnectException("The schema event on " + record.topic() + " (offset " + record.kafkaOffset() + ") carries no ordering "
                    + "barrier. On a Kafka Connect cluster rows and schema events travel on different topics and partitions, so the "
                    + "sink cannot apply them in the source's order without barriers: set barriers.topic.partitions on the Sluice "
                    + "source connector to the table topics' partition count. (Or set " + PostgresSinkConfig.SCHEMA_APPLY
                    + "=false to keep the target's schema yourself.)");
        }
        if (barrier != null) {
            applyAtBarrier(record, value, source, marker, ddl, barrier);
            return;
        }
        if ("first".equals(marker)) {
            // Connections opened meanwhile, as the schema is created: each costs round trips.
            loader.openAhead();
            schema.openAhead();
            if (config.schemaApply() && ddl != null) {
                freezeLoads = schema.applyPreData(ddl, loadedTables(value), config.tableExists(), claims, source.getString("name"))
                        && config.freeze();
                tables.invalidate();
            }
            schema.snapshotStarted(snapshotRecords, snapshotMark(value, source));
        } else if ("last_in_data_collection".equals(marker)) {
            String[] target = targetOf(record.topic(), source.getString("schema"), source.getString("table"));
            String name = targetNames.get(target);
            hold(target, record);
            for (TableBatch batch : batches.of(target)) {
                send(batch);
            }
            loader.commitFrozen(name).thenRun(() -> holds.remove(name));
            schema.buildTable(target, loader.loaded(name), config.schemaApply() ? ddl : null, tolerateExisting);
        } else if ("last".equals(marker)) {
            sendAll();
            loader.commitAllFrozen();
            loader.awaitAll();
            holds.clear();
            LOG.info("Snapshot rows loaded: {} rows, {} bytes", loader.rowsLoaded(), loader.bytesLoaded());
            for (String index : resumeIndexes.values()) {
                loader.execute("DROP INDEX IF EXISTS " + index, "Dropping the resume index " + index);
            }
            resumeIndexes.clear();
            schema.applyPostData(config.schemaApply() ? ddl : null, loadedTables(value), tolerateExisting);
            // Post-data made the keys that streamed changes find rows by.
            tables.invalidate();
            schema.snapshotFinished(claims, snapshotRecords, snapshotMark(value, source));
        } else if (marker == null || "false".equals(marker)) {
            applyStreamedSchemaChange(record, value, source, ddl, null);
        }
    }

    /**
     * A schema event on a cluster, once every partition of its barrier has arrived: every row
     * before it, of every task, is on the target, and none after it. The barrier is released when
     * the event's work is committed (in the same transaction where the work has one), and the
     * partitions held at it go on. Loads are never frozen here: a table's rows come through many
     * tasks' transactions.
     */
    private void applyAtBarrier(SinkRecord record, Struct value, Struct source, String marker, String ddl, Barriers.Barrier barrier)
            throws InterruptedException {
        String sourceName = source.getString("name");
        freezeLoads = false;
        if ("first".equals(marker)) {
            loader.openAhead();
            schema.openAhead();
            if (config.schemaApply() && ddl != null) {
                schema.applyPreData(ddl, loadedTables(value), config.tableExists(), claims, sourceName);
                tables.invalidate();
            }
            schema.snapshotStarted(snapshotRecords, snapshotMark(value, source));
            gate.release(barrier.id());
        } else if ("last_in_data_collection".equals(marker)) {
            String[] target = tableTarget(sourceName, source);
            // Its rows are all committed (each partition arrived after its own); built in the background, released when built.
            String held = "barrier " + barrier.id();
            holds.computeIfAbsent(held, k -> new ConcurrentHashMap<>()).put(partitionOf(record), record.kafkaOffset());
            CompletableFuture<Void> release = schema.buildTable(target, CompletableFuture.completedFuture(null),
                    config.schemaApply() ? ddl : null, true).thenRun(() -> {
                        gate.releaseElsewhere(barrier.id());
                        holds.remove(held);
                    });
            synchronized (releasing) {
                releasing.add(release);
            }
        } else if ("last".equals(marker)) {
            sendAll();
            loader.awaitAll();
            List<CompletableFuture<Void>> pending;
            synchronized (releasing) {
                pending = List.copyOf(releasing);
                releasing.clear();
            }
            for (CompletableFuture<Void> release : pending) {
                release.join();
            }
            schema.checkFailures();
            List<String[]> loaded = loadedTables(value);
            dropResumeIndexes(loaded);
            schema.applyPostData(config.schemaApply() ? ddl : null, loaded, true);
            tables.invalidate();
            schema.snapshotFinished(claims, snapshotRecords, snapshotMark(value, source));
            gate.release(barrier.id());
            LOG.info("Snapshot of {} applied: post-data built once every partition had its rows in", sourceName);
        } else if (marker == null || "false".equals(marker)) {
            applyStreamedSchemaChange(record, value, source, ddl, barrier);
        } else {
            gate.release(barrier.id());
        }
    }

    /**
     * Drops the temporary unique indexes that let resumed snapshot rows be upserted, whichever
     * task made them, before post-data builds the real keys.
     */
    private void dropResumeIndexes(List<String[]> loaded) {
        if (loaded.isEmpty()) {
            return;
        }
        String names = String.join(", ", loaded.stream().map(t -> "to_regclass(" + Identifiers.literal(Identifiers.quote(t[0], t[1])) + ")").toList());
        loader.execute("DO $$DECLARE i regclass; BEGIN FOR i IN SELECT x.indexrelid::regclass FROM pg_index x JOIN pg_class c "
                + "ON c.oid = x.indexrelid WHERE c.relname LIKE 'sluice\\_resume\\_%' AND x.indrelid IN (" + names + ") LOOP "
                + "EXECUTE 'DROP INDEX IF EXISTS ' || i; END LOOP; END$$", "Dropping the indexes that let the snapshot resume");
        resumeIndexes.clear();
    }

    /**
     * A schema change from the stream: what came before it is applied first, then the change
     * in a target transaction of its own that also moves the position, so the rows after it
     * find the new shape and a restart does not apply it twice.
     */
    private void applyStreamedSchemaChange(SinkRecord record, Struct value, Struct source, String ddl, Barriers.Barrier barrier)
            throws InterruptedException {
        String sourceName = source.getString("name");
        SourcePosition position = SourcePosition.of(value);
        if (onTargetAlready(sourceName, position)) {
            return;
        }
        Map<TopicPartition, Long> next = Map.of();
        if (byKafkaOffset) {
            next = Map.of(partitionOf(record), record.kafkaOffset() + 1);
            position = null; // the offset says it; source positions of many partitions have no common order
        }
        List<SchemaChangeEvents.TableChange> tableChanges = SchemaChangeEvents.tableChanges(value);
        if (!config.schemaApply()) {
            LOG.info("Schema change of {} not applied ({}=false): {}", tableChanges.stream().map(SchemaChangeEvents.TableChange::id).toList(),
                    PostgresSinkConfig.SCHEMA_APPLY, ddl);
            changes.applyAlone(sourceName, position, next, "a schema change position", c -> released(c, barrier));
            noteReleased(barrier);
            return;
        }
        // The source's name is its topic prefix, which names the tables' topics.
        changes.applyAlone(sourceName, position, next, "schema change \"" + ddl + "\"", c -> {
            StreamedSchemaChange.apply(c, tableChanges, ObjectChanges.of(value), ddl,
                    t -> tables.targetOf(TopicNames.forTable(sourceName, t[0], t[1]), t[0], t[1]));
            released(c, barrier);
        });
        noteReleased(barrier);
        tables.invalidate();
        targets.clear();
        checkedRaw.clear();
    }

    /** Releases the barrier, if any, in the transaction of its event's work. */
    private void released(Connection c, Barriers.Barrier barrier) throws SQLException {
        if (barrier != null) {
            gate.release(c, barrier.id());
        }
    }

    private void noteReleased(Barriers.Barrier barrier) {
        if (barrier != null) {
            gate.released(barrier.id());
        }
    }

    /**
     * Moves the target's sequences forward to the source's values, at once and outside the
     * changes' transactions: a sequence only moves forward, so it needs no order with the rows.
     */
    private void advanceSequences(SinkRecord record, Struct value) {
        List<SequenceEvents.Value> values = SequenceEvents.values(value);
        String sql = SequenceAdvance.sql(values);
        if (sql != null) {
            try {
                loader.execute(sql, "Moving " + values.size() + " sequences forward to the source's values");
            } catch (ConnectException e) {
                // The next values come within sequences.interval.ms and carry these; rows must not wait for them.
                LOG.warn("{}; the next values the source sends move them", e.getMessage());
            }
        }
        durableOffsets.merge(partitionOf(record), record.kafkaOffset() + 1, Math::max);
    }

    /** What the target records of the snapshot a first or last event frames: its source, time and tables. */
    private SchemaApplier.SnapshotMark snapshotMark(Struct value, Struct source) {
        List<String> sourceTables = new ArrayList<>();
        for (Struct change : value.<Struct>getArray("tableChanges")) {
            sourceTables.add(change.getString("id"));
        }
        List<String> targetTables = loadedTables(value).stream().map(t -> Identifiers.quote(t[0], t[1])).toList();
        Long micros = source.getInt64("ts_us");
        return new SchemaApplier.SnapshotMark(source.getString("name"), source.getString("db"),
                micros != null ? micros : source.getInt64("ts_ms") * 1000L, sourceTables, targetTables);
    }

    /** The target tables of the tables a schema event lists. */
    private List<String[]> loadedTables(Struct value) {
        List<String[]> loaded = new ArrayList<>();
        for (Struct change : value.<Struct>getArray("tableChanges")) {
            String[] source = Identifiers.unquoteQualified(change.getString("id"));
            loaded.add(tables.targetOf("", source[0], source[1]));
        }
        return loaded;
    }

    /** Sends the batch once it reaches the batch size; sends the largest when all together hold two batches' worth. */
    private void sendIfFull(TableBatch batch) throws InterruptedException {
        long size = copyBatches.bytes();
        if (batch.bytes() >= size) {
            send(batch, Closing.FULL);
        }
        if (pendingBytes >= 2 * size) {
            sendLargest();
        }
    }

    private void send(TableBatch batch) throws InterruptedException {
        send(batch, Closing.EARLY);
    }

    private void send(TableBatch batch, Closing closing) throws InterruptedException {
        if (!batch.isEmpty() && loadDecided.add(batch.target())) {
            // A table's first rows decide: straight rows into a table created for this load go in frozen.
            if (freezeLoads && !batch.staged()) {
                loader.freeze(batch.target());
            } else {
                holds.remove(batch.target()); // durable once its COPYs return
            }
        }
        if (!batch.isEmpty()) {
            pendingBytes -= batch.bytes();
            loadsOutstanding = true;
            loader.submit(batch.take(), copyBatches.bytes(), closing);
        }
    }

    private void sendLargest() throws InterruptedException {
        Optional<TableBatch> largest = batches.largest();
        if (largest.isPresent()) {
            send(largest.get());
        }
    }

    private void sendAll() throws InterruptedException {
        for (TableBatch batch : batches.all()) {
            send(batch);
        }
    }

    /** Makes every row handed over durable, committing open frozen loads. */
    @Override
    public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        changes.apply();
        sendAndAwait();
        holds.clear();
        markDurable(putOffsets);
    }

    /** Sends every open batch, commits open frozen loads, and waits for every COPY. */
    private void sendAndAwait() {
        schema.checkFailures();
        try {
            sendAll();
            loader.commitAllFrozen();
            loader.awaitAll();
            loadsOutstanding = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while flushing", e);
        }
    }

    /**
     * The offsets up to which every record is on the target. It never waits for the target:
     * while only streamed changes are coming, it starts applying what has waited long enough and
     * returns what earlier target transactions made durable. While snapshot rows are loading, it
     * returns the offsets of the newest epoch whose batches are all committed (see
     * {@link #durableSnapshotOffsets}), and no further than the first record of each frozen load
     * still open: its rows become durable all at once when the table's last rows are in. Open
     * loads stay open, so their tables keep loading frozen.
     */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        if (streaming && loadsSettled()) {
            schema.checkFailures();
            if (!changes.hasPending()) {
                changes.applyInBackground(durableOnCommit());
            } else {
                applyIfDue();
            }
            Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
            currentOffsets.forEach((tp, current) -> {
                Long durable = durableOffsets.get(tp);
                if (durable != null) {
                    safe.put(tp, durable >= current.offset() ? current : new OffsetAndMetadata(durable, current.metadata()));
                }
            });
            return safe;
        }
        changes.apply();
        Map<TopicPartition, OffsetAndMetadata> safe = durableSnapshotOffsets(currentOffsets);
        for (Map<TopicPartition, Long> held : holds.values()) {
            held.forEach((tp, first) -> safe.computeIfPresent(tp, (k, current) -> current.offset() <= first ? current
                    : new OffsetAndMetadata(first, current.metadata())));
        }
        Map<TopicPartition, Long> upTo = new HashMap<>();
        safe.forEach((tp, offset) -> upTo.put(tp, offset.offset()));
        markDurable(upTo);
        return safe;
    }

    /**
     * Ends an offset epoch and returns the offsets of the newest durable one, without waiting:
     * batches keep filling and COPYs keep running, so the pace of offset commits does not cut
     * batches short or drain the connections. A partial batch that has waited a long time is
     * sent, so that every epoch is confirmed in the end.
     */
    private Map<TopicPartition, OffsetAndMetadata> durableSnapshotOffsets(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        schema.checkFailures();
        long oldest;
        try {
            for (TableBatch batch : batches.all()) {
                if (!batch.isEmpty() && batch.ageNanos() > STALE_BATCH_NANOS) {
                    send(batch);
                }
            }
            epochOffsets.put(epoch, Map.copyOf(putOffsets));
            epoch++;
            oldest = loader.oldestUnfinishedEpoch(epoch);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while confirming loaded rows", e);
        }
        for (TableBatch batch : batches.all()) {
            if (!batch.isEmpty()) {
                oldest = Math.min(oldest, batch.epoch());
            }
        }
        if (oldest == epoch) {
            loadsOutstanding = false; // every row sent is committed (or held by an open frozen load)
        }
        Map.Entry<Long, Map<TopicPartition, Long>> durable = epochOffsets.floorEntry(oldest - 1);
        epochOffsets.headMap(oldest - 1).clear();
        Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
        if (durable == null) {
            return safe;
        }
        currentOffsets.forEach((tp, current) -> {
            Long upTo = durable.getValue().get(tp);
            if (upTo != null) {
                safe.put(tp, upTo >= current.offset() ? current : new OffsetAndMetadata(upTo, current.metadata()));
            }
        });
        return safe;
    }

    /**
     * Starts applying the pending changes once the oldest has waited the apply delay, unless the
     * target is still writing the batch before: then they keep gathering (group commit), and go
     * in one larger transaction when it is done, or when they reach the batch size.
     */
    private void applyIfDue() {
        if (changes.pendingMillis() >= config.applyMaxDelayMillis() && !changes.applying()) {
            changes.applyInBackground(durableOnCommit(), Closing.TIMEOUT);
        }
    }

    /** Whether no snapshot rows are gathered, loading or held in an open frozen load. */
    private boolean loadsSettled() {
        return !loadsOutstanding && holds.isEmpty() && batches.all().stream().allMatch(TableBatch::isEmpty);
    }

    /**
     * What to do once the changes taken so far are committed: mark every record put so far as
     * durable. Nothing, while snapshot rows are loading: those become durable by their own COPYs.
     */
    private Runnable durableOnCommit() {
        if (!loadsSettled()) {
            return () -> { };
        }
        Map<TopicPartition, Long> upTo = Map.copyOf(putOffsets);
        return () -> markDurable(upTo);
    }

    private void markDurable(Map<TopicPartition, Long> upTo) {
        upTo.forEach((tp, offset) -> durableOffsets.merge(tp, offset, Math::max));
    }

    /**
     * Partitions given to this task (at start or in a rebalance). With Kafka offset positions,
     * each resumes right after the last change the target has, which may be past what Kafka
     * Connect committed (a crash between the target's commit and Connect's).
     */
    @Override
    public void open(Collection<TopicPartition> partitions) {
        gate.opened(context, partitions);
        if (!byKafkaOffset || partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> applied = changes.appliedOffsets(partitions);
        partitionPositions.putAll(changes.appliedPartitionPositions(partitions));
        changes.loadedRuns(partitions).forEach((tp, runs) -> {
            Long next = applied.get(tp);
            if (next != null) {
                runs.headMap(next).entrySet().removeIf(run -> run.getValue() < next); // below the partition's offset anyway
            }
            if (!runs.isEmpty()) {
                loadedRuns.put(tp, runs);
            }
        });
        if (!loadedRuns.isEmpty()) {
            LOG.info("Snapshot rows the target has already are skipped in {} partition(s)", loadedRuns.size());
        }
        if (!applied.isEmpty()) {
            appliedUpTo.putAll(applied);
            context.offset(applied);
            LOG.info("Resuming {} partition(s) after the changes the target has: {}", applied.size(), applied);
        }
    }

    /**
     * Partitions taken away (a rebalance, or the task stopping). Every record of them put so far
     * is written first, with its offsets: the task that gets them next reads where the target is
     * and starts after it, so a row still in a batch here must not be left to go in later, after
     * that task has applied it again. Then what this task knew of them no longer holds.
     */
    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (byKafkaOffset && !partitions.isEmpty()) {
            changes.apply();
            sendAndAwait();
        }
        gate.closed(partitions);
        for (TopicPartition tp : partitions) {
            putOffsets.remove(tp);
            durableOffsets.remove(tp);
            appliedUpTo.remove(tp);
            loadedRuns.remove(tp);
            lastBatchOf.remove(tp);
            partitionPositions.remove(tp);
        }
    }

    /** Rows committed to the target so far. */
    public long rowsLoaded() {
        return loader.rowsLoaded();
    }

    /** Bytes of rows sent to the target so far, in PostgreSQL's binary format. */
    public long bytesLoaded() {
        return loader.bytesLoaded();
    }

    /** Streamed changes applied so far (after coalescing within batches, each counted once per change taken). */
    public long changesApplied() {
        return changes.rowsApplied();
    }

    /** Streamed changes skipped because the target had them already. */
    public long changesSkipped() {
        return skipped;
    }

    @Override
    public void stop() {
        if (deadLetters != null) {
            deadLetters.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (changes != null) {
            changes.close();
        }
        if (loader != null) {
            loader.close();
        }
        if (schema != null) {
            schema.close();
        }
        if (tables != null) {
            tables.close();
        }
        if (gate != null) {
            gate.close();
        }
    }
}
