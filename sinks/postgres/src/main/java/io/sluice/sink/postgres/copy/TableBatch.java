package io.sluice.sink.postgres.copy;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.naming.Identifiers;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Rows for one target table, encoded as binary COPY tuples as they arrive. The columns are the
 * fields of the incoming row schema, matched by name to the target's columns; target columns
 * the rows do not carry get their defaults, and generated columns are never written.
 */
public final class TableBatch {

    private final String target;
    /** The target table, {schema, name}. */
    private final String[] id;
    /** The target table, quoted. */
    private final String table;
    private final Schema rowSchema;
    /** Writes decoded rows; null for a raw batch. */
    private final RowEncoder encoder;
    private final String copySql;
    private final Upsert upsert;
    /** For a raw batch, the columns its tuples hold; null for decoded rows. */
    private final List<String> rawColumns;
    private WireBuffer tuples = new WireBuffer(1 << 16);
    /** Raw tuples as they arrived, kept as they are rather than copied into one buffer. */
    private List<byte[]> rawParts = new ArrayList<>();
    private long rawBytes;
    private long rows;
    /** The sink's offset epoch its first row came in (see {@link #opened}); -1 while empty. */
    private long epoch = -1;
    private long openedNanos;
    /** The offsets of its rows, when the target keeps Kafka offsets. */
    private OffsetRuns runs = new OffsetRuns();

    /**
     * Rows that go through a temporary staging table: COPY into it, then one INSERT ... SELECT
     * into the target, in the same transaction. Used when rows may already be on the target
     * (ON CONFLICT updates them) and for columns whose type has no binary encoder (they are
     * staged as text and cast to their type in the SELECT).
     */
    public record Upsert(String stageSql, String insertSql) {
    }

    /**
     * @param schema  target schema name
     * @param table   target table name
     * @param rowSchema the incoming row struct schema
     * @param targetColumns the target table's columns
     */
    public TableBatch(String schema, String table, Schema rowSchema, List<ColumnMapping> targetColumns) {
        this(schema, table, rowSchema, targetColumns, null);
    }

    /**
     * @param upsertKeys the target's key columns to upsert on; null to insert
     */
    public TableBatch(String schema, String table, Schema rowSchema, List<ColumnMapping> targetColumns, List<String> upsertKeys) {
        this.target = schema + "." + table;
        this.id = new String[] {schema, table};
        this.table = Identifiers.quote(schema, table);
        this.rowSchema = rowSchema;
        this.encoder = new RowEncoder(target, rowSchema, targetColumns);
        boolean[] text = new boolean[encoder.size()];
        List<String> reads = new ArrayList<>();
        for (int i = 0; i < text.length; i++) {
            text[i] = encoder.asText(i);
            reads.add(encoder.castFrom(i, Identifiers.quote(encoder.name(i))));
        }
        String[] sql = sql(schema, table, encoder.names(), reads, text, upsertKeys);
        this.copySql = sql[0];
        this.upsert = sql[1] == null ? null : new Upsert(sql[1], sql[2]);
        this.rawColumns = null;
    }

    /** A batch of raw COPY tuples for the given columns, written as they are ({@link #addRaw}). */
    public static TableBatch raw(String schema, String table, List<String> columnNames, List<String> upsertKeys) {
        return new TableBatch(schema, table, columnNames, upsertKeys);
    }

    private TableBatch(String schema, String table, List<String> columnNames, List<String> upsertKeys) {
        this.target = schema + "." + table;
        this.id = new String[] {schema, table};
        this.table = Identifiers.quote(schema, table);
        this.rowSchema = null;
        this.encoder = null;
        String[] sql = sql(schema, table, columnNames, null, new boolean[columnNames.size()], upsertKeys);
        this.copySql = sql[0];
        this.upsert = sql[1] == null ? null : new Upsert(sql[1], sql[2]);
        this.rawColumns = List.copyOf(columnNames);
    }

    /** The columns of a raw batch's tuples; null for a batch of decoded rows. */
    public List<String> rawColumns() {
        return rawColumns;
    }

    /**
     * The COPY statement, and for staged batches the staging table and the INSERT ... SELECT from
     * it, which reads each staged column with {@code reads} (text columns cast to their type).
     */
    private static String[] sql(String schema, String table, List<String> names, List<String> reads, boolean[] asText,
                                List<String> upsertKeys) {
        StringJoiner list = new StringJoiner(", ", " (", ")");
        names.forEach(n -> list.add(Identifiers.quote(n)));
        String columnList = names.isEmpty() ? "" : list.toString();
        boolean anyText = false;
        for (boolean t : asText) {
            anyText |= t;
        }
        if (upsertKeys == null && !anyText) {
            return new String[] {"COPY " + Identifiers.quote(schema, table) + columnList + " FROM STDIN", null, null};
        }
        String stage = Identifiers.quote("sluice_stage_" + Integer.toHexString((schema + "." + table + upsertKeys).hashCode()));
        StringJoiner stageColumns = new StringJoiner(", ");
        StringJoiner select = new StringJoiner(", ");
        StringJoiner updates = new StringJoiner(", ");
        for (int i = 0; i < names.size(); i++) {
            String name = Identifiers.quote(names.get(i));
            stageColumns.add(asText[i] ? name + "::text AS " + name : name);
            select.add(reads == null ? name : reads.get(i));
            if (upsertKeys != null && !upsertKeys.contains(names.get(i))) {
                updates.add(name + " = EXCLUDED." + name);
            }
        }
        String conflict = "";
        if (upsertKeys != null) {
            StringJoiner keys = new StringJoiner(", ", " ON CONFLICT (", ")");
            upsertKeys.forEach(k -> keys.add(Identifiers.quote(k)));
            conflict = keys + (updates.length() == 0 ? " DO NOTHING" : " DO UPDATE SET " + updates);
        }
        return new String[] {"COPY " + stage + columnList + " FROM STDIN",
                "CREATE TEMP TABLE IF NOT EXISTS " + stage + " ON COMMIT DELETE ROWS AS SELECT " + stageColumns + " FROM "
                        + Identifiers.quote(schema, table) + " WITH NO DATA",
                "INSERT INTO " + Identifiers.quote(schema, table) + columnList + " OVERRIDING SYSTEM VALUE SELECT " + select + " FROM "
                        + stage + conflict};
    }

    /**
     * Notes the sink's current offset epoch before rows are added: the first call after the
     * batch was empty fixes the oldest epoch it holds rows of, which stays unconfirmed until the
     * batch is committed.
     */
    public void opened(long currentEpoch) {
        if (epoch < 0) {
            epoch = currentEpoch;
            openedNanos = System.nanoTime();
        }
    }

    /** The oldest offset epoch this batch holds rows of; -1 while empty. */
    public long epoch() {
        return epoch;
    }

    /** Nanoseconds since its first row; 0 while empty. */
    public long ageNanos() {
        return epoch < 0 ? 0 : System.nanoTime() - openedNanos;
    }

    /** Appends raw COPY tuples as they came from the source. */
    public void addRaw(byte[] rawTuples, int rowCount) {
        rawParts.add(rawTuples);
        rawBytes += rawTuples.length;
        rows += rowCount;
    }

    public String target() {
        return target;
    }

    /** The target table's schema. */
    public String schema() {
        return id[0];
    }

    /** The target table's name within its schema. */
    public String tableName() {
        return id[1];
    }

    /**
     * Notes the offset of the record just added.
     *
     * @param continues whether the partition's previous record went into this batch too
     */
    public void covers(org.apache.kafka.common.TopicPartition partition, long offset, boolean continues) {
        runs.cover(partition, offset, continues);
    }

    public Schema rowSchema() {
        return rowSchema;
    }

    /** Whether rows go through a staging table (upserts, text-cast columns) rather than straight into the target. */
    public boolean staged() {
        return upsert != null;
    }

    /** Encodes one row; on a bad value nothing of the row stays in the batch. */
    public void add(Struct row) {
        int start = tuples.size();
        try {
            tuples.writeShort(encoder.size());
            for (int i = 0; i < encoder.size(); i++) {
                encoder.write(row, i, tuples);
            }
            rows++;
        } catch (RuntimeException e) {
            keepFirst(start);
            throw e;
        }
    }

    /** Drops what was written after the first {@code size} bytes: the row that failed. */
    private void keepFirst(int size) {
        WireBuffer kept = new WireBuffer(Math.max(size, 1 << 16));
        kept.writeBytes(tuples.array(), 0, size);
        tuples = kept;
    }

    public long bytes() {
        return tuples.size() + rawBytes;
    }

    public long rows() {
        return rows;
    }

    public boolean isEmpty() {
        return rows == 0;
    }

    /**
     * Hands over the encoded rows and starts an empty batch, encoding into a buffer from
     * {@code buffers} (sized for about as many rows as this chunk had).
     */
    public Chunk take(EncodeBuffers buffers) {
        Chunk chunk = new Chunk(target, table, copySql, upsert, rawParts, tuples, rows, epoch, runs);
        epoch = -1;
        runs = new OffsetRuns();
        tuples = rawParts.isEmpty() ? buffers.take(Math.min(Math.max(1 << 16, chunk.tuples().size()), 1 << 24)) : new WireBuffer(1 << 8);
        rawParts = new ArrayList<>();
        rawBytes = 0;
        rows = 0;
        return chunk;
    }

    /**
     * Rows ready for one COPY, raw tuples first, then encoded ones; with {@code upsert}, into a
     * staging table merged in the same transaction. {@code epoch} is the oldest offset epoch of
     * its rows; {@code runs} their offsets (empty unless the target keeps Kafka offsets).
     */
    public record Chunk(String target, String table, String copyStatement, Upsert upsert, List<byte[]> raw, WireBuffer tuples, long rows,
                        long epoch, OffsetRuns runs) {

        /**
         * The COPY; {@code freeze} writes the rows frozen, which needs the table emptied or
         * created in the same transaction.
         */
        public String copySql(boolean freeze) {
            return copyStatement + (freeze ? " (FORMAT binary, FREEZE)" : " (FORMAT binary)");
        }

        public long bytes() {
            long bytes = tuples.size();
            for (byte[] part : raw) {
                bytes += part.length;
            }
            return bytes;
        }
    }
}
