package io.sluice.sink.postgres.copy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The sink's open batches: at most one per target table and kind of write. Targets are the
 * resolved {schema, table} arrays the sink caches, compared by identity so the per-row lookup
 * hashes nothing.
 */
public final class Batches {

    /** How a batch's rows are written. */
    public enum Kind {
        /** Decoded rows, inserted with COPY. */
        INSERT,
        /** Decoded rows that may already be on the target, upserted through a staging table. */
        UPSERT,
        /** Raw COPY tuples. */
        RAW,
        /** Raw COPY tuples that may already be on the target. */
        RAW_UPSERT
    }

    private final Map<String[], EnumMap<Kind, TableBatch>> byTarget = new IdentityHashMap<>();

    public TableBatch get(String[] target, Kind kind) {
        EnumMap<Kind, TableBatch> kinds = byTarget.get(target);
        return kinds == null ? null : kinds.get(kind);
    }

    public void put(String[] target, Kind kind, TableBatch batch) {
        byTarget.computeIfAbsent(target, t -> new EnumMap<>(Kind.class)).put(kind, batch);
    }

    /** The open batches of one target. */
    public List<TableBatch> of(String[] target) {
        EnumMap<Kind, TableBatch> kinds = byTarget.get(target);
        return kinds == null ? List.of() : List.copyOf(kinds.values());
    }

    public List<TableBatch> all() {
        List<TableBatch> all = new ArrayList<>();
        byTarget.values().forEach(kinds -> all.addAll(kinds.values()));
        return all;
    }

    public Optional<TableBatch> largest() {
        return all().stream().max(Comparator.comparingLong(TableBatch::bytes));
    }
}
