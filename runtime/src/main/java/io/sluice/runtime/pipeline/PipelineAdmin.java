package io.sluice.runtime.pipeline;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.connector.postgres.replication.Publication;
import io.sluice.connector.postgres.replication.ReplicaIdentities;
import io.sluice.connector.postgres.replication.ReplicationSlot;
import io.sluice.connector.postgres.replication.StreamingPrerequisites;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.sink.core.metrics.ByteCounts;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;

/**
 * The commands around a streaming pipeline: {@code init} prepares the source (idempotent),
 * {@code status} says how far the target is behind, {@code teardown} removes what the
 * pipeline left on both ends. Each returns the command's exit code.
 */
public final class PipelineAdmin {

    private final PipelineSpec spec;
    private final PrintStream out;
    private final PrintStream err;
    private final PostgresSourceConfig source;
    private final PgEndpoint sourceEndpoint;

    public PipelineAdmin(PipelineSpec spec, PrintStream out, PrintStream err) {
        this.spec = spec;
        this.out = out;
        this.err = err;
        this.source = new PostgresSourceConfig(spec.source());
        this.sourceEndpoint = PostgresSourceConnector.endpoint(source);
    }

    /**
     * Checks the source can stream, and makes the publication; the slot too when the pipeline
     * streams without a snapshot (with a snapshot, {@code run} creates it together with the
     * snapshot it reads, so that no change falls between them). Safe to run again.
     */
    public int init() throws SQLException {
        try (Connection c = PgConnect.open(sourceEndpoint, "sluice init")) {
            List<String> problems = StreamingPrerequisites.problems(c, sourceEndpoint);
            if (!problems.isEmpty()) {
                err.println("sluice: the source cannot stream yet:");
                problems.forEach(p -> err.println("  " + p));
                return 1;
            }
            out.println("Source " + sourceEndpoint.display() + ": wal_level=logical, replication slots available, user "
                    + sourceEndpoint.user() + " may replicate.");
            var tables = new TableSelector(source.includes(), source.excludes()).select(c, c.getCatalog());
            String done = Publication.ensure(c, source.publicationName(), source.publicationMode(), tables,
                    Publication.viaRootInUse(c, source.publicationName(), source.publicationMode(), source.viaPartitionRoot(), false));
            long published = tables.stream().filter(SelectedTable::logged).count();
            out.println(done.isEmpty() ? "Publication " + source.publicationName() + " covers the " + published + " selected tables."
                    : capitalized(done) + ".");
            ReplicaIdentities.problems(c, tables).forEach(problem -> out.println("Warning: " + problem));
            List<String> unlogged = SelectedTable.unlogged(tables);
            if (!unlogged.isEmpty()) {
                out.println("Warning: " + Publication.unloggedWarning(unlogged));
            }
            if (source.ddlCapture() && !captureDdl(c)) {
                return 1;
            }
            if (source.snapshotMode() == PostgresSourceConfig.SnapshotMode.NEVER) {
                if (ReplicationSlot.find(c, source.slotName()).isEmpty()) {
                    try (Connection replication = PgConnect.openReplication(sourceEndpoint, "sluice init")) {
                        ReplicationSlot.Created created = ReplicationSlot.create(replication, source.slotName(), source.slotFailover());
                        out.println("Created replication slot " + created.name() + " at " + Lsn.format(created.consistentPoint())
                                + ": changes from here on are kept for the pipeline.");
                    }
                } else {
                    out.println("Replication slot " + source.slotName() + " exists.");
                }
            } else {
                out.println("The replication slot is created by `sluice run` with the snapshot it reads.");
            }
        }
        out.println("Ready: `sluice run` with the same options starts the pipeline.");
        return 0;
    }

    /** Installs the DDL capture triggers and registers the publication with them; false (said on err) when that is not possible. */
    private boolean captureDdl(Connection c) throws SQLException {
        if (c.getMetaData().getDatabaseMajorVersion() < 14) {
            err.println("sluice: DDL cannot be captured on PostgreSQL " + c.getMetaData().getDatabaseProductVersion()
                    + " (logical messages stream from 14 on). Set " + PostgresSourceConfig.DDL_CAPTURE + "=false to stream without it.");
            return false;
        }
        try {
            DdlCapture.install(c);
            if (source.publicationMode() != Publication.Mode.DISABLED) {
                DdlCapture.register(c, source.publicationName(), source.includes(), source.excludes());
            }
        } catch (SQLException e) {
            err.println("sluice: installing the DDL capture event triggers failed: " + e.getMessage() + ". Event triggers take a "
                    + "superuser: run `sluice init` once as one (the pipeline itself can then run as " + sourceEndpoint.user() + "), or set "
                    + PostgresSourceConfig.DDL_CAPTURE + "=false to stream without DDL capture.");
            return false;
        }
        out.println("DDL capture: event triggers installed (schema sluice_capture); schema changes of the selected tables are streamed, and "
                + "tables created under the include list join the publication as they are created.");
        return true;
    }

    /** Prints the slot's state and lag, then what the target records (PostgreSQL: its applied position and the apply rate over two seconds). */
    public int status() throws Exception {
        long current;
        Optional<ReplicationSlot.State> slot;
        List<String> unlogged;
        try (Connection c = PgConnect.open(sourceEndpoint, "sluice status")) {
            current = currentLsn(c);
            slot = ReplicationSlot.find(c, source.slotName());
            unlogged = SelectedTable.unlogged(new TableSelector(source.includes(), source.excludes()).select(c, c.getCatalog()));
        }
        out.println("Pipeline " + spec.name() + " (offsets " + spec.offsets() + (Files.exists(spec.offsets()) ? "" : ", none yet") + ")");
        if (!unlogged.isEmpty()) {
            out.println("  snapshot only (UNLOGGED, so never streamed): " + String.join(", ", unlogged));
        }
        if (slot.isEmpty()) {
            out.println("  slot " + source.slotName() + ": does not exist (`sluice run` creates it)");
        } else {
            ReplicationSlot.State s = slot.get();
            out.println("  slot " + s.name() + ": " + (s.active() ? "streaming (process " + s.activePid() + ")" : "idle")
                    + ", confirmed " + Lsn.format(s.confirmedFlush()) + ", WAL kept for it: " + ByteCounts.format(current - s.confirmedFlush()));
        }
        spec.sink().printStatus(spec.name(), spec.sourceName(), current, out);
        return 0;
    }

    /** Drops the slot, publication and (when no other pipeline uses them) DDL triggers, forgets the target's position and the offsets; the target's tables stay. */
    public int teardown() throws Exception {
        try (Connection c = PgConnect.open(sourceEndpoint, "sluice teardown")) {
            out.println(ReplicationSlot.drop(c, source.slotName()) ? "Dropped replication slot " + source.slotName()
                    : "No replication slot " + source.slotName());
            if (source.publicationMode() != Publication.Mode.DISABLED) {
                out.println(Publication.drop(c, source.publicationName()) ? "Dropped publication " + source.publicationName()
                        : "No publication " + source.publicationName());
            }
            if (DdlCapture.unregister(c, source.publicationName())) {
                out.println("Dropped the DDL capture event triggers (no other pipeline of " + c.getCatalog() + " uses them)");
            }
        } catch (SQLException e) {
            if ("55006".equals(e.getSQLState())) {
                err.println("sluice: " + e.getMessage());
                return 1;
            }
            throw e;
        }
        spec.sink().forget(spec.sourceName(), out);
        for (Path file : List.of(spec.offsets(), Path.of(spec.offsets() + ".done"))) {
            if (Files.deleteIfExists(file)) {
                out.println("Deleted " + file);
            }
        }
        out.println("Torn down; the target's tables and rows are kept.");
        return 0;
    }

    private static long currentLsn(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END::text"); ResultSet rs = s.executeQuery()) {
            rs.next();
            return Lsn.parse(rs.getString(1));
        }
    }


    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
