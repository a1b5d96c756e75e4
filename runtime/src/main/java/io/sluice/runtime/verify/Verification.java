package io.sluice.runtime.verify;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.connector.postgres.SelectedTables;
import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.connector.postgres.SourceChanges;
import io.sluice.connector.postgres.SourcePoint;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.pipeline.PipelineTransforms;
import io.sluice.runtime.targets.TargetKind;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.schemas.postgres.Relations;
import io.sluice.sink.postgres.PostgresSinkConfig;
import io.sluice.sink.postgres.PostgresTargetState;
import io.sluice.transforms.anonymize.AnonymizeConfig;

/**
 * {@code sluice verify}: compares each selected table of a pipeline on its PostgreSQL target with
 * its source, and reports each one equal or how it differs. Row filters and column lists are
 * taken into account; columns Anonymize changes are left out (said so), and a table whose key
 * it changes is compared as a whole.
 *
 * <p>While the pipeline streams, both sides are read at one consistent point and nothing waits:
 * the source in the snapshot of a temporary slot ({@link SourcePoint}), the target in one
 * transaction once it has applied a heartbeat written after that snapshot, and the changes
 * between the two (read from the temporary slot) are accounted for ({@link WindowChanges}). A
 * table those changes leave unsettled (emptied, say) is compared again at a new point, up to
 * {@value #ROUNDS} times. With the pipeline stopped, the target is compared as it is.
 */
public final class Verification {

    /** Exit codes: everything equal, something differs, could not compare. */
    public static final int EQUAL = 0;
    public static final int DIFFERS = 1;
    public static final int CANNOT = 2;
    /** Points a table is compared at, at most, while changes leave it unsettled. */
    static final int ROUNDS = 3;

    private Verification() {
    }

    /**
     * How to compare.
     *
     * @param waitMillis how long to wait for the target to apply what the source had at the point (and for a repair)
     * @param repair     re-sync what differs through the running pipeline, then compare again
     * @param jobs       tables compared at once
     */
    public record Settings(long waitMillis, boolean repair, int jobs) {
    }

    /**
     * Compares the tables the pipeline selects and prints the report.
     *
     * @return {@link #EQUAL}, {@link #DIFFERS} or {@link #CANNOT} (after a repair, the second comparison's)
     */
    public static int run(PipelineSpec spec, Settings settings, PrintStream out, PrintStream err) throws SQLException {
        long waitMillis = settings.waitMillis();
        if (spec.targetKind() == TargetKind.WEBHOOK) {
            err.println("sluice verify: compares PostgreSQL and OpenSearch targets; comparing what webhook subscribers got is planned, "
                    + "not built yet");
            return CANNOT;
        }
        if (!PipelineTransforms.onlyAnonymize(spec.transforms())) {
            err.println("sluice verify: the pipeline's transforms other than Anonymize change rows in ways verify cannot follow: "
                    + "compare without them (a pipeline file without those transforms, same source and target)");
            return CANNOT;
        }
        PostgresSourceConfig config = new PostgresSourceConfig(spec.source());
        List<String> subset = spec.source().keySet().stream().filter(k -> k.startsWith("subset.")).sorted().toList();
        if (!subset.isEmpty()) {
            err.println("sluice verify: " + String.join(", ", subset) + ": comparing a staging subset is planned, not built yet");
            return CANNOT;
        }
        if (spec.targetKind() == TargetKind.OPENSEARCH) {
            return IndexVerification.run(spec, settings, out, err);
        }
        PostgresSinkConfig target = new PostgresSinkConfig(spec.target());
        PostgresTargetState state = new PostgresTargetState(spec.target());
        List<AnonymizeConfig> anonymized = new ArrayList<>();
        for (Map<String, String> props : PipelineTransforms.anonymizers(spec.transforms()).values()) {
            anonymized.add(AnonymizeConfig.parse(props));
        }
        try (Connection catalog = PgConnect.open(PostgresSourceConnector.endpoint(config), "sluice verify");
             Connection sink = PgConnect.open(target.endpoint(), "sluice verify")) {
            TableSide.settle(sink);
            List<ComparedTable> tables = new ArrayList<>();
            for (SelectedTables.Table t : SelectedTables.of(config, catalog)) {
                tables.add(TablePlans.plan(catalog, t, config.topicPrefix(), target.tableNameFormat(), anonymized));
            }
            if (tables.isEmpty()) {
                err.println("sluice verify: the pipeline selects no table on the source: nothing to compare");
                return CANNOT;
            }
            boolean slotInUse = SourcePoint.streaming(config, catalog);
            boolean streaming = slotInUse && state.recordsPositions(sink, spec.sourceName());
            out.println(streaming ? "The pipeline is streaming: source and target are compared at one point, the changes after it "
                    + "accounted for" : (slotInUse ? "The target records no source position of pipeline " + spec.name() + " (a Kafka "
                    + "Connect sink keeps Kafka offsets instead)" : "The pipeline is not streaming (slot "
                    + config.slotName() + " is not in use)") + ": the target is compared as it is with the source as it is now; changes "
                    + "the pipeline has not applied show as differences");
            Endpoints endpoints = new Endpoints(PostgresSourceConnector.endpoint(config), target.endpoint());
            Map<ComparedTable, TableComparison.Outcome> outcomes = compareAll(config, state, streaming, spec.sourceName(), tables, catalog,
                    sink, settings, endpoints);
            int result = report(outcomes, out);
            if (!settings.repair() || result != DIFFERS) {
                return result;
            }
            if (!streaming) {
                err.println("sluice verify: --repair re-syncs what differs through the running pipeline, and pipeline " + spec.name()
                        + " is not streaming: start it (sluice run), then run verify --repair again");
                return CANNOT;
            }
            if (!Repair.run(new SourceAdmin(spec.source()), outcomes, waitMillis, out, err)) {
                return CANNOT;
            }
            out.println("Comparing again after the repair:");
            return report(compareAll(config, state, true, spec.sourceName(), tables, catalog, sink, settings, endpoints), out);
        }
    }

    /** Compares the tables, those changes leave unsettled again at new points; a table missing on the target maps to null. */
    private static Map<ComparedTable, TableComparison.Outcome> compareAll(PostgresSourceConfig config, PostgresTargetState state,
                                                                         boolean streaming, String source, List<ComparedTable> tables,
                                                                         Connection catalog, Connection sink, Settings settings,
                                                                         Endpoints endpoints) throws SQLException {
        Map<ComparedTable, TableComparison.Outcome> outcomes = new LinkedHashMap<>();
        List<ComparedTable> pending = new ArrayList<>();
        for (ComparedTable t : tables) {
            if (Relations.exists(sink, t.target())) {
                pending.add(t);
            }
            outcomes.put(t, null);
        }
        for (int round = 1; round <= ROUNDS && !pending.isEmpty(); round++) {
            Map<ComparedTable, TableComparison.Outcome> found = round(config, state, streaming, source, pending, catalog, sink,
                    settings.waitMillis(), endpoints, settings.jobs());
            outcomes.putAll(found);
            pending = found.values().stream().filter(o -> o.unsettled() != null).map(TableComparison.Outcome::table).toList();
        }
        return outcomes;
    }

    /** Compares the tables at one new point. */
    private static Map<ComparedTable, TableComparison.Outcome> round(PostgresSourceConfig config, PostgresTargetState state, boolean streaming,
                                                                    String source, List<ComparedTable> tables, Connection catalog,
                                                                    Connection sink, long waitMillis, Endpoints endpoints, int jobs)
            throws SQLException {
        Map<ComparedTable, TableComparison.Outcome> out = new LinkedHashMap<>();
        try (SourcePoint point = streaming ? SourcePoint.open(config, "sluice verify") : SourcePoint.now(config, "sluice verify")) {
            TableSide.settle(point.snapshot());
            if (streaming) {
                long heartbeat = point.commitOf(point.mark(config.topicPrefix()), waitMillis);
                awaitApplied(state, sink, source, heartbeat, waitMillis);
            }
            long applied = streaming ? wholeSnapshot(state, sink, source, waitMillis) : 0;
            if (!streaming) {
                try (Statement s = sink.createStatement()) {
                    s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
                }
            }
            try {
                Map<String, List<SourceChanges.Table>> carried = Map.of();
                if (streaming) {
                    carried = byTable(point.readThrough(applied, waitMillis), tables, catalog);
                }
                out.putAll(compareAtOnce(tables, carried, point.snapshot(), sink, endpoints, jobs));
            } finally {
                try (Statement s = sink.createStatement()) {
                    s.execute("ROLLBACK");
                }
            }
        }
        return out;
    }

    /** The two servers, for the connections that compare tables at once. */
    private record Endpoints(PgEndpoint source, PgEndpoint target) {
    }

    /**
     * Compares the tables, {@code jobs} at a time, each on a pair of connections that read in the
     * snapshots of {@code source} and {@code target}; the outcomes in the tables' order.
     */
    private static Map<ComparedTable, TableComparison.Outcome> compareAtOnce(List<ComparedTable> tables,
                                                                            Map<String, List<SourceChanges.Table>> carried,
                                                                            Connection source, Connection target, Endpoints endpoints,
                                                                            int jobs) throws SQLException {
        int workers = Math.max(1, Math.min(jobs, tables.size()));
        Map<ComparedTable, TableComparison.Outcome> out = new LinkedHashMap<>();
        try (SharedSnapshot sources = SharedSnapshot.of(source, () -> PgConnect.open(endpoints.source(), "sluice verify"), workers - 1);
             SharedSnapshot targets = SharedSnapshot.of(target, () -> PgConnect.open(endpoints.target(), "sluice verify"), workers - 1)) {
            java.util.concurrent.BlockingQueue<Integer> free = new java.util.concurrent.ArrayBlockingQueue<>(workers);
            for (int i = 0; i < workers; i++) {
                free.add(i);
            }
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(workers, r -> {
                Thread t = new Thread(r, "sluice-verify");
                t.setDaemon(true);
                return t;
            });
            try {
                Map<ComparedTable, java.util.concurrent.Future<TableComparison.Outcome>> running = new LinkedHashMap<>();
                for (ComparedTable t : tables) {
                    WindowChanges.Folded window = WindowChanges.fold(t, carried.getOrDefault(t.name(), List.of()));
                    running.put(t, pool.submit(() -> {
                        int pair = free.take();
                        try {
                            return TableComparison.compare(t, sources.connections().get(pair), targets.connections().get(pair), window);
                        } finally {
                            free.add(pair);
                        }
                    }));
                }
                for (Map.Entry<ComparedTable, java.util.concurrent.Future<TableComparison.Outcome>> e : running.entrySet()) {
                    out.put(e.getKey(), e.getValue().get());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("Interrupted while comparing", e);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof SQLException sql) {
                    throw sql;
                }
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } finally {
                pool.shutdownNow();
            }
        }
        return out;
    }

    /**
     * Opens the target's repeatable-read transaction at a moment it holds whole source
     * transactions only (a batch of the pipeline may end inside one, and the next one completes
     * it soon after); the commit position it has applied through.
     */
    private static long wholeSnapshot(PostgresTargetState state, Connection sink, String source, long waitMillis) throws SQLException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        while (true) {
            try (Statement s = sink.createStatement()) {
                s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
            }
            PostgresTargetState.Applied applied = state.appliedThrough(sink, source);
            if (applied.whole()) {
                return applied.commitLsn();
            }
            try (Statement s = sink.createStatement()) {
                s.execute("ROLLBACK");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the target was inside a source transaction each time it was read for " + waitMillis / 1000
                        + " s (one too large for a batch?): give it longer with --wait");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the target", e);
            }
        }
    }

    /** Waits until the target has applied everything through {@code commitLsn}. */
    private static void awaitApplied(PostgresTargetState state, Connection sink, String source, long commitLsn, long waitMillis)
            throws SQLException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        while (Long.compareUnsigned(state.appliedThrough(sink, source).commitLsn(), commitLsn) < 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the target has not applied the source's changes through " + Lsn.format(commitLsn)
                        + " within " + waitMillis / 1000 + " s: is the pipeline keeping up (sluice status)? Give it longer with --wait");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the target", e);
            }
        }
    }

    /**
     * The stream's changes per compared table: a partition's (when partitions are published as
     * themselves) count as its root's.
     */
    private static Map<String, List<SourceChanges.Table>> byTable(SourceChanges changes, List<ComparedTable> tables, Connection catalog)
            throws SQLException {
        java.util.Set<String> compared = new java.util.HashSet<>();
        tables.forEach(t -> compared.add(t.name()));
        Map<String, List<SourceChanges.Table>> out = new LinkedHashMap<>();
        for (SourceChanges.Table t : changes.tables().values()) {
            String name = t.schema() + "." + t.name();
            if (!compared.contains(name)) {
                name = root(catalog, t.schema(), t.name());
            }
            out.computeIfAbsent(name, k -> new ArrayList<>()).add(t);
        }
        return out;
    }

    private static String root(Connection c, String schema, String table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT n.nspname || '.' || r.relname FROM pg_catalog.pg_class r "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace WHERE r.oid = pg_catalog.pg_partition_root(?::regclass)")) {
            s.setString(1, Identifiers.quote(schema, table));
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : schema + "." + table;
            }
        } catch (SQLException e) {
            return schema + "." + table; // gone since (dropped): its changes are no compared table's
        }
    }

    private static int report(Map<ComparedTable, TableComparison.Outcome> outcomes, PrintStream out) {
        int result = EQUAL;
        for (Map.Entry<ComparedTable, TableComparison.Outcome> e : outcomes.entrySet()) {
            ComparedTable t = e.getKey();
            TableComparison.Outcome o = e.getValue();
            if (o == null) {
                out.println(t.name() + ": DIFFERS: the target has no table " + t.target());
                result = Math.max(result, DIFFERS);
                continue;
            }
            out.println(o.line());
            if (!t.leftOut().isEmpty()) {
                out.println("  not compared: " + String.join(", ", t.leftOut()));
            }
            if (o.unsettled() != null) {
                result = CANNOT;
            } else if (!o.equal()) {
                result = Math.max(result, DIFFERS);
            }
        }
        out.println(result == EQUAL ? outcomes.size() + " tables equal" : result == DIFFERS ? "Some tables differ"
                : "Some tables could not be compared: changes kept them unsettled at " + ROUNDS + " points in a row; run it again");
        return result;
    }
}
