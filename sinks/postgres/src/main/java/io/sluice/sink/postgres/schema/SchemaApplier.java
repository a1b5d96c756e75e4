package io.sluice.sink.postgres.schema;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.sluice.schemas.ddl.DumpScript;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.pgstate.OwnTables;
import io.sluice.sink.postgres.connections.ConnectionPool;
import io.sluice.sink.postgres.state.SnapshotRecords;
import io.sluice.sink.postgres.state.SnapshotClaims;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a snapshot's schema to the target: pre-data before the rows, post-data after them.
 * Post-data is where a load spends its time on few cores. Each table's own indexes and
 * constraints are built as soon as its rows are in, while other tables still load; what is left
 * at the end runs in phases on several connections: indexes in parallel, then key constraints,
 * index attachments, statistics, foreign keys (they need the keys and good plans: added
 * unchecked, then validated in parallel), then everything else in dump order.
 */
public final class SchemaApplier implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaApplier.class);
    private static final Set<String> PHASED = Set.of("INDEX", "CONSTRAINT", "CHECK CONSTRAINT", "INDEX ATTACH", "FK CONSTRAINT");

    private final PgEndpoint endpoint;
    private final PreData preData;
    private final TargetDialect dialect;
    private final boolean vacuum;
    private final ConnectionPool postData;
    private final ExecutorService builders;
    private final List<CompletableFuture<Void>> tableBuilds = new ArrayList<>();
    private final Set<String> vacuumed = ConcurrentHashMap.newKeySet();
    private final Set<String> analyzed = ConcurrentHashMap.newKeySet();

    /**
     * @param parallelism        post-data statements run at once
     * @param maintenanceWorkMem maintenance_work_mem of the post-data connections (index builds)
     * @param vacuum             whether to vacuum and analyze each loaded table
     */
    public SchemaApplier(PgEndpoint endpoint, int parallelism, String maintenanceWorkMem, boolean vacuum) {
        this.endpoint = endpoint;
        this.dialect = new TargetDialect(endpoint);
        this.preData = new PreData(endpoint, dialect);
        this.vacuum = vacuum;
        String memory = maintenanceWorkMem.replace("'", "");
        this.postData = new ConnectionPool(endpoint, "sluice post-data", c -> {
            try (Statement s = c.createStatement()) {
                // Foreign-key validation joins whole tables: it gets the index builds' memory too.
                s.execute("SET maintenance_work_mem = '" + memory + "'; SET work_mem = '" + memory + "'");
            } catch (SQLException e) {
                throw new ConnectException("Setting maintenance_work_mem = '" + memory + "' on " + endpoint.display() + " failed: "
                        + e.getMessage() + ". Set post.data.maintenance.work.mem to a valid size such as 256MB", e);
            }
        });
        this.builders = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "sluice-post-data");
            t.setDaemon(true);
            return t;
        });
    }

    /** Opens a post-data connection in the background: the first table's indexes then find it ready. */
    public void openAhead() {
        postData.openAhead(1, builders);
    }

    /**
     * Creates what must exist before rows arrive. With {@link ExistingTables#FAIL}, any loaded
     * table already on the target stops the run before anything changes; with the other
     * policies the target must hold all the loaded tables (their schema is kept) or none.
     * Tables that an earlier, interrupted start of the same source's snapshot created (see
     * {@link SnapshotClaims}) are dropped and created again, whatever the policy: the snapshot
     * starts over, and they hold nothing but its partial rows.
     *
     * @param loaded the tables the snapshot will load, as {schema, table}
     * @param source the source's name, under which the created tables are claimed
     * @return true when the tables were created here, so they hold nothing but what this load writes
     */
    public boolean applyPreData(String script, List<String[]> loaded, ExistingTables policy, SnapshotClaims claims, String source) {
        return applyPreData(script, loaded, policy, claims, source, null, null);
    }

    /**
     * {@link #applyPreData(String, List, ExistingTables, SnapshotClaims, String)}, recording that
     * the snapshot began loading ({@link #snapshotStarted}) in the same transaction when it creates
     * the tables: the schema, the claim and the start then cost three round trips together, where
     * they took seven (2.8 s before the first row through a 200 ms link).
     *
     * @return true when the tables were created here, and the start recorded with them
     */
    public boolean applyPreData(String script, List<String[]> loaded, ExistingTables policy, SnapshotClaims claims, String source,
                                SnapshotRecords records, SnapshotMark mark) {
        return preData.apply(script, loaded, policy, claims, source, records, mark);
    }

    /** A snapshot's identity and tables, as the target records them ({@link SnapshotRecords}). */
    public record SnapshotMark(String source, String database, long takenMicros, List<String> sourceTables, List<String> targetTables) {
    }

    /** Records on the target that a source's snapshot began loading. */
    public void snapshotStarted(SnapshotRecords records, SnapshotMark mark) {
        try {
            postData.use(c -> records.started(c, mark.source(), mark.database(), mark.takenMicros(), mark.sourceTables(), mark.targetTables()));
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    /**
     * The snapshot is complete: the target records it finished, and the source's claim on the
     * tables its snapshot created is cleared.
     */
    public void snapshotFinished(SnapshotClaims claims, SnapshotRecords records, SnapshotMark mark) {
        try {
            // On a post-data connection: they are open by now, and a new one costs round trips. The
            // record and the release in one transaction, two round trips (seven one by one).
            postData.use(c -> OwnTables.createAndWrite(c, List.of(records.creation()), List.of(records.finishWrite(c, mark.source(),
                    mark.database(), mark.takenMicros(), mark.sourceTables(), mark.targetTables()), claims.releaseWrite(mark.source()))));
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    /**
     * Starts building one table's own post-data as soon as its rows are committed, on the
     * post-data connections, while other tables are still loading: a vacuum first (it sets every
     * row's hint bits and the visibility map, so the index builds read clean pages, foreign keys
     * are checked with index-only scans, and autovacuum finds nothing to do), then its indexes at
     * once, then its key and other constraints, then statistics. Failures surface in
     * {@link #checkFailures()} and {@link #applyPostData}.
     *
     * @param table  the target table {schema, table}
     * @param rowsIn completes when every row of the table is committed
     * @param script the table's post-data; null for none
     * @return completes when the table is built
     */
    public CompletableFuture<Void> buildTable(String[] table, CompletableFuture<?> rowsIn, String script, boolean tolerateExisting) {
        DumpScript dump = fit(script, "post-data of " + Identifiers.quote(table[0], table[1]));
        String name = Identifiers.quote(table[0], table[1]);
        CompletableFuture<Void> build = rowsIn
                .thenRunAsync(() -> vacuum(name), builders)
                .thenComposeAsync(vacuumed -> inParallel(dump.filter(e -> e.type().equals("INDEX")), tolerateExisting), builders)
                .thenRunAsync(() -> {
                    for (DumpScript.Entry entry : dump.filter(e -> !e.type().equals("INDEX")).entries()) {
                        apply(dump.preamble(), entry, tolerateExisting);
                    }
                    analyze(name);
                }, builders);
        synchronized (tableBuilds) {
            tableBuilds.add(build);
        }
        return build;
    }

    /** A post-data script fitted to the target; nothing to fit when it is empty. */
    private DumpScript fit(String script, String what) {
        DumpScript dump = DumpScript.parse(script);
        return dump.isEmpty() && DumpScript.withoutComments(dump.preamble()).isBlank() ? dump : dialect.fit(dump, what);
    }

    /** Throws the failure of a table's post-data build, if one failed. */
    public void checkFailures() {
        synchronized (tableBuilds) {
            for (CompletableFuture<Void> build : tableBuilds) {
                if (build.isCompletedExceptionally()) {
                    join(build);
                }
            }
        }
    }

    /**
     * Waits for the tables' own builds, then creates the rest: index attachments, foreign keys,
     * triggers and the like, and sets sequences. Tables not vacuumed and analyzed yet (a resumed
     * snapshot sends no per-table events) are before the foreign keys, whose validation needs
     * good plans.
     *
     * @param loaded the tables the snapshot loaded, {schema, table}
     */
    public void applyPostData(String script, List<String[]> loaded, boolean tolerateExisting) {
        long started = System.nanoTime();
        List<CompletableFuture<Void>> builds;
        synchronized (tableBuilds) {
            builds = List.copyOf(tableBuilds);
        }
        builds.forEach(SchemaApplier::join);
        DumpScript dump = fit(script, "post-data schema");
        join(inParallel(dump.filter(e -> e.type().equals("INDEX")), tolerateExisting));
        join(inParallel(dump.filter(e -> e.type().equals("CONSTRAINT") || e.type().equals("CHECK CONSTRAINT")), tolerateExisting));
        inOrder(dump.filter(e -> e.type().equals("INDEX ATTACH")), tolerateExisting);
        join(CompletableFuture.allOf(loaded.stream().map(t -> Identifiers.quote(t[0], t[1]))
                .map(t -> CompletableFuture.runAsync(() -> {
                    vacuum(t);
                    analyze(t);
                }, builders)).toArray(CompletableFuture[]::new)));
        foreignKeys(dump.filter(e -> e.type().equals("FK CONSTRAINT")), tolerateExisting);
        inOrder(dump.filter(e -> !PHASED.contains(e.type())), tolerateExisting);
        LOG.info("Post-data schema applied: {} objects at the end in {} ms, {} tables built during the load", dump.entries().size(),
                (System.nanoTime() - started) / 1_000_000, builds.size());
    }

    /**
     * Keys go in unchecked, one after another on one connection (each takes its tables' locks
     * for a moment), then their checks run side by side; keys that cannot be split run whole
     * beside the checks, as all keys did before.
     */
    private void foreignKeys(DumpScript keys, boolean tolerateExisting) {
        List<DumpScript.Entry> added = new ArrayList<>();
        List<DumpScript.Entry> checks = new ArrayList<>();
        for (DumpScript.Entry key : keys.entries()) {
            ForeignKeyValidation split = ForeignKeyValidation.split(key);
            if (split == null) {
                checks.add(key);
            } else {
                added.add(split.add());
                checks.add(split.validate());
            }
        }
        inOrder(keys.withEntries(added), tolerateExisting);
        join(inParallel(keys.withEntries(checks), tolerateExisting));
    }

    private CompletableFuture<Void> inParallel(DumpScript dump, boolean tolerateExisting) {
        return CompletableFuture.allOf(dump.entries().stream()
                .map(e -> CompletableFuture.runAsync(() -> apply(dump.preamble(), e, tolerateExisting), builders))
                .toArray(CompletableFuture[]::new));
    }

    private void inOrder(DumpScript dump, boolean tolerateExisting) {
        for (DumpScript.Entry entry : dump.entries()) {
            apply(dump.preamble(), entry, tolerateExisting);
        }
    }

    private void vacuum(String table) {
        if (vacuum && vacuumed.add(table)) {
            run("VACUUM " + table, "vacuuming " + table);
        }
    }

    /** Statistics for the planner, once per table: without them a fresh copy plans badly, foreign-key checks included. */
    private void analyze(String table) {
        if (vacuum && analyzed.add(table)) {
            run("ANALYZE " + table, "gathering statistics of " + table);
        }
    }

    private static void join(CompletableFuture<?> future) {
        try {
            future.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new ConnectException(e.getCause().getMessage(), e.getCause());
        } catch (CancellationException e) {
            throw new ConnectException("Building the post-data schema was cancelled", e);
        }
    }

    private void apply(String preamble, DumpScript.Entry entry, boolean tolerateExisting) {
        try {
            // The preamble goes with the entry, in one round trip: it resets what an earlier
            // entry on this connection may have set (default_tablespace and the like).
            postData.use(c -> DumpEntries.apply(c, preamble, entry, tolerateExisting, endpoint));
        } catch (SQLException e) {
            throw new ConnectException("Preparing a session on " + endpoint.display() + " for " + entry + " failed: " + e.getMessage(), e);
        }
    }

    private void run(String sql, String what) {
        try {
            postData.use(c -> DumpEntries.run(c, sql));
        } catch (SQLException e) {
            throw new ConnectException("Applying " + what + " to " + endpoint.display() + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        builders.shutdownNow();
        postData.close();
    }


}
