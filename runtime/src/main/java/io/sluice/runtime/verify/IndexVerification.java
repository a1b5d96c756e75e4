package io.sluice.runtime.verify;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.connector.postgres.SelectedTables;
import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.connector.postgres.SourceChanges;
import io.sluice.connector.postgres.SourcePoint;
import io.sluice.connector.postgres.SourceRows;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.pipeline.PipelineTransforms;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.sink.opensearch.OpenSearchDocuments;
import io.sluice.transforms.anonymize.AnonymizeConfig;

/**
 * {@code sluice verify} of an OpenSearch target: per selected table, the documents of its alias
 * against the documents the sink would write for the source's rows, by id ({@link IndexComparison}).
 *
 * <p>While the pipeline streams, the source is read in the snapshot of a temporary slot, and the
 * index once the pipeline's slot is confirmed past a heartbeat written after it: every change
 * before the point is then indexed (the slot is confirmed only up to what the target holds). A
 * second heartbeat after the index was read bounds what it can hold: a document the changes in
 * between (read from the temporary slot) touched must be in one of the states they took the row
 * through, no older than what the target is known to hold ({@link DocumentStates}). A table
 * emptied meanwhile is compared again at a new point, up to {@value Verification#ROUNDS} times.
 * With the pipeline stopped, the index is compared as it is.
 */
final class IndexVerification {

    private IndexVerification() {
    }

    /** A table as compared: what the source reads, the alias, the fields compared, and what is left out. */
    private record Planned(ComparedTable table, String alias, SourceRows rows) {
    }

    static int run(PipelineSpec spec, Verification.Settings settings, PrintStream out, PrintStream err) throws SQLException {
        PostgresSourceConfig config = new PostgresSourceConfig(spec.source());
        List<AnonymizeConfig> anonymized = new ArrayList<>();
        for (Map<String, String> props : PipelineTransforms.anonymizers(spec.transforms()).values()) {
            anonymized.add(AnonymizeConfig.parse(props));
        }
        try (Connection catalog = PgConnect.open(PostgresSourceConnector.endpoint(config), "sluice verify");
             OpenSearchDocuments documents = new OpenSearchDocuments(spec.target())) {
            List<Planned> planned = new ArrayList<>();
            int result = Verification.EQUAL;
            for (SelectedTables.Table t : SelectedTables.of(config, catalog)) {
                ComparedTable table = TablePlans.plan(catalog, t, config.topicPrefix(), "${schema}.${table}", anonymized);
                if (!table.keyed()) {
                    out.println(table.name() + ": NOT COMPARED: " + (table.sourceKey().isEmpty()
                            ? "it has no key, so the sink indexes no document of it (give it a primary key)"
                            : "its key is anonymized, so document ids are not the source's (comparing such a table is planned)"));
                    result = Verification.CANNOT;
                    continue;
                }
                String alias = documents.alias(spec.sourceName(), t.schema(), t.name());
                planned.add(new Planned(table, alias, SourceRows.of(config, catalog, t.schema(), t.name(), table.columns(), table.filter())));
            }
            if (planned.isEmpty() && result == Verification.EQUAL) {
                err.println("sluice verify: the pipeline selects no table on the source: nothing to compare");
                return Verification.CANNOT;
            }
            boolean slotInUse = SourcePoint.streaming(config, catalog);
            // `sluice run` confirms the slot once the index holds the changes; a Connect cluster once Kafka does.
            boolean streaming = slotInUse && spec.offsets() != null && java.nio.file.Files.exists(spec.offsets());
            out.println(streaming ? "The pipeline is streaming: source and index are compared at one point, the changes after it "
                    + "accounted for" : (slotInUse ? "Slot " + config.slotName() + " is in use, but not by `sluice run` with these "
                    + "options (no offsets at " + spec.offsets() + "; a Kafka Connect cluster confirms the slot once Kafka holds the "
                    + "changes, not the index)" : "The pipeline is not streaming (slot " + config.slotName() + " is not in use)")
                    + ": the index is compared as it is with the source as it is now; changes the pipeline has not applied show as "
                    + "differences");
            SourceAdmin admin = new SourceAdmin(spec.source());
            Compared first = compareAll(config, admin, documents, planned, streaming, settings.waitMillis(), out);
            result = Math.max(result, first.result());
            out.println(result == Verification.EQUAL ? planned.size() + " tables equal" : result == Verification.DIFFERS
                    ? "Some tables differ" : "Some tables could not be compared");
            if (!settings.repair() || result != Verification.DIFFERS) {
                return result;
            }
            if (!streaming) {
                err.println("sluice verify: --repair re-syncs what differs through the running pipeline, and pipeline " + spec.name()
                        + " is not streaming: start it (sluice run), then run verify --repair again");
                return Verification.CANNOT;
            }
            if (!Repair.await(admin, requestRepairs(admin, documents, first.found(), out), settings.waitMillis(), out, err)) {
                return Verification.CANNOT;
            }
            out.println("Comparing again after the repair:");
            Compared again = compareAll(config, admin, documents, planned, true, settings.waitMillis(), out);
            out.println(again.result() == Verification.EQUAL ? planned.size() + " tables equal" : again.result() == Verification.DIFFERS
                    ? "Some tables differ" : "Some tables could not be compared");
            return again.result();
        }
    }

    /** What a comparison of every table found, and its exit code. */
    private record Compared(Map<Planned, IndexComparison.Found> found, int result) {
    }

    /** Compares the tables (a table emptied meanwhile again at a new point) and prints the report's table lines. */
    private static Compared compareAll(PostgresSourceConfig config, SourceAdmin admin, OpenSearchDocuments documents, List<Planned> planned,
                                       boolean streaming, long waitMillis, PrintStream out) throws SQLException {
        int result = Verification.EQUAL;
        Map<Planned, IndexComparison.Found> found = new LinkedHashMap<>();
        List<Planned> pending = new ArrayList<>();
        for (Planned p : planned) {
            if (!documents.exists(p.alias())) {
                out.println(p.table().name() + ": DIFFERS: " + documents.display() + " has no index or alias " + p.alias());
                found.put(p, null);
                result = Verification.DIFFERS;
                continue;
            }
            pending.add(p);
        }
        for (int round = 1; round <= Verification.ROUNDS && !pending.isEmpty(); round++) {
            List<Planned> next = new ArrayList<>();
            try (SourcePoint point = streaming ? SourcePoint.open(config, "sluice verify") : SourcePoint.now(config, "sluice verify")) {
                long confirmed = 0;
                if (streaming) {
                    confirmed = point.commitOf(point.mark(config.topicPrefix()), waitMillis);
                    awaitConfirmed(admin, confirmed, waitMillis);
                }
                Map<Planned, Map<String, Long>> held = new LinkedHashMap<>();
                for (Planned p : pending) {
                    held.put(p, IndexComparison.held(documents, p.alias(), p.table().columns()));
                }
                // Read after the index: the changes up to here bound what it can hold.
                SourceChanges changes = null;
                if (streaming) {
                    long end = point.commitOf(point.mark(config.topicPrefix()), waitMillis);
                    changes = point.readThrough(end, waitMillis);
                }
                for (Planned p : pending) {
                    SourceChanges.Table carried = changes == null ? null : changes.tables().get(p.table().name());
                    if (carried != null && carried.truncated()) {
                        next.add(p); // emptied meanwhile: compared again at a new point
                        continue;
                    }
                    Map<String, DocumentStates.Accepted> touched = carried == null ? Map.of()
                            : DocumentStates.of(p.rows(), carried, confirmed, point.snapshot(), documents, p.table().columns());
                    found.put(p, IndexComparison.compare(p.rows(), point.snapshot(), documents, held.get(p), p.table().columns(), touched));
                }
            }
            pending = next;
        }
        for (Planned p : planned) {
            if (pending.contains(p)) {
                out.println(p.table().name() + ": NOT COMPARED: it was emptied (TRUNCATE) while it was compared, at "
                        + Verification.ROUNDS + " points in a row; run it again");
                result = Verification.CANNOT;
            } else if (found.get(p) != null) {
                result = Math.max(result, report(p, found.get(p), out));
            }
        }
        return new Compared(found, result);
    }

    /**
     * Asks the pipeline to re-sync what differs: the rows of the differing ids by key where every
     * one's key is known (a document only the index has gets it from its fields, for key types
     * whose JSON is their text), else the whole table; the requests, by id.
     */
    private static Map<Long, String> requestRepairs(SourceAdmin admin, OpenSearchDocuments documents,
                                                    Map<Planned, IndexComparison.Found> found, PrintStream out) throws SQLException {
        Map<Long, String> requests = new LinkedHashMap<>();
        for (Map.Entry<Planned, IndexComparison.Found> e : found.entrySet()) {
            Planned p = e.getKey();
            IndexComparison.Found f = e.getValue();
            if (f != null && f.equal()) {
                continue;
            }
            List<String[]> keys = f == null ? null : keysOf(p, f, documents);
            if (keys != null && keys.size() <= TableComparison.ROWS_NAMED) {
                long id = admin.requestRepair(p.table().source(), keys);
                requests.put(id, p.table().name());
                out.println("Repairing " + keys.size() + (keys.size() == 1 ? " row of " : " rows of ") + p.table().name() + " (request "
                        + id + ")");
            } else {
                long id = admin.requestResync(p.table().source());
                requests.put(id, p.table().name());
                out.println("Re-syncing " + p.table().name() + " whole (request " + id + "): " + (f == null ? "the index is missing"
                        : keys == null ? "some documents only the index has do not name their key" : "too many rows differ to name"));
            }
        }
        return requests;
    }

    /** The keys of every differing id; null when one is not known. */
    private static List<String[]> keysOf(Planned p, IndexComparison.Found f, OpenSearchDocuments documents) {
        List<String[]> keys = new ArrayList<>();
        java.util.Set<String> unknown = new java.util.TreeSet<>();
        for (java.util.Set<String> ids : List.of(f.missing(), f.changed(), f.extra())) {
            for (String id : ids) {
                String[] key = f.keys().get(id);
                if (key == null) {
                    unknown.add(id);
                } else {
                    keys.add(key);
                }
            }
        }
        if (unknown.isEmpty()) {
            return keys;
        }
        if (unknown.size() > TableComparison.ROWS_NAMED || !p.rows().keyTypes().stream().allMatch(IndexVerification::textInJson)) {
            return null;
        }
        Map<String, com.fasterxml.jackson.databind.JsonNode> held = documents.byIds(p.alias(), unknown);
        for (String id : unknown) {
            com.fasterxml.jackson.databind.JsonNode body = held.get(id);
            if (body == null) {
                continue; // gone since: nothing to repair
            }
            String[] key = new String[p.rows().key().size()];
            for (int i = 0; i < key.length; i++) {
                com.fasterxml.jackson.databind.JsonNode v = body.get(p.rows().key().get(i));
                if (v == null || !v.isValueNode() || v.isNull()) {
                    return null;
                }
                key[i] = v.asText();
            }
            keys.add(key);
        }
        return keys;
    }

    /** Whether the sink writes a key column of this type as JSON whose text is the value's text, which the type reads back. */
    private static boolean textInJson(String type) {
        return type.equals("integer") || type.equals("bigint") || type.equals("smallint") || type.equals("text") || type.equals("uuid")
                || type.startsWith("character varying") || type.equals("boolean");
    }

    /** Waits until the pipeline's slot is confirmed through {@code commitLsn}: the target holds every change before it. */
    private static void awaitConfirmed(SourceAdmin admin, long commitLsn, long waitMillis) throws SQLException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        while (true) {
            Optional<SourceAdmin.Slot> slot = admin.slot();
            if (slot.isPresent() && Long.compareUnsigned(slot.get().confirmedFlush(), commitLsn) >= 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the pipeline's slot was not confirmed through " + Lsn.format(commitLsn) + " within "
                        + waitMillis / 1000 + " s, so the index may not hold the source's changes up to the comparison's point: is the "
                        + "pipeline keeping up (sluice status)? Give it longer with --wait");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the pipeline", e);
            }
        }
    }

    /** Prints a table's line; its exit code. */
    private static int report(Planned p, IndexComparison.Found f, PrintStream out) {
        String name = p.table().name();
        int result;
        if (!f.equal()) {
            out.println(name + ": DIFFERS: " + f.sourceDocuments() + " rows on the source, " + f.indexDocuments() + " documents in "
                    + p.alias());
            line(out, "missing from the index", f.missing());
            line(out, "in the index, not on the source", f.extra());
            line(out, "with other contents", f.changed());
            result = Verification.DIFFERS;
        } else {
            out.println(name + ": EQUAL: " + f.sourceDocuments() + " rows, documents in " + p.alias());
            result = Verification.EQUAL;
        }
        if (!p.table().leftOut().isEmpty()) {
            out.println("  not compared: " + String.join(", ", p.table().leftOut()));
        }
        return result;
    }

    private static void line(PrintStream out, String what, Set<String> ids) {
        if (ids.isEmpty()) {
            return;
        }
        List<String> named = ids.stream().limit(IndexComparison.NAMED).toList();
        out.println("  " + ids.size() + " " + what + ": ids " + String.join(", ", named) + (ids.size() > named.size() ? ", ..." : ""));
    }
}
