package io.sluice.sink.postgres.copy;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.sluice.schemas.copy.WireBuffer;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.naming.Identifiers;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Rows for one target table, encoded as binary COPY tuples as they arrive. The columns are the
 * fields of the incoming row schema, matched by name to the target's columns; target columns
 * the rows do not carry get their defaults, and generated columns are never written.
 */
public final class TableBatch {

    private final String target;
    private final Schema rowSchema;
    private final List<Field> fields = new ArrayList<>();
    private final List<ColumnMapping> columns = new ArrayList<>();
    private final String copySql;
    private final Upsert upsert;
    private WireBuffer tuples = new WireBuffer(1 << 16);
    private long rows;

    /**
     * How rows that may already be on the target are written: COPY into a temporary staging
     * table, then one INSERT ... ON CONFLICT that updates what is there and adds the rest.
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
     * @param upsertKeys the target's key columns to upsert on; null for plain inserts
     */
    public TableBatch(String schema, String table, Schema rowSchema, List<ColumnMapping> targetColumns, List<String> upsertKeys) {
        this.target = schema + "." + table;
        this.rowSchema = rowSchema;
        StringJoiner names = new StringJoiner(", ", " (", ")");
        for (Field field : rowSchema.fields()) {
            ColumnMapping column = targetColumns.stream().filter(c -> c.name().equals(field.name())).findFirst()
                    .orElseThrow(() -> new DataException("Column " + field.name() + " of the incoming rows does not exist in target table "
                            + target + "; add it to the target, or drop the field with a transform"));
            if (column.column().generated()) {
                continue;
            }
            fields.add(field);
            columns.add(column);
            names.add(Identifiers.quote(field.name()));
        }
        String columnList = fields.isEmpty() ? "" : names.toString();
        if (upsertKeys == null) {
            this.upsert = null;
            this.copySql = "COPY " + Identifiers.quote(schema, table) + columnList + " FROM STDIN (FORMAT binary)";
        } else {
            String stage = Identifiers.quote("sluice_stage_" + Integer.toHexString(target.hashCode()));
            StringJoiner select = new StringJoiner(", ");
            StringJoiner updates = new StringJoiner(", ");
            for (Field f : fields) {
                select.add(Identifiers.quote(f.name()));
                if (!upsertKeys.contains(f.name())) {
                    updates.add(Identifiers.quote(f.name()) + " = EXCLUDED." + Identifiers.quote(f.name()));
                }
            }
            StringJoiner keys = new StringJoiner(", ", "(", ")");
            upsertKeys.forEach(k -> keys.add(Identifiers.quote(k)));
            this.upsert = new Upsert(
                    "CREATE TEMP TABLE IF NOT EXISTS " + stage + " ON COMMIT DELETE ROWS AS SELECT " + select + " FROM "
                            + Identifiers.quote(schema, table) + " WITH NO DATA",
                    "INSERT INTO " + Identifiers.quote(schema, table) + columnList + " OVERRIDING SYSTEM VALUE SELECT " + select + " FROM "
                            + stage + " ON CONFLICT " + keys + (updates.length() == 0 ? " DO NOTHING" : " DO UPDATE SET " + updates));
            this.copySql = "COPY " + stage + columnList + " FROM STDIN (FORMAT binary)";
        }
    }

    public String target() {
        return target;
    }

    public Schema rowSchema() {
        return rowSchema;
    }

    public String copySql() {
        return copySql;
    }

    /** Encodes one row; on a bad value nothing of the row stays in the batch. */
    public void add(Struct row) {
        int start = tuples.size();
        try {
            tuples.writeShort(fields.size());
            for (int i = 0; i < fields.size(); i++) {
                Field field = fields.get(i);
                Object value = row.get(field);
                if (value == null) {
                    tuples.writeInt(-1);
                } else {
                    int at = tuples.reserveLength();
                    columns.get(i).toBinaryFrom(field.schema(), value, tuples);
                    tuples.patchLength(at);
                }
            }
            rows++;
        } catch (RuntimeException e) {
            truncate(start);
            throw e;
        }
    }

    private void truncate(int size) {
        WireBuffer kept = new WireBuffer(Math.max(size, 1 << 16));
        kept.writeBytes(tuples.array(), 0, size);
        tuples = kept;
    }

    public long bytes() {
        return tuples.size();
    }

    public long rows() {
        return rows;
    }

    public boolean isEmpty() {
        return rows == 0;
    }

    /** Hands over the encoded rows and starts an empty batch. */
    public Chunk take() {
        Chunk chunk = new Chunk(target, copySql, upsert, tuples, rows);
        tuples = new WireBuffer(1 << 16);
        rows = 0;
        return chunk;
    }

    /** Encoded rows ready for one COPY; with {@code upsert}, into a staging table merged in the same transaction. */
    public record Chunk(String target, String copySql, Upsert upsert, WireBuffer tuples, long rows) {
    }
}
