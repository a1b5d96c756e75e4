package io.sluice.sink.postgres.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a snapshot's schema to the target: pre-data before the rows, post-data after them.
 * Post-data is where a load spends its time on few cores, so it runs in phases with several
 * connections: indexes and key constraints in parallel, then index attachments, then foreign
 * keys in parallel (they need the keys), then everything else in dump order.
 */
public final class SchemaApplier {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaApplier.class);
    /** Errors that say an object is already there: skipped when loading into existing tables. */
    private static final Set<String> DUPLICATE_OBJECT = Set.of("42P07", "42710", "42P06", "42723", "42P16", "42701", "42P04");

    private final PgEndpoint endpoint;
    private final int parallelism;
    private final String maintenanceWorkMem;

    public SchemaApplier(PgEndpoint endpoint, int parallelism, String maintenanceWorkMem) {
        this.endpoint = endpoint;
        this.parallelism = parallelism;
        this.maintenanceWorkMem = maintenanceWorkMem;
    }

    /**
     * Creates what must exist before rows arrive. With {@link ExistingTables#FAIL}, any loaded
     * table already on the target stops the run before anything changes; with the other
     * policies the target must hold all the loaded tables (their schema is kept) or none.
     *
     * @param loaded the tables the snapshot will load, as {schema, table}
     */
    public void applyPreData(String script, List<String[]> loaded, ExistingTables policy) {
        try (Connection c = PgConnect.open(endpoint, "sluice schema")) {
            List<String> existing = existing(c, loaded);
            if (!existing.isEmpty() && policy == ExistingTables.FAIL) {
                throw new ConnectException("Target " + endpoint.display() + " already has " + existing.size() + " of the tables to load: "
                        + String.join(", ", existing.subList(0, Math.min(10, existing.size()))) + (existing.size() > 10 ? ", ..." : "")
                        + ". Drop them, or set table.exists=truncate to empty and reload them, or table.exists=append to add the rows");
            }
            DumpScript dump = DumpScript.parse(script);
            if (existing.isEmpty()) {
                // All or nothing: a failed run leaves the target as it was, and can simply be rerun.
                c.setAutoCommit(false);
                try {
                    run(c, dump.preamble());
                    for (DumpScript.Entry entry : dump.entries()) {
                        apply(c, entry, false);
                    }
                    c.commit();
                } catch (RuntimeException e) {
                    c.rollback();
                    throw e;
                }
            } else if (existing.size() < loaded.size()) {
                throw new ConnectException("Target " + endpoint.display() + " has " + existing.size() + " of the " + loaded.size()
                        + " tables to load (" + String.join(", ", existing.subList(0, Math.min(5, existing.size())))
                        + (existing.size() > 5 ? ", ..." : "") + "). To load into existing tables the target must have all of them; "
                        + "create the missing ones, or drop these and use table.exists=fail");
            } else {
                LOG.info("All {} tables to load exist on {}; their schema is kept", existing.size(), endpoint.display());
                if (policy == ExistingTables.TRUNCATE) {
                    execute(c, "TRUNCATE " + String.join(", ", existing), "emptying the existing tables");
                    LOG.info("Emptied {} existing target tables before the load", existing.size());
                }
            }
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    /** Creates indexes, constraints, triggers and the rest after the rows, and sets sequences. */
    public void applyPostData(String script, boolean tolerateExisting) {
        DumpScript dump = DumpScript.parse(script);
        long started = System.nanoTime();
        phase(dump, e -> e.type().equals("INDEX") || e.type().equals("CONSTRAINT"), parallelism, tolerateExisting);
        phase(dump, e -> e.type().equals("INDEX ATTACH"), 1, tolerateExisting);
        phase(dump, e -> e.type().equals("FK CONSTRAINT"), parallelism, tolerateExisting);
        phase(dump, e -> !Set.of("INDEX", "CONSTRAINT", "INDEX ATTACH", "FK CONSTRAINT").contains(e.type()), 1, tolerateExisting);
        LOG.info("Post-data schema applied: {} objects in {} ms", dump.entries().size(), (System.nanoTime() - started) / 1_000_000);
    }

    private void phase(DumpScript dump, Predicate<DumpScript.Entry> selects, int connections, boolean tolerateExisting) {
        ConcurrentLinkedQueue<DumpScript.Entry> work = new ConcurrentLinkedQueue<>(dump.entries().stream().filter(selects).toList());
        if (work.isEmpty()) {
            return;
        }
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < Math.min(connections, work.size()); i++) {
            Thread t = new Thread(() -> {
                try (Connection c = PgConnect.open(endpoint, "sluice post-data")) {
                    run(c, dump.preamble());
                    run(c, "SET maintenance_work_mem = '" + maintenanceWorkMem.replace("'", "") + "'");
                    DumpScript.Entry entry;
                    while (failure.get() == null && (entry = work.poll()) != null) {
                        apply(c, entry, tolerateExisting);
                    }
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                } catch (SQLException e) {
                    failure.compareAndSet(null, PgConnect.explain(e, endpoint));
                }
            }, "sluice-post-data-" + i);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ConnectException("Interrupted while applying the post-data schema", e);
            }
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private void apply(Connection c, DumpScript.Entry entry, boolean tolerateExisting) {
        try (Statement s = c.createStatement()) {
            s.execute(entry.sql());
        } catch (SQLException e) {
            if (tolerateExisting && DUPLICATE_OBJECT.contains(e.getSQLState())) {
                LOG.info("{} exists on the target already; kept", entry);
                return;
            }
            throw new ConnectException("Creating " + entry + " on " + endpoint.display() + " failed: " + e.getMessage()
                    + "\nStatement: " + entry.sql(), e);
        }
    }

    private void execute(Connection c, String sql, String what) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new ConnectException("Applying " + what + " to " + endpoint.display() + " failed: " + e.getMessage(), e);
        }
    }

    private static void run(Connection c, String sql) throws SQLException {
        if (sql != null && !DumpScript.withoutComments(sql).isBlank()) {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }
    }

    private static List<String> existing(Connection c, List<String[]> tables) throws SQLException {
        List<String> found = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_class k JOIN pg_catalog.pg_namespace n "
                + "ON n.oid = k.relnamespace WHERE n.nspname = ? AND k.relname = ?")) {
            for (String[] t : tables) {
                s.setString(1, t[0]);
                s.setString(2, t[1]);
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        found.add(Identifiers.quote(t[0], t[1]));
                    }
                }
            }
        }
        return found;
    }
}
