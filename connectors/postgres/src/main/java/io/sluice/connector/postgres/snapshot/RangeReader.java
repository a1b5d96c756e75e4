package io.sluice.connector.postgres.snapshot;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.sluice.connector.postgres.selection.TablePattern;
import io.sluice.schemas.copy.BinaryCopyReader;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.envelope.ValueNotes;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.PortableColumn;
import io.sluice.schemas.mapping.RawEligibility;
import io.sluice.schemas.naming.Identifiers;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * One reader connection of the snapshot. It joins the exported snapshot once, then reads page
 * ranges with {@code COPY (SELECT ...) TO STDOUT (FORMAT binary)}, turns each row into a
 * snapshot-read record and hands it to the queue. A range's last record carries the offset
 * that marks the range finished. Rows are read from the table the range is of (a leaf
 * partition), in the shape of the records (its root's, when partitions are published through
 * it: the columns by name, in the root's order).
 */
final class RangeReader implements AutoCloseable {

    /** A raw record's heap beyond its tuple bytes. */
    private static final int RECORD_OVERHEAD = 256;

    private final Connection connection;
    private final RecordQueue<SourceRecord> queue;
    private final boolean resumed;
    private final boolean rawTuples;
    /** Tables a transform rewrites: their rows must come decoded even when raw tuples are on. */
    private final List<TablePattern> rawExcludes;
    /**
     * Raw tuples per record: big enough that per-record costs vanish, small enough for the queue
     * bound and to stay below the size at which G1 allocates an array outside the young generation.
     */
    private static final int RAW_CHUNK_BYTES = 1 << 18;

    RangeReader(Connection connection, String snapshotId, RecordQueue<SourceRecord> queue, boolean resumed, boolean rawTuples,
                List<TablePattern> rawExcludes) throws SQLException {
        this.connection = connection;
        this.queue = queue;
        this.resumed = resumed;
        this.rawTuples = rawTuples;
        this.rawExcludes = rawExcludes;
        try (Statement s = connection.createStatement()) {
            s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
            s.execute("SET TRANSACTION SNAPSHOT '" + snapshotId.replace("'", "''") + "'");
        }
    }

    /** Reads one range into the queue; true when it was the table's last range to be queued. */
    boolean read(PageRange range, TableProgress progress, Struct tableSource) throws SQLException, IOException, InterruptedException {
        TableSchema table = range.plan().schema();
        if (rawTuples && rawExcludes.stream().noneMatch(p -> p.matches(table.schemaName(), table.tableName()))
                && RawEligibility.eligible(table.columns())) {
            readRaw(range, progress, tableSource);
        } else {
            readDecoded(range, progress, tableSource);
        }
        return progress.rangeQueued();
    }

    private void readDecoded(PageRange range, TableProgress progress, Struct tableSource) throws SQLException, IOException, InterruptedException {
        TableSchema schema = range.plan().schema();
        List<ColumnMapping> columns = schema.columns();
        StringJoiner select = new StringJoiner(", ");
        columns.forEach(c -> select.add(c.selectExpression()));
        String sql = "COPY (SELECT " + select + " FROM " + Identifiers.quote(range.plan().table().schema(), range.plan().table().name())
                + range.predicate() + ") TO STDOUT (FORMAT binary)";

        Struct pendingAfter = null;
        long pendingBytes = 0;
        CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql);
        try {
            BinaryCopyReader reader = BinaryCopyReader.ofMessages(messagesOf(copy), columns.size());
            while (reader.next()) {
                Object[] values = new Object[columns.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = columns.get(i).fromBinary(reader.field(i));
                }
                if (pendingAfter != null) {
                    emit(schema, progress, pendingAfter, pendingBytes, progress.offset(), tableSource);
                }
                pendingAfter = schema.row(values);
                pendingBytes = reader.tupleLength();
            }
        } finally {
            cancelIfActive(copy);
        }
        // The range's last row is held back until the range is known to be complete.
        Struct last = pendingAfter;
        long lastBytes = pendingBytes;
        progress.finish(range.index(), last == null ? null : offset -> emit(schema, progress, last, lastBytes, offset, tableSource));
    }

    /**
     * The fast path: the range's tuples are passed on as PostgreSQL wrote them, about a megabyte
     * per record, without decoding. Generated columns are left out, as the target computes them.
     */
    private void readRaw(PageRange range, TableProgress progress, Struct tableSource) throws SQLException, IOException, InterruptedException {
        TableSchema schema = range.plan().schema();
        List<ColumnMapping> columns = schema.columns().stream().filter(c -> !c.column().generated()).toList();
        List<String> names = columns.stream().map(ColumnMapping::name).toList();
        List<String> types = columns.stream().map(c -> c.column().declaredType()).toList();
        // How each column decodes, so a transform can rewrite columns of the tuples without the rows being decoded whole.
        Struct decoding = PortableColumn.describe(columns,
                schema.columns().stream().filter(c -> c.column().generated()).map(ColumnMapping::name).toList());
        StringJoiner select = new StringJoiner(", ");
        columns.forEach(c -> select.add(c.selectExpression()));
        String sql = "COPY (SELECT " + select + " FROM " + Identifiers.quote(range.plan().table().schema(), range.plan().table().name())
                + range.predicate() + ") TO STDOUT (FORMAT binary)";
        io.sluice.schemas.codec.WireBuffer chunk = new io.sluice.schemas.codec.WireBuffer(RAW_CHUNK_BYTES + (1 << 16));
        int rows = 0;
        CopyOut copy = connection.unwrap(PGConnection.class).getCopyAPI().copyOut(sql);
        try {
            BinaryCopyReader reader = BinaryCopyReader.ofMessages(messagesOf(copy), columns.size());
            while (reader.next()) {
                chunk.writeBytes(reader.tupleBytes(), reader.tupleOffset(), reader.tupleLength());
                rows++;
                if (chunk.size() >= RAW_CHUNK_BYTES) {
                    emitRaw(schema, progress, tableSource, names, types, decoding, rows, chunk, progress.offset());
                    chunk.clear();
                    rows = 0;
                }
            }
        } finally {
            cancelIfActive(copy);
        }
        int lastRows = rows;
        progress.finish(range.index(), lastRows == 0 ? null
                : offset -> emitRaw(schema, progress, tableSource, names, types, decoding, lastRows, chunk, offset));
    }

    private void emitRaw(TableSchema schema, TableProgress progress, Struct tableSource, List<String> names, List<String> types,
                         Struct decoding, int rows, io.sluice.schemas.codec.WireBuffer chunk, Map<String, Object> offset)
            throws InterruptedException {
        SourceRecord record = new SourceRecord(progress.partition(), offset, schema.topic(), null, null, null, RawTuples.SCHEMA,
                RawTuples.of(tableSource, names, types, schema.keyColumns(), rows, chunk.toByteArray(), decoding));
        if (resumed) {
            record.headers().addBoolean(EventHeaders.SNAPSHOT_RESUMED, true);
        }
        progress.addRows(rows, chunk.size());
        queue.put(record, chunk.size() + RECORD_OVERHEAD);
    }

    private void emit(TableSchema schema, TableProgress progress, Struct after, long bytes, Map<String, Object> offset, Struct tableSource)
            throws InterruptedException {
        long nowMicros = System.currentTimeMillis() * 1000L;
        Struct value = schema.envelope(Operation.READ, null, after, tableSource, nowMicros);
        SourceRecord record = new SourceRecord(progress.partition(), offset, schema.topic(), null,
                schema.keySchema(), schema.key(after), schema.envelopeSchema(), value);
        if (schema.holdsNotedValues()) {
            ValueNotes.describe(null, after, record.headers());
        }
        if (resumed) {
            record.headers().addBoolean(EventHeaders.SNAPSHOT_RESUMED, true);
        }
        progress.addRows(1, bytes);
        queue.put(record, decodedCost(schema.columns().size(), bytes));
    }

    /**
     * What a decoded row takes of the queue's bound: four times what its record holds on the heap
     * (the record, its offset map, envelope, key and row structs, an object or more per value; a
     * 13-column row of 206 wire bytes measured about 1.5 KB live), so decoded rows fill at most a
     * quarter of the queue. A raw chunk is one large array the collector copies at memory speed; a
     * decoded row is tens of small objects it traces one by one at every young collection, and
     * young collections come often while rows are decoded. With the queue's 64 MB full of decoded
     * rows the collector took 1.1-1.2 s of CPU per million rows in a 2 GB heap and 3.1-3.8 s in
     * the sluice command's 512 MB (old-generation collections); with a quarter, 0.6 and 1.5 s
     * (docs/benchmarks-history.md, "decoded rows and the queue").
     */
    static long decodedCost(int columns, long wireBytes) {
        return 4 * (512 + 64L * columns + 2 * wireBytes);
    }

    private static BinaryCopyReader.Messages messagesOf(CopyOut copy) {
        return () -> {
            try {
                return copy.readFromCopy();
            } catch (SQLException e) {
                throw new IOException(e.getMessage(), e);
            }
        };
    }

    /** A COPY left unfinished by a failure is cancelled, so the connection can be closed cleanly. */
    private static void cancelIfActive(CopyOut copy) {
        if (copy.isActive()) {
            try {
                copy.cancelCopy();
            } catch (SQLException e) {
                // the connection is failing already; the original error is what matters
            }
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // closing a connection that already failed
        }
    }
}
