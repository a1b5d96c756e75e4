package io.sluice.sink.opensearch;

import java.io.IOException;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.core.routing.SinkWriter;
import io.sluice.sink.opensearch.bulk.BulkBatch;
import io.sluice.sink.opensearch.bulk.BulkQueue;
import io.sluice.sink.opensearch.bulk.DocumentIds;
import io.sluice.sink.opensearch.bulk.ExternalVersion;
import io.sluice.sink.opensearch.index.IndexNames;
import io.sluice.sink.opensearch.index.Indexes;
import io.sluice.sink.opensearch.mapping.DocumentValues;
import io.sluice.sink.opensearch.state.HeartbeatDocuments;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The OpenSearch sink's {@link SinkWriter}: every row event becomes a versioned write in a
 * {@code _bulk} request (index for inserts, updates and snapshot rows; delete for deletes; both
 * for an update that changes the key), requests go out when full or due, several at once, and
 * what each made durable is told to the ledger once it and every one before it are written
 * ({@link BulkQueue}). Order comes from the external versions
 * ({@link ExternalVersion}), not from the order requests finish in.
 */
final class OpenSearchWriter implements SinkWriter {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OpenSearchWriter.class);

    private final OpenSearchSinkConfig config;
    private final Indexes indexes;
    private final SnapshotMarks snapshots;
    private final BarrierGate gate;
    private final IndexNames names;
    private final DocumentValues values;
    private final BulkQueue queue;
    private final HeartbeatDocuments heartbeats;
    /** Rows left out as older than the rebuild of their index (replays). */
    private long leftOut;

    OpenSearchWriter(OpenSearchSinkConfig config, Indexes indexes, SnapshotMarks snapshots, BarrierGate gate, BulkQueue queue,
                     HeartbeatDocuments heartbeats) {
        this.heartbeats = heartbeats;
        this.config = config;
        this.snapshots = snapshots;
        this.gate = gate;
        this.indexes = indexes;
        this.names = new IndexNames(config.indexNameFormat());
        this.values = new DocumentValues(config.mappingOptions());
        this.queue = queue;
        this.sweeps = new DocumentSweeps(indexes, queue, config.bulkDocuments());
    }

    @Override
    public void write(SinkEvent event) throws InterruptedException {
        switch (event.kind()) {
            case TOMBSTONE, SEQUENCES -> {
                // a tombstone follows the delete that carries the change; sequences have no place in an index
            }
            case RAW_ROWS -> throw new DataException("Raw COPY tuples of " + event.table() + " reached the OpenSearch sink; they are "
                    + "for PostgreSQL targets only: set snapshot.raw.tuples=false on the source");
            case RELOAD -> reload(event);
            case SNAPSHOT_ROW, CHANGE -> row(event);
            case HEARTBEAT -> heartbeat(event);
            case KEY_RANGE -> keyRange(event);
            default -> throw new DataException("Event " + event.kind() + " is not one the OpenSearch sink writes");
        }
    }

    /** The end of a re-synced chunk, after its rows: the documents of its range it does not keep go ({@link DocumentSweeps#keyRange}). */
    private void keyRange(SinkEvent event) throws InterruptedException {
        String alias = names.name(event.source().getString("schema"), event.source().getString("table"), event.tableTopic());
        String index = indexes.writeIndexOf(alias);
        if (index != null) {
            writeAll();
            sweeps.keyRange(event, alias, index);
        }
    }

    private final DocumentSweeps sweeps;

    /** A heartbeat goes into the bulk request with the documents around it: durable once the cluster took that request. */
    private void heartbeat(SinkEvent event) throws InterruptedException {
        String source = event.value().getString("name");
        long millis = Heartbeats.commitMillis(event.value());
        batch().index(event.record(), "heartbeats", heartbeats.index(), HeartbeatDocuments.id(source), null, new ExternalVersion(millis, true),
                out -> HeartbeatDocuments.write(out, source, millis));
        sendIfFull();
    }

    private void row(SinkEvent event) throws InterruptedException {
        Struct value = event.value();
        Operation op = event.op();
        String table = event.table();
        Schema rowSchema = value.schema().field(Envelope.AFTER).schema();
        String alias = names.name(event.source().getString("schema"), event.source().getString("table"), event.tableTopic());
        if (op == Operation.TRUNCATE && event.copiedIntoStream()) {
            // A copy of the table into the stream begins: the schema event before it began the new index version its rows go
            // to. The same copy again (a replay) changes nothing; another copy (the source copied the table over after a
            // restart) builds a version of its own, as its rows carry the version of the earlier copy's.
            writeAll();
            Long copy = event.source().getInt64("ts_us");
            indexes.copyBegins(alias, table, copy == null ? 0 : copy);
            return;
        }
        SourcePosition position = event.kind() == SinkEvent.Kind.SNAPSHOT_ROW ? null : event.position();
        ExternalVersion version = position != null ? ExternalVersion.of(position)
                : event.copiedIntoStream() ? ExternalVersion.COPY : ExternalVersion.SNAPSHOT;
        String index = indexes.writeIndex(alias, rowSchema, table, version.value());
        if (index == null) {
            leftOut++; // older than the rebuild of its index, whose copy holds the row as it is now
            return;
        }
        if (op == Operation.TRUNCATE) {
            if (config.truncateAction() == OpenSearchSinkConfig.TruncateAction.DELETE_DOCUMENTS) {
                truncate(event, alias, index, table);
            }
            return;
        }
        SinkRecord record = event.record();
        Struct after = value.getStruct(Envelope.AFTER);
        Struct before = value.getStruct(Envelope.BEFORE);
        String id = DocumentIds.of(key(record, table));
        if (op == Operation.DELETE) {
            batch().delete(record, table, index, id, position, version);
        } else {
            String oldId = op == Operation.UPDATE && before != null ? DocumentIds.of(keyOf(before, record, table)) : id;
            Set<String> unchanged = EventHeaders.unchangedToast(record.headers());
            if (unchanged.isEmpty()) {
                batch().index(record, table, index, id, position, version, out -> values.write(after, Set.of(), out));
            } else {
                indexWithStoredValues(record, table, index, oldId, id, position, version, after, unchanged);
            }
            if (!oldId.equals(id)) {
                batch().delete(record, table, index, oldId, position, version);
            }
        }
        sendIfFull();
    }

    /**
     * A change whose row kept some TOASTed values unchanged (PostgreSQL does not send them): the
     * document is written whole, those fields taken from what the index stores, read once every
     * write before it has settled. A key change finds them under the old id; when that is gone
     * (the change comes again after a restart) under the new one, whose newer version then wins.
     */
    private void indexWithStoredValues(SinkRecord record, String table, String index, String oldId, String id, SourcePosition position,
                                       ExternalVersion version, Struct after, Set<String> unchanged) throws InterruptedException {
        writeAll();
        JsonNode atOld = indexes.source(index, oldId);
        JsonNode stored = atOld == null && !oldId.equals(id) ? indexes.source(index, id) : atOld;
        if (stored == null) {
            if (supersededByDelete(record, table, index, oldId, position, version)) {
                return; // sent again after a restart: a later delete or key change removed the document
            }
            throw new DataException("The change of " + table + " document " + id + " at " + position + " leaves columns "
                    + unchanged + " as they were, but the index has no document to take them from, and no newer write removed it; "
                    + "copy the table again (sluice run --fresh copies every table again)");
        }
        batch().index(record, table, index, id, position, version, out -> {
            out.writeStartObject();
            for (Field field : after.schema().fields()) {
                out.writeFieldName(field.name());
                if (unchanged.contains(field.name())) {
                    out.writeTree(stored.get(field.name()));
                } else {
                    values.writeValue(field.schema(), after.get(field), out);
                }
            }
            out.writeEndObject();
        });
    }

    /**
     * Whether the index removed the document with a write newer than this change: a delete with
     * the change's version is refused as older when the index still holds the version of that
     * write ({@code index.gc_deletes}). Otherwise the delete marks the missing document with this
     * version, which changes nothing.
     */
    private boolean supersededByDelete(SinkRecord record, String table, String index, String id, SourcePosition position,
                                       ExternalVersion version) throws InterruptedException {
        BulkBatch probe = queue.separateBatch();
        probe.delete(record, table, index, id, position, version);
        long before = queue.olderThanStored();
        queue.sendAndSettle(probe);
        return queue.olderThanStored() > before;
    }

    /** The row's key: the record's key struct, as the source sends it (the primary key or replica identity). */
    private static Struct key(SinkRecord record, String table) {
        if (record.key() instanceof Struct key && !key.schema().fields().isEmpty()) {
            return key;
        }
        throw new DataException(table + " has no primary key or replica identity index, so its rows have no document id; give "
                + "it a primary key (or REPLICA IDENTITY USING INDEX on a unique index) to index it in OpenSearch, or leave it out "
                + "of the source's table.include.list");
    }

    /** The key of the row before an update: the key's columns read from the before image. */
    private static Struct keyOf(Struct before, SinkRecord record, String table) {
        Struct key = key(record, table);
        Struct old = new Struct(key.schema());
        for (Field f : key.schema().fields()) {
            Field inBefore = before.schema().field(f.name());
            if (inBefore == null || before.get(inBefore) == null) {
                return key; // a before image without the key columns: the key did not change
            }
            old.put(f, before.get(inBefore));
        }
        return old;
    }

    /**
     * A TRUNCATE: every document the index has now is deleted with the truncate's own version,
     * so a replayed write from before it cannot bring a row back, and a document a later change
     * already wrote (a replay of the truncate) is left alone.
     */
    private void truncate(SinkEvent event, String alias, String index, String table) throws InterruptedException {
        long deleted = deleteEveryDocument(event, index, table);
        LOG.info("TRUNCATE of {} at {}: {} document(s) of {} deleted", table, event.position(), deleted, alias);
    }

    /** Deletes every document of the index with the version of the event's position; how many. */
    private long deleteEveryDocument(SinkEvent event, String index, String table) throws InterruptedException {
        writeAll();
        return sweeps.delete(event, index, table, null);
    }

    private void reload(SinkEvent event) throws InterruptedException {
        writeAll();
        Schema rowSchema = event.value().schema().field(Envelope.AFTER).schema();
        String alias = names.name(event.source().getString("schema"), event.source().getString("table"), event.tableTopic());
        indexes.recreate(alias, rowSchema, event.table());
    }

    /**
     * A snapshot's first and last events (see {@link SnapshotMarks}); DDL needs nothing, as
     * fields follow the rows' own schemas (a column's field is added before its first row). On a
     * Connect cluster an event comes with its ordering barrier, reached by every partition (all
     * rows before it are written by every task): it is released once the event is applied.
     */
    @Override
    public void applySchemaEvent(SinkEvent event) throws InterruptedException {
        SourceInfo.Snapshot marker = event.snapshotMarker();
        if (marker == SourceInfo.Snapshot.FIRST) {
            writeAll();
            snapshots.started(event);
        } else if (marker == SourceInfo.Snapshot.LAST) {
            writeAll();
            snapshots.finished(event);
        } else if (marker == SourceInfo.Snapshot.INCREMENTAL) {
            // The end of a table's copy into the stream: every copied row is written before the alias moves to them.
            writeAll();
            Struct source = event.source();
            indexes.finishRebuild(names.aliasOf(source.getString("name"), source.getString("schema"), source.getString("table")));
        } else if (marker == null || marker == SourceInfo.Snapshot.FALSE) {
            // An index is a whole partitioned table: partitions' own changes are for sinks that keep the tree.
            for (SchemaChangeEvents.TableChange change : SchemaChangeEvents.tableChanges(event.value(), false)) {
                tableChanged(event, change);
            }
        }
        if (event.barrier() != null) {
            gate.release(event.barrier().id());
        }
    }

    /**
     * What a table's schema change does to its index. Fields need nothing here (a column's field is
     * added before its first row), but a dropped table's index goes as {@code table.drop.action}
     * says, a renamed table's index moves to the new name, a table created under a name whose
     * index exists (an earlier table's) gets a fresh one, and a table whose rows follow as a copy
     * gets a new index version that the copy fills.
     */
    private void tableChanged(SinkEvent event, SchemaChangeEvents.TableChange change) throws InterruptedException {
        String sourceName = event.source().getString("name");
        String[] id = Identifiers.unquoteQualified(change.id());
        String table = id[0] + "." + id[1];
        String alias = names.aliasOf(sourceName, id[0], id[1]);
        if (change.type() == SchemaChangeEvents.ChangeType.DROP) {
            dropped(event, alias, table);
            return;
        }
        if (change.previousId() != null) {
            String[] previous = Identifiers.unquoteQualified(change.previousId());
            String previousAlias = names.aliasOf(sourceName, previous[0], previous[1]);
            if (!previousAlias.equals(alias)) {
                writeAll();
                indexes.rename(previousAlias, alias, table);
            }
        } else if (change.type() == SchemaChangeEvents.ChangeType.CREATE && !change.rowsFollow() && indexes.exists(alias)) {
            writeAll();
            indexes.dropAll(alias);
            LOG.warn("Table {} was created under the name of index {}, which held an earlier table's documents: dropped, the new "
                    + "table's rows make it again", table, alias);
        }
        if (change.rowsFollow()) {
            // The table's rows follow as a copy: they make a new index version, with the fields the change gave them.
            writeAll();
            indexes.beginRebuild(alias, table, event.position() == null ? 0 : ExternalVersion.of(event.position()).value());
        }
    }

    private void dropped(SinkEvent event, String alias, String table) throws InterruptedException {
        switch (config.dropAction()) {
            case DROP_INDEX -> {
                writeAll();
                if (indexes.dropAll(alias)) {
                    LOG.info("Table {} dropped at {}: index {} dropped", table, event.position(), alias);
                }
            }
            case DELETE_DOCUMENTS -> {
                String index = indexes.writeIndexOf(alias);
                if (index != null) {
                    long deleted = deleteEveryDocument(event, index, table);
                    LOG.info("Table {} dropped at {}: {} document(s) of {} deleted", table, event.position(), deleted, alias);
                }
            }
            case IGNORE -> LOG.info("Table {} dropped at {}: index {} keeps its documents (table.drop.action=ignore)", table,
                    event.position(), alias);
        }
    }

    /** Another task applied a schema event (a snapshot's start may have made indexes again): what is known of the indexes is read again. */
    @Override
    public void tablesChangedElsewhere() {
        indexes.forget();
    }

    private BulkBatch batch() {
        return queue.batch();
    }

    private void sendIfFull() throws InterruptedException {
        queue.sendIfFull();
    }

    @Override
    public void afterPut(SinkTaskContext context) {
        boolean open = queue.sendIfDue();
        if (open && context != null) {
            context.timeout(Math.max(1, config.bulkDelayMillis()));
        }
    }

    @Override
    public void durableNow() {
        afterPut(null);
        queue.confirmDurable();
    }

    @Override
    public void writeAll() throws InterruptedException {
        queue.writeAll();
    }

    /** Documents written (indexed or deleted) so far. */
    long written() {
        return queue.written();
    }

    /** Writes OpenSearch refused as older than the version it stores, and rows older than their index's rebuild (replays). */
    long olderThanStored() {
        return queue.olderThanStored() + leftOut;
    }

    long bytesSent() {
        return queue.bytesSent();
    }
}
