package io.sluice.transforms.anonymize;

import java.nio.ByteBuffer;
import java.nio.BufferUnderflowException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.PortableColumn;
import io.sluice.transforms.rules.RuleSet;

/**
 * The rules of one table bound to its raw COPY tuples: each tuple's rewritten columns (and the
 * columns templates read) are decoded with the mapping the source gave them, rewritten by the
 * table's {@link StructPlan}, and encoded again; every other column passes on as the bytes it
 * came as. A row is never built as a struct, which is most of what the decoded path costs.
 */
final class RawPlan {

    private final TableId table;
    private final StructPlan plan;
    /** Per column, its mapping when the plan reads the column; null for columns passed on as bytes. */
    private final ColumnMapping[] mappings;
    private final boolean[] rewritten;

    private RawPlan(TableId table, StructPlan plan, ColumnMapping[] mappings, boolean[] rewritten) {
        this.table = table;
        this.plan = plan;
        this.mappings = mappings;
        this.rewritten = rewritten;
    }

    /**
     * @param raw a {@link RawTuples} record's value
     * @throws DataException naming the table and what does not fit
     */
    static RawPlan build(TableId table, Struct raw, RuleSet rules, boolean strict, boolean deterministic) {
        Struct decoding = raw.getStruct(RawTuples.DECODING);
        if (decoding == null) {
            throw new DataException("Table " + table + " arrives as raw COPY tuples that do not say how their columns decode (from an "
                    + "older Sluice source), so Anonymize cannot rewrite them; run the same Sluice version for source and transform, or "
                    + "set snapshot.raw.tuples=false on the source connector (or name the table in snapshot.raw.tuples.exclude.list)");
        }
        List<String> names = raw.getArray("columns");
        List<String> types = raw.getArray("types");
        List<PortableColumn> columns = PortableColumn.read(decoding);
        if (columns.size() != names.size()) {
            throw new DataException("A raw record of table " + table + " describes " + columns.size() + " columns and names " + names.size());
        }
        ColumnMapping[] all = new ColumnMapping[names.size()];
        SchemaBuilder row = SchemaBuilder.struct().name(table + ".RawRow");
        for (int i = 0; i < names.size(); i++) {
            PortableColumn c = columns.get(i);
            if (c != null) {
                all[i] = c.mapping(table.toString(), names.get(i), types.get(i));
            }
            // A column that cannot be described is passed on as bytes; it only matters if a rule reads it (below).
            row.field(names.get(i), all[i] != null ? all[i].schema() : Schema.OPTIONAL_BYTES_SCHEMA);
        }
        Schema rowSchema = row.build();
        Set<String> generated = new HashSet<>(PortableColumn.generated(decoding));
        StructPlan plan = StructPlan.build(table, rowSchema, StructPlan.Role.ROW, rules, strict, deterministic, generated);
        List<String> keyColumns = raw.getArray("key");
        if (!keyColumns.isEmpty() && keyColumns.stream().allMatch(k -> rowSchema.field(k) != null)) {
            // Built for its checks alone (a key column rewritten at random would lose its row): the key is inside the tuple.
            SchemaBuilder key = SchemaBuilder.struct().name(table + ".RawKey");
            keyColumns.forEach(k -> key.field(k, rowSchema.field(k).schema()));
            StructPlan.build(table, key.build(), StructPlan.Role.KEY, rules, strict, deterministic);
        }
        ColumnMapping[] mappings = new ColumnMapping[names.size()];
        boolean[] rewritten = new boolean[names.size()];
        List<String> unreadable = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            rewritten[i] = plan.rewrites(i);
            if (plan.reads(i)) {
                if (all[i] == null) {
                    unreadable.add(names.get(i) + " (" + types.get(i) + ")");
                }
                mappings[i] = all[i];
            }
        }
        if (!unreadable.isEmpty()) {
            throw new DataException("Table " + table + " arrives as raw COPY tuples, and Anonymize cannot decode its column(s) "
                    + String.join(", ", unreadable) + " there; name the table in snapshot.raw.tuples.exclude.list on the source "
                    + "connector so its rows come decoded");
        }
        return new RawPlan(table, plan, mappings, rewritten);
    }

    /** The tuples with their rewritten columns replaced; {@code rows} tuples of binary COPY, without header or trailer. */
    byte[] apply(byte[] tuples, int rows) {
        int n = mappings.length;
        WireBuffer out = new WireBuffer(tuples.length + (tuples.length >> 3) + 64);
        ByteBuffer in = ByteBuffer.wrap(tuples);
        Object[] values = new Object[n];
        int[] starts = new int[n];
        int[] lengths = new int[n];
        try {
            for (int r = 0; r < rows; r++) {
                int count = in.getShort();
                if (count != n) {
                    throw new DataException("A raw tuple of table " + table + " holds " + count + " columns where its record names " + n);
                }
                for (int i = 0; i < n; i++) {
                    int length = in.getInt();
                    starts[i] = in.position();
                    lengths[i] = length;
                    if (length > 0) {
                        in.position(starts[i] + length);
                    }
                    values[i] = mappings[i] == null || length < 0 ? null : mappings[i].fromBinary(ByteBuffer.wrap(tuples, starts[i], length).slice());
                }
                plan.rewrite(values, true, Set.of());
                out.writeShort(n);
                // Columns passed on as bytes lie side by side in the tuple, length prefixes and all: copied a run at a time.
                int runFrom = -1;
                int runTo = -1;
                for (int i = 0; i < n; i++) {
                    if (!rewritten[i]) {
                        if (runFrom < 0) {
                            runFrom = starts[i] - 4;
                        }
                        runTo = starts[i] + Math.max(lengths[i], 0);
                        continue;
                    }
                    if (runFrom >= 0) {
                        out.writeBytes(tuples, runFrom, runTo - runFrom);
                        runFrom = -1;
                    }
                    if (values[i] == null) {
                        out.writeInt(-1);
                    } else {
                        int at = out.reserveLength();
                        mappings[i].toBinary(values[i], out);
                        out.patchLength(at);
                    }
                }
                if (runFrom >= 0) {
                    out.writeBytes(tuples, runFrom, runTo - runFrom);
                }
            }
        } catch (BufferUnderflowException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new DataException("The raw tuples of table " + table + " end before their " + rows + " rows do", e);
        }
        if (in.hasRemaining()) {
            throw new DataException("The raw tuples of table " + table + " hold more than the " + rows + " rows their record counts");
        }
        return out.toByteArray();
    }
}
