package io.sluice.sink.postgres.copy;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.ColumnMismatch;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.batch.TunedBatchSize.Closing;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.postgres.schema.MissingColumns;
import io.sluice.sink.postgres.schema.TargetTables;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The snapshot's rows on their way into the target: gathered per target table into batches
 * bounded by the tuned batch size, sent to {@link CopyLoader} when full (the largest first when
 * all together hold two batches' worth), while the task goes on. A table created for this load
 * is loaded frozen in one transaction, so its records are held in the ledger until it commits;
 * every other batch is durable by epoch once its COPY returns. Rows of a resumed snapshot are
 * upserted on the table's key (or on a temporary unique index of the event key, before the target
 * has its keys). Where the target keeps Kafka offsets, each batch carries the runs of offsets it
 * covers, so a task that gets a partition after a crash skips exactly the rows the target has.
 */
public final class SnapshotLoads implements AutoCloseable {

    /** A partial batch older than this is sent, so that its epoch can be confirmed. */
    private static final long STALE_BATCH_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final TargetTables tables;
    private final CopyLoader loader;
    private final TunedBatchSize copyBatches;
    private final OffsetLedger ledger;
    private final MissingColumns missingColumns;
    private final boolean byKafkaOffset;
    private final Batches batches = new Batches();
    /** Targets whose columns were found to take raw tuples as they are. */
    private final Set<String[]> checkedRaw = Collections.newSetFromMap(new IdentityHashMap<>());
    private long pendingBytes;
    /** Whether tables this task created may be loaded frozen (see {@link CopyLoader#freeze}). */
    private boolean freezeLoads;
    /** Targets whose way of loading (frozen or not) is decided. */
    private final Set<String> loadDecided = new HashSet<>();
    private final ResumedRows resumed;
    /** Per partition, the batch its last covered record went into, and that record's offset. */
    private final Map<TopicPartition, Covered> lastCovered = new HashMap<>();
    /** Whether snapshot rows were sent to COPY and not yet waited for. */
    private boolean outstanding;

    /**
     * @param byKafkaOffset whether the target keeps Kafka offsets, so batches carry the runs of offsets they cover
     */
    public SnapshotLoads(TargetTables tables, CopyLoader loader, TunedBatchSize copyBatches, OffsetLedger ledger,
                         MissingColumns missingColumns, boolean byKafkaOffset) {
        this.tables = tables;
        this.loader = loader;
        this.copyBatches = copyBatches;
        this.ledger = ledger;
        this.missingColumns = missingColumns;
        this.byKafkaOffset = byKafkaOffset;
        this.resumed = new ResumedRows(tables, loader);
    }

    /** A snapshot row: gathered into its table's batch, sent when the batch is full. */
    public void row(SinkRecord record, Struct value, Struct source) throws InterruptedException {
        Struct after = value.getStruct(Envelope.AFTER);
        String[] target = tables.resolve(record.topic(), SourceInfo.schemaOf(source), SourceInfo.tableOf(source));
        hold(target, record);
        TableBatch batch = batchFor(target, after, mayExist(record) ? upsertKeys(target, ResumedRows.eventKey(record)) : null);
        long before = batch.bytes();
        batch.opened(ledger.epoch());
        batch.add(after);
        covered(record, batch);
        pendingBytes += batch.bytes() - before;
        sendIfFull(batch);
    }

    /**
     * Raw COPY tuples of one source table (the fast path): written as they are, once the target
     * is known to have the same columns with the same declared types.
     */
    public void raw(SinkRecord record, Struct value) throws InterruptedException {
        Struct source = value.getStruct(Envelope.SOURCE);
        String[] target = tables.resolve(record.topic(), SourceInfo.schemaOf(source), SourceInfo.tableOf(source));
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
        batch.opened(ledger.epoch());
        batch.addRaw(tuples, value.getInt32("rows"));
        covered(record, batch);
        pendingBytes += tuples.length;
        sendIfFull(batch);
    }

    private List<String> upsertKeys(String[] target, List<String> eventKey) throws InterruptedException {
        return resumed.upsertKeys(target, eventKey, () -> {
            sendAll();
            loader.awaitAll();
        });
    }

    private record Covered(TableBatch batch, long offset) {
    }

    /**
     * Notes that the record's row went into the batch (before the batch may be sent), where the
     * target keeps Kafka offsets. Its partition's run of offsets in the batch goes on when the
     * record the ledger took last in the partition is the one that went into this batch before:
     * any record between (a change, a schema event, a record refused) ends the run.
     */
    private void covered(SinkRecord record, TableBatch batch) {
        if (byKafkaOffset) {
            TopicPartition partition = SinkEvent.partitionOf(record);
            Covered last = lastCovered.get(partition);
            boolean continues = last != null && last.batch() == batch && ledger.nextAfterTaken(partition) == last.offset() + 1;
            batch.covers(partition, record.kafkaOffset(), continues);
            lastCovered.put(partition, new Covered(batch, record.kafkaOffset()));
        }
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
            if (!loader.isFrozen(tables.name(target))) {
                // A frozen load holds the table's lock until its last rows: adding a column would wait for it for ever.
                missingColumns.add(target, after.schema());
            }
            batch = new TableBatch(target[0], target[1], after.schema(), tables.columns(target[0], target[1]), upsertKeys);
            batches.put(target, kind, batch);
        }
        return batch;
    }

    /** Whether the row may be on the target already: its snapshot resumed an earlier one. */
    public static boolean mayExist(SinkRecord record) {
        return ResumedRows.mayExist(record);
    }

    /**
     * While frozen loads are possible, a record for a table whose load is open or not yet
     * decided is held back from what the ledger reports.
     */
    public void hold(String[] target, SinkRecord record) {
        if (!freezeLoads) {
            return;
        }
        String name = tables.name(target);
        if (loadDecided.contains(name) && !loader.isFrozen(name)) {
            return;
        }
        ledger.hold(name, SinkEvent.partitionOf(record), record.kafkaOffset());
    }

    /** Whether tables this task created for the snapshot may be loaded frozen (decided by its pre-data schema). */
    public void freezeCreatedTables(boolean freeze) {
        freezeLoads = freeze;
    }

    /** Sends the batch once it reaches the batch size; sends the largest when all together hold two batches' worth. */
    private void sendIfFull(TableBatch batch) throws InterruptedException {
        long size = copyBatches.bytes();
        if (batch.bytes() >= size) {
            // Closed only once a stream is free to take it: while every stream is busy, the tuner
            // may move on (the batch it measures ends), and a batch closed at the size it left
            // would load at that size and measure nothing.
            loader.awaitFreeStream();
            long now = copyBatches.bytes();
            if (batch.bytes() < now) {
                return; // the size grew: the batch fills on
            }
            send(batch, now < size ? Closing.EARLY : Closing.FULL); // filled past a size that shrank: not a measurement of it
            size = now;
        }
        if (pendingBytes >= 2 * size) {
            Optional<TableBatch> largest = batches.largest();
            if (largest.isPresent()) {
                send(largest.get());
            }
        }
    }

    private void send(TableBatch batch) throws InterruptedException {
        send(batch, Closing.EARLY);
    }

    private void send(TableBatch batch, Closing closing) throws InterruptedException {
        if (!batch.isEmpty() && loadDecided.add(batch.target())) {
            // A table's first rows decide: straight rows into a table created for this load go in frozen, unless it is
            // partitioned (its partitions' rows, published through it): PostgreSQL freezes no COPY into a partitioned table.
            if (freezeLoads && !batch.staged() && !tables.partitioned(batch.schema(), batch.tableName())) {
                loader.freeze(batch.target());
            } else {
                ledger.release(batch.target()); // durable once its COPYs return
            }
        }
        if (!batch.isEmpty()) {
            pendingBytes -= batch.bytes();
            outstanding = true;
            loader.submit(batch.take(loader.buffers()), copyBatches.bytes(), closing);
        }
    }

    /** Sends every open batch, without waiting. */
    public void sendAll() throws InterruptedException {
        for (TableBatch batch : batches.all()) {
            send(batch);
        }
    }

    /** Sends every open batch, commits open frozen loads, and waits for every COPY. */
    public void sendAndAwait() throws InterruptedException {
        sendAll();
        loader.commitAllFrozen();
        loader.awaitAll();
        outstanding = false;
    }

    /** Waits for every COPY sent. */
    public void awaitSent() throws InterruptedException {
        loader.awaitAll();
    }

    /** Makes every row durable (before the first streamed change): every batch sent, every frozen load committed, every hold gone. */
    public void finish() throws InterruptedException {
        sendAndAwait();
        ledger.releaseAll();
        copyBatches.keepBestSoFar();
    }

    /**
     * A table's last rows are in: its batches are sent and its frozen load commits (releasing its
     * hold); returns when its rows are committed, for its indexes and constraints to be built then.
     */
    public CompletableFuture<Void> tableDone(String[] target) throws InterruptedException {
        String name = tables.name(target);
        for (TableBatch batch : batches.of(target)) {
            send(batch);
        }
        loader.commitFrozen(name).thenRun(() -> ledger.release(name));
        return loader.loaded(name);
    }

    /**
     * Empties a table that a resumed snapshot copies again whole (it has no key to match rows
     * by): at once, before any of its new rows, and outside the streamed changes, which only
     * begin after the snapshot.
     */
    public void emptyForReload(String[] target) throws InterruptedException {
        String name = tables.name(target);
        sendAll();
        loader.commitFrozen(name);
        loader.awaitAll();
        loader.execute("TRUNCATE " + Identifiers.quote(target[0], target[1]), "Emptying " + name + " to copy it again");
    }

    /** Drops the temporary unique indexes this task made to resume, before post-data builds the real keys. */
    public void dropResumeIndexes() {
        resumed.dropOwn();
    }

    /**
     * Drops the temporary unique indexes that let resumed snapshot rows be upserted, whichever
     * task made them (on a cluster), before post-data builds the real keys.
     */
    public void dropResumeIndexes(List<String[]> loaded) {
        resumed.dropAll(loaded);
    }

    /**
     * Ends the ledger's epoch and confirms the newest durable one, without waiting: batches keep
     * filling and COPYs keep running, so the pace of offset commits does not cut batches short or
     * drain the connections. A partial batch that has waited a long time is sent, so that every
     * epoch is confirmed in the end.
     */
    public void confirmEpochs() throws InterruptedException {
        for (TableBatch batch : batches.all()) {
            if (!batch.isEmpty() && batch.ageNanos() > STALE_BATCH_NANOS) {
                send(batch);
            }
        }
        long begun = ledger.endEpoch();
        long oldest = loader.oldestUnfinishedEpoch(begun);
        for (TableBatch batch : batches.all()) {
            if (!batch.isEmpty()) {
                oldest = Math.min(oldest, batch.epoch());
            }
        }
        if (oldest == begun) {
            outstanding = false; // every row sent is committed (or held by an open frozen load)
        }
        ledger.confirmBefore(oldest);
    }

    /** Whether no snapshot rows are gathered, loading or held in an open frozen load. */
    public boolean settled() {
        return !outstanding && ledger.holdsNothing() && batches.all().stream().allMatch(TableBatch::isEmpty);
    }

    /** Opens the loader's connections ahead, while the schema is being created (each costs round trips). */
    public void openAhead() {
        loader.openAhead();
    }

    /** Runs one statement on the target, outside the loads, saying what it does when it fails. */
    public void execute(String sql, String what) {
        loader.execute(sql, what);
    }

    /** What was checked of the target's columns no longer holds (they changed). */
    public void forgetChecks() {
        checkedRaw.clear();
    }

    /** Partitions taken away: their runs of offsets end. */
    public void forget(Collection<TopicPartition> partitions) {
        partitions.forEach(lastCovered::remove);
    }

    /** Rows committed to the target so far. */
    public long rowsLoaded() {
        return loader.rowsLoaded();
    }

    /** Bytes of rows sent to the target so far, in PostgreSQL's binary format. */
    public long bytesLoaded() {
        return loader.bytesLoaded();
    }

    @Override
    public void close() {
        loader.close();
    }
}
