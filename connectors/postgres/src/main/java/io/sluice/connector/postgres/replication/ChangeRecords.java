package io.sluice.connector.postgres.replication;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ObjLongConsumer;

import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.connector.postgres.ddl.DdlMessage;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.connector.postgres.resync.ChunkRead;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Begin;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Commit;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Delete;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Insert;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.LogicalMessage;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Relation;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Truncate;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Tuple;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Update;
import io.sluice.connector.postgres.snapshot.VisibleTransactions;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.envelope.KeyRanges;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.envelope.ValueNotes;
import io.sluice.schemas.naming.TopicNames;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns decoded pgoutput messages into change records, in commit order. Every record's offset
 * names its transaction's commit position and its place in the transaction, and the position up
 * to which the slot may be confirmed once the record is durable: the end of the previous
 * transaction, or for a transaction's last record the end of its own. To know which record is a
 * transaction's last, the newest record is held back until the next message shows it. What a DDL
 * message means is {@link DdlEvents}' to say, which tables are copied into the stream
 * {@link StreamCopies}', and row images {@link RowImages}'; this class assembles transactions.
 *
 * <p>Unchanged TOASTed values are not sent by PostgreSQL; their fields are left null (or empty
 * when the field is required) and named in the {@link EventHeaders#UNCHANGED_TOAST} header, so a
 * sink keeps the stored value. DDL messages of Sluice's capture triggers become schema-change
 * events of the selected tables they touched, in their place among the rows. Not thread-safe:
 * one stream reader owns it. (Past 400 lines: the held record, event numbering, skips and the
 * confirm position are one state machine over a transaction; split, its parts would share all of it.)
 */
public final class ChangeRecords {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeRecords.class);

    /** Offset keys of stream records; the partition is the snapshot's server partition. */
    public static final String COMMIT_LSN = "lsn_commit";
    public static final String EVENT = "event";
    public static final String CONFIRM_LSN = "lsn_confirm";
    public static final String TX_ID = "txId";

    /** Microseconds from the Unix epoch to PostgreSQL's epoch, 2000-01-01. */
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;

    private final String topicPrefix;
    private final String database;
    private final Map<String, ?> partition;
    private final Map<String, Object> baseOffset;
    /** Every change's offset: {@link #baseOffset}'s entries and the change's own four. */
    private final RecordOffset.Layout offsets;
    private final Function<Relation, StreamTable> resolver;
    private final DdlMessage.Selection selection;
    private final ObjLongConsumer<DdlMessage> ddlFollowed;
    private final Map<Integer, StreamTable> tables = new HashMap<>();
    private final List<SourceRecord> ready = new ArrayList<>();
    private final long skipThroughCommit;
    private final long skipThroughEvent;
    private Map<String, VisibleTransactions> seenBySnapshot;
    /** The newest position any of those snapshots was taken at: transactions committed after it are none of their business. */
    private final long seenHorizon;

    /** Tables being copied into the stream, and the position the slot may not be confirmed past meanwhile. */
    private final StreamCopies copies = new StreamCopies();
    private final StreamResyncs resyncs;
    /** The offset of the newest stream record: copy records carry its position. */
    private Map<String, Object> lastOffset;

    private SourceRecord held;
    /** Notes the rows of the tables a staging subset decides; null without a subset. */
    private SubsetMarks subset;
    private Begin transaction;
    /** The current transaction's block id ({@link Envelope#transactionId}), made once for all its events. */
    private String transactionId;
    private long event;
    private long lastCompleteEnd;
    /**
     * Each table of the open transaction, by oid: not by {@link StreamTable}, whose record hash and
     * equality walk its whole schema, on every change.
     */
    private final Map<Integer, TableInTransaction> inTransaction = new HashMap<>();

    /** A table's events so far in the open transaction, and its source block, made for the relation it has now. */
    private static final class TableInTransaction {
        /** For the transaction block's per-table order; goes on across a new relation message of the table. */
        long events;
        StreamTable table;
        Struct source;
    }

    /**
     * @param baseOffset        entries every stream offset carries (that the snapshot finished)
     * @param confirmedEnd      the position the stream starts after: everything up to it is durable
     * @param skipThroughCommit with {@code skipThroughEvent}: the last record known durable, whose
     *                          transaction may be sent again; its records up to that event are skipped
     * @param selection         which tables DDL events are sent for
     * @param ddlFollowed       told of every DDL message, with its transaction's commit position, in its place in the
     *                          stream: before the changes after it
     * @param seenBySnapshot    tables read whole under a snapshot other than the slot's (by qualified name), with what it
     *                          saw: their changes of transactions it saw are in the rows read, and are dropped
     * @param resyncs           the tables re-synced while streaming: told the changes of the one being re-synced, and asked
     *                          what to hand out at each watermark
     */
    public ChangeRecords(String topicPrefix, String database, Map<String, ?> partition, Map<String, Object> baseOffset,
                         Function<Relation, StreamTable> resolver, long confirmedEnd, long skipThroughCommit, long skipThroughEvent,
                         DdlMessage.Selection selection, ObjLongConsumer<DdlMessage> ddlFollowed,
                         Map<String, VisibleTransactions> seenBySnapshot, StreamResyncs resyncs) {
        this.resyncs = resyncs;
        this.selection = selection;
        this.ddlFollowed = ddlFollowed;
        this.seenBySnapshot = seenBySnapshot;
        this.seenHorizon = seenBySnapshot.values().stream().mapToLong(VisibleTransactions::takenAt)
                .reduce(0L, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
        this.topicPrefix = topicPrefix;
        this.database = database;
        this.partition = partition;
        this.baseOffset = Map.copyOf(baseOffset);
        this.offsets = RecordOffset.layout(this.baseOffset, COMMIT_LSN, EVENT, CONFIRM_LSN, TX_ID);
        this.resolver = resolver;
        this.lastCompleteEnd = confirmedEnd;
        this.skipThroughCommit = skipThroughCommit;
        this.skipThroughEvent = skipThroughEvent;
    }

    /** Notes each row of the tables a staging subset decides, for {@link SubsetMarks#mark} to mark as the batch is handed out. */
    void markSubset(SubsetMarks marks) {
        this.subset = marks;
    }

    /** Takes one message; records it completes become available from {@link #drain}. */
    public void accept(PgOutputMessage message) {
        if (message instanceof Begin b) {
            if (!seenBySnapshot.isEmpty() && Long.compareUnsigned(b.finalLsn(), seenHorizon) > 0) {
                seenBySnapshot = Map.of();
            }
            release();
            transaction = b;
            transactionId = Envelope.transactionId(Integer.toUnsignedLong(b.xid()), b.finalLsn());
            event = 0;
            inTransaction.clear();
        } else if (message instanceof Commit c) {
            if (held != null && transaction != null) {
                held = withConfirm(held, capped(c.endLsn()));
                held.headers().addBoolean(EventHeaders.TRANSACTION_END, true);
            }
            release();
            lastCompleteEnd = c.endLsn();
            if (transaction != null) {
                resyncs.committed(transaction.xid(), transaction.finalLsn());
            }
            transaction = null;
        } else if (message instanceof Relation r) {
            tables.put(r.oid(), resolver.apply(r));
        } else if (message instanceof Insert i) {
            row(i.relationOid(), Operation.CREATE, null, (char) 0, i.newTuple());
        } else if (message instanceof Update u) {
            row(u.relationOid(), Operation.UPDATE, u.oldTuple(), u.oldKind(), u.newTuple());
        } else if (message instanceof Delete d) {
            row(d.relationOid(), Operation.DELETE, d.oldTuple(), d.oldKind(), null);
        } else if (message instanceof LogicalMessage m && m.transactional() && DdlCapture.MESSAGE_PREFIX.equals(m.prefix())) {
            schemaChange(DdlMessage.parse(m.content()));
        } else if (message instanceof LogicalMessage m && m.transactional() && TableCopy.MESSAGE_PREFIX.equals(m.prefix())) {
            copies.markerReached(new String(m.content(), StandardCharsets.UTF_8));
        } else if (message instanceof LogicalMessage m && m.transactional() && PartitionRows.MESSAGE_PREFIX.equals(m.prefix())) {
            partitionRows(PartitionRows.parse(m.content()));
        } else if (message instanceof LogicalMessage m && m.transactional() && Heartbeats.MESSAGE_PREFIX.equals(m.prefix())) {
            heartbeat(new String(m.content(), StandardCharsets.UTF_8));
        } else if (message instanceof LogicalMessage m && m.transactional() && ChunkRead.MESSAGE_PREFIX.equals(m.prefix())
                && transaction != null) {
            StreamResyncs.Chunk chunk = resyncs.reached(new String(m.content(), StandardCharsets.UTF_8), transaction.finalLsn());
            if (chunk != null) {
                resynced(chunk);
            }
        } else if (message instanceof Truncate t) {
            for (int oid : t.relationOids()) {
                if (resyncs.watches(oid) && transaction != null) {
                    resyncs.truncated(transaction.xid(), transaction.finalLsn());
                }
                StreamTable table = table(oid);
                if (table.selected()) {
                    emit(table, Operation.TRUNCATE, null, null, null, null, null);
                }
            }
        }
        // Type messages need nothing: Relation handling reads types from the catalog. Origin and
        // logical messages of other producers are not changes of the selected tables.
    }

    private void schemaChange(DdlMessage message) {
        ddlFollowed.accept(message, transaction == null ? 0L : transaction.finalLsn());
        if (subset != null) {
            subset.reset(); // the parents' tables are described again
        }
        for (DdlMessage.Table t : message.tables()) {
            if (resyncs.watches((int) t.oid())) {
                resyncs.tableChanged();
            }
        }
        DdlEvents ddl = DdlEvents.of(message, selection);
        if (ddl.typesChanged()) {
            tables.replaceAll((oid, table) -> resolver.apply(table.relation()));
        }
        // Also when the event itself was sent before a restart: the copy may not have finished.
        ddl.copies().forEach(this::requestCopy);
        if (ddl.silent()) {
            return;
        }
        if (transaction == null) {
            throw new ConnectException("pgoutput sent a DDL message outside a transaction");
        }
        event++;
        if (alreadySent()) {
            return;
        }
        Struct value = ddl.value(topicPrefix, database, transaction, event, transaction.commitTimestamp() + PG_EPOCH_MICROS);
        push(new SourceRecord(partition, offset(), TopicNames.forSchemaChanges(topicPrefix), null, SchemaChangeEvents.KEY_SCHEMA,
                SchemaChangeEvents.key(database), SchemaChangeEvents.VALUE_SCHEMA, value));
    }

    /** A heartbeat this pipeline wrote (others' are theirs): a record in its place, which the sinks note once durable. */
    private void heartbeat(String pipeline) {
        if (!topicPrefix.equals(pipeline) || transaction == null) {
            return;
        }
        event++;
        if (alreadySent()) {
            return;
        }
        long commitMillis = (transaction.commitTimestamp() + PG_EPOCH_MICROS) / 1000;
        push(new SourceRecord(partition, offset(), TopicNames.forHeartbeats(topicPrefix), null, null, null, Heartbeats.VALUE_SCHEMA,
                Heartbeats.value(topicPrefix, commitMillis, transaction.finalLsn())));
    }

    /** Rows a partition brought into its root or took out of it, while partitions are published through their root. */
    private void partitionRows(PartitionRows moved) {
        if (!selection.throughRoots()) {
            return; // another pipeline's: this one's publication sends partitions as themselves, rows and all
        }
        StreamTable table = tables.get(moved.root().oid());
        if (table == null || !moved.fits(table.relation())) {
            table = resolver.apply(moved.root());
            tables.put(moved.root().oid(), table);
        }
        if (!table.selected()) {
            return;
        }
        for (String[] values : moved.rows()) {
            Struct row = RowImages.copied(table, values);
            if (moved.attached()) {
                emit(table, Operation.CREATE, null, row, null, null, null);
            } else {
                emit(table, Operation.DELETE, row, null, null, null, null);
            }
        }
    }

    private void requestCopy(DdlMessage.Table t, String why) {
        if (copies.request((int) t.oid(), lastCompleteEnd)) {
            LOG.info("{}.{} {}: it is copied into the stream", t.now().schema(), t.now().name(), why);
        }
    }

    /**
     * The next table to copy into the stream (by oid), once the stream is between transactions
     * (after the commit of the DDL that selected it, whose event creates the target table); null
     * when none is waiting.
     */
    public Integer nextCopy() {
        return transaction == null ? copies.next() : null;
    }

    /** The copy of a table has started; its changes stay dropped until the stream reaches {@code marker}. */
    public void copyStarted(int oid, String marker) {
        copies.started(oid, marker);
    }

    /** The copy of a table could not start (it was dropped meanwhile): its changes are streamed again. */
    public void copyAbandoned(int oid) {
        copies.abandoned(oid);
    }

    /** A truncate of the table, so a copy started again after a crash does not add its rows twice. */
    public void copyBegins(StreamTable table) {
        copyRecord(table, Operation.TRUNCATE, null);
    }

    /** Rows of a table copy (text values in the Relation's column order), as read events. */
    public void copied(StreamTable table, List<String[]> rows) {
        for (String[] values : rows) {
            copyRecord(table, Operation.READ, RowImages.copied(table, values));
            if (subset != null && subset.decides(table)) {
                subset.note(held, table, i -> values[i]);
            }
        }
    }

    /** The highest position the slot may be confirmed to while tables are being copied; null when none is. */
    public Long confirmCeiling() {
        return copies.ceiling();
    }

    /**
     * The end of a table's copy, after its last row: a schema-change event with no DDL, marked
     * {@code snapshot: incremental}, for the table. A sink that builds the table anew from its copy
     * (OpenSearch: a new index version behind the alias) knows from it that the copy is whole;
     * others pass it over. On a Connect cluster it carries a barrier like every schema event, so
     * it is applied once every partition's copied rows are written.
     */
    public void copyEnds(StreamTable table) {
        TableSchema schema = table.schema();
        SourceInfo source = new SourceInfo(topicPrefix, database, schema.schemaName(), schema.tableName(), System.currentTimeMillis() * 1000L,
                SourceInfo.Snapshot.INCREMENTAL, null, null, null);
        Struct value = SchemaChangeEvents.value(source, schema.schemaName(), null, List.of(), System.currentTimeMillis());
        push(new SourceRecord(partition, copyOffset(), TopicNames.forSchemaChanges(topicPrefix), null, SchemaChangeEvents.KEY_SCHEMA,
                SchemaChangeEvents.key(database), SchemaChangeEvents.VALUE_SCHEMA, value));
    }

    /** The offset of a copy's records: that of the newest stream record, the slot kept below the copy's start. */
    private Map<String, Object> copyOffset() {
        Map<String, Object> offset = new HashMap<>(lastOffset != null ? lastOffset : baseOffset);
        if (lastOffset == null) {
            offset.put(COMMIT_LSN, skipThroughCommit);
            offset.put(EVENT, skipThroughEvent);
        }
        offset.put(CONFIRM_LSN, capped(lastCompleteEnd));
        return offset;
    }

    private void copyRecord(StreamTable table, Operation op, Struct row) {
        TableSchema schema = table.schema();
        Struct source = new SourceInfo(topicPrefix, database, schema.schemaName(), schema.tableName(), System.currentTimeMillis() * 1000L,
                SourceInfo.Snapshot.INCREMENTAL, null, null, null).toStruct();
        Map<String, Object> offset = copyOffset();
        // No transaction block: a sink must not skip these by position, they come again whole after a crash.
        // A record without a row (the copy's truncate) has no key, and no key schema: a required key schema with a null key is
        // refused by converters that check (Kafka's JSON converter).
        SourceRecord record = new SourceRecord(partition, offset, schema.topic(), null, row == null ? null : schema.keySchema(),
                schema.keySchema() == null || row == null ? null : schema.key(row), schema.envelopeSchema(),
                schema.envelope(op, null, row, source, System.currentTimeMillis() * 1000L));
        if (schema.holdsNotedValues() && row != null) {
            ValueNotes.describe(null, row, record.headers());
        }
        push(record);
    }

    /**
     * A re-synced chunk, at its watermark: its rows as read events and its key range, in the
     * watermark's transaction (with its positions, so they are ordered and skipped like changes).
     */
    private void resynced(StreamResyncs.Chunk chunk) {
        StreamTable table = chunk.table();
        TableSchema schema = table.schema();
        long now = System.currentTimeMillis();
        Struct source = new SourceInfo(topicPrefix, database, schema.schemaName(), schema.tableName(),
                transaction.commitTimestamp() + PG_EPOCH_MICROS, SourceInfo.Snapshot.INCREMENTAL, Integer.toUnsignedLong(transaction.xid()),
                transaction.finalLsn(), null).toStruct();
        long tableEvent = 0;
        for (int n = 0; n < chunk.rows().size(); n++) {
            Struct row = chunk.rows().get(n);
            String[] texts = chunk.texts().get(n);
            event++;
            tableEvent++;
            if (alreadySent()) {
                continue;
            }
            SourceRecord record = resyncRecord(schema, Operation.READ, row, source, tableEvent, now, chunk.subscription());
            if (schema.holdsNotedValues()) {
                ValueNotes.describe(null, row, record.headers());
            }
            push(record);
            if (subset != null && subset.decides(table)) {
                subset.note(record, table, i -> texts[i]);
            }
        }
        for (Struct gone : chunk.deletes()) {
            event++;
            tableEvent++;
            if (alreadySent()) {
                continue;
            }
            SourceRecord record = resyncRecord(schema, Operation.DELETE, gone, source, tableEvent, now, chunk.subscription());
            record.headers().addBoolean(EventHeaders.KEY_ONLY_BEFORE, true);
            push(record);
        }
        if (!chunk.ranged()) {
            return; // a repair's chunk of given keys covers no range: nothing else in one is the chunk's to drop
        }
        event++;
        if (alreadySent()) {
            return;
        }
        Struct range = KeyRanges.value(schema.keySchema(), source, Envelope.transaction(transactionId, event, tableEvent + 1), chunk.from(),
                chunk.to(), chunk.keep(), chunk.keyOrder(), now);
        // No key: a sink reaches it after every partition's rows before it, through its barrier on a cluster (BarrierWriter).
        SourceRecord record = new SourceRecord(partition, offset(), schema.topic(), null, null, null, range.schema(), range);
        if (chunk.subscription() != null) {
            record.headers().addString(EventHeaders.RESYNC_FOR, chunk.subscription());
        }
        push(record);
    }

    /** A re-synced row (a read of it, or a delete of a key the source lacks), at the current event of the watermark's transaction. */
    private SourceRecord resyncRecord(TableSchema schema, Operation op, Struct row, Struct source, long tableEvent, long now,
                                      String subscription) {
        Struct value = Envelope.create(schema.envelopeSchema(), op, op == Operation.DELETE ? row : null, op == Operation.DELETE ? null : row,
                source, Envelope.transaction(transactionId, event, tableEvent), now * 1000L);
        SourceRecord record = new SourceRecord(partition, offset(), schema.topic(), null, schema.keySchema(), schema.key(row),
                schema.envelopeSchema(), value);
        if (subscription != null) {
            record.headers().addString(EventHeaders.RESYNC_FOR, subscription);
        }
        return record;
    }

    private long capped(long confirm) {
        return copies.capped(confirm);
    }

    /** Whether the current event was handed out before a restart (it is in the stored offset's transaction, at or before its event). */
    private boolean alreadySent() {
        return Long.compareUnsigned(transaction.finalLsn(), skipThroughCommit) < 0
                || (transaction.finalLsn() == skipThroughCommit && event <= skipThroughEvent);
    }

    private Map<String, Object> offset() {
        Map<String, Object> offset = offsets.of(transaction.finalLsn(), event, capped(lastCompleteEnd), Integer.toUnsignedLong(transaction.xid()));
        lastOffset = offset;
        return offset;
    }

    private void push(SourceRecord record) {
        release();
        held = record;
    }

    /** Records ready to hand out, in order; the newest one stays held until its successor shows whether it ends its transaction. */
    public List<SourceRecord> drain() {
        List<SourceRecord> out = new ArrayList<>(ready);
        ready.clear();
        return out;
    }

    /** Whether a transaction is open: some of its messages are still to come. */
    public boolean inTransaction() {
        return transaction != null;
    }

    /** Whether a record is held back, waiting to learn whether it ends its transaction. */
    public boolean holding() {
        return held != null;
    }

    /** The end of the last transaction fully received; safe to confirm when every record handed out is durable. */
    public long lastCompleteEnd() {
        return lastCompleteEnd;
    }

    private void row(int relationOid, Operation op, Tuple old, char oldKind, Tuple now) {
        StreamTable table = table(relationOid);
        if (!table.selected()) {
            return;
        }
        List<String> unchanged = new ArrayList<>();
        Struct after = now == null ? null : RowImages.image(table, now, unchanged);
        Struct before = old == null ? null : RowImages.image(table, old, null);
        if (resyncs.watches(relationOid) && transaction != null) {
            resyncs.changed(transaction.xid(), transaction.finalLsn(), before, after);
        }
        if (op == Operation.DELETE && before == null) {
            throw new ConnectException("A delete on " + table.qualifiedName() + " came without the old row's key");
        }
        Boolean keyOnlyBefore = oldKind == 'K' ? Boolean.TRUE : null;
        SourceRecord was = held;
        change(table, op, before, after, keyOnlyBefore, unchanged);
        if (subset != null && now != null && held != was && subset.decides(table)) {
            subset.note(held, table, i -> now.kind(i) == Tuple.TEXT ? now.text(i) : null);
        }
    }

    private void change(StreamTable table, Operation op, Struct before, Struct after, Boolean keyOnlyBefore, List<String> unchanged) {
        if (op == Operation.UPDATE && RowImages.keyChanged(table, before, after)) {
            if (unchanged.isEmpty()) {
                // A delete of the old key first, in the old key's partition on a Connect cluster (see EventHeaders.KEY_MOVED_AWAY).
                emit(table, Operation.DELETE, before, null, keyOnlyBefore, null, EventHeaders.KEY_MOVED_AWAY);
            }
            // With unchanged TOASTed values the update must find the old row as it is, so nothing deletes it before; on a
            // cluster the update waits at a barrier instead (BarrierWriter).
            emit(table, op, before, after, keyOnlyBefore, unchanged, EventHeaders.KEY_CHANGED);
            return;
        }
        emit(table, op, before, after, keyOnlyBefore, unchanged, null);
    }

    /**
     * @param mark a header set to {@code true} on the record, or null
     */
    private void emit(StreamTable table, Operation op, Struct before, Struct after, Boolean keyOnlyBefore, List<String> unchanged,
                      String mark) {
        if (transaction == null) {
            throw new ConnectException("pgoutput sent a change of " + table.qualifiedName() + " outside a transaction");
        }
        event++;
        TableInTransaction inThis = inTransaction.get(table.relation().oid());
        if (inThis == null) { // not computeIfAbsent: its capturing lambda would be made for every change
            inThis = new TableInTransaction();
            inTransaction.put(table.relation().oid(), inThis);
        }
        long tableEvent = ++inThis.events;
        if (alreadySent() || copies.holds(table.relation().oid())) {
            return; // a table being copied: the copy holds this change
        }
        if (!seenBySnapshot.isEmpty()) {
            VisibleTransactions seen = seenBySnapshot.get(table.qualifiedName());
            if (seen != null && seen.saw(transaction.xid(), transaction.finalLsn())) {
                return; // the table was read under a snapshot that has this change already
            }
        }
        TableSchema schema = table.schema();
        if (inThis.table != table) { // the first change of the table, or a new relation message (a rename, say) came since
            inThis.source = new SourceInfo(topicPrefix, database, schema.schemaName(), schema.tableName(),
                    transaction.commitTimestamp() + PG_EPOCH_MICROS, SourceInfo.Snapshot.FALSE, Integer.toUnsignedLong(transaction.xid()),
                    transaction.finalLsn(), null).toStruct();
            inThis.table = table;
        }
        Struct source = inThis.source;
        // The sink orders and deduplicates changes by commit position and place in the transaction.
        Struct value = Envelope.create(schema.envelopeSchema(), op, before, after, source,
                Envelope.transaction(transactionId, event, tableEvent),
                System.currentTimeMillis() * 1000L);
        Struct row = after != null ? after : before;
        Struct key = schema.keySchema() == null || row == null ? null : schema.key(row);
        // A truncate has no key, and then no key schema (see copyRecord).
        SourceRecord record = new SourceRecord(partition, offset(), schema.topic(), null, key == null ? null : schema.keySchema(), key,
                schema.envelopeSchema(), value);
        if (unchanged != null && !unchanged.isEmpty()) {
            record.headers().addString(EventHeaders.UNCHANGED_TOAST, String.join(",", unchanged));
        }
        if (keyOnlyBefore != null) {
            record.headers().addBoolean(EventHeaders.KEY_ONLY_BEFORE, true);
        }
        if (mark != null) {
            record.headers().addBoolean(mark, true);
        }
        if (schema.holdsNotedValues()) {
            ValueNotes.describe(before, after, record.headers());
        }
        if (op == Operation.DELETE && subset != null && subset.decides(table)) {
            record.headers().addString(EventHeaders.SUBSET, EventHeaders.SUBSET_DELETE);
        }
        push(record);
    }

    private void release() {
        if (held != null) {
            ready.add(held);
            held = null;
        }
    }

    private static SourceRecord withConfirm(SourceRecord r, long confirm) {
        Map<String, Object> offset;
        if (r.sourceOffset() instanceof RecordOffset own) {
            offset = own.with(CONFIRM_LSN, confirm);
        } else {
            @SuppressWarnings("unchecked")
            Map<String, Object> copy = new HashMap<>((Map<String, Object>) r.sourceOffset());
            copy.put(CONFIRM_LSN, confirm);
            offset = copy;
        }
        return new SourceRecord(r.sourcePartition(), offset, r.topic(), r.kafkaPartition(), r.keySchema(), r.key(), r.valueSchema(),
                r.value(), r.timestamp(), r.headers());
    }

    private StreamTable table(int oid) {
        StreamTable table = tables.get(oid);
        if (table == null) {
            throw new ConnectException("pgoutput sent a change of relation " + Integer.toUnsignedLong(oid) + " before describing it");
        }
        return table;
    }
}
