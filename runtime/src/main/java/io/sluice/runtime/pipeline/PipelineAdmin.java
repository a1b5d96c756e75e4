package io.sluice.runtime.pipeline;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.metrics.ByteCounts;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The commands around a streaming pipeline: {@code init} prepares the source (idempotent),
 * {@code status} says how far the target is behind, {@code teardown} removes what the
 * pipeline left on both ends. Each returns the command's exit code. The source's side is the
 * connector's {@link SourceAdmin}, which prepares the source as the source task does.
 */
public final class PipelineAdmin {

    private final PipelineSpec spec;
    private final PrintStream out;
    private final PrintStream err;
    private final PostgresSourceConfig source;
    private final SourceAdmin admin;
    private final PgEndpoint sourceEndpoint;

    public PipelineAdmin(PipelineSpec spec, PrintStream out, PrintStream err) {
        this.spec = spec;
        this.out = out;
        this.err = err;
        this.source = new PostgresSourceConfig(spec.source());
        this.admin = new SourceAdmin(spec.source());
        this.sourceEndpoint = admin.endpoint();
    }

    /**
     * Checks the source can stream, and makes the publication; the slot too when the pipeline
     * streams without a snapshot (with a snapshot, {@code run} creates it together with the
     * snapshot it reads, so that no change falls between them). Safe to run again.
     */
    public int init() throws SQLException {
        List<String> problems = admin.prerequisiteProblems();
        if (!problems.isEmpty()) {
            err.println("sluice: the source cannot stream yet:");
            problems.forEach(p -> err.println("  " + p));
            return 1;
        }
        out.println("Source " + sourceEndpoint.display() + ": wal_level=logical, replication slots available, user "
                + sourceEndpoint.user() + " may replicate.");
        try {
            SourceAdmin.Published published = admin.publish();
            out.println(published.done().isEmpty() ? "Publication " + source.publicationName() + " covers the " + published.tables()
                    + " selected tables." : capitalized(published.done()) + ".");
            published.warnings().forEach(warning -> out.println("Warning: " + warning));
            if (source.ddlCapture()) {
                admin.captureDdl();
                out.println("DDL capture: event triggers installed (schema sluice_capture); schema changes of the selected tables are "
                        + "streamed, and tables created under the include list join the publication as they are created.");
            }
        } catch (ConnectException e) {
            err.println("sluice: " + e.getMessage());
            return 1;
        }
        if (source.snapshotMode() == PostgresSourceConfig.SnapshotMode.NEVER) {
            if (admin.slot().isEmpty()) {
                long at = admin.createSlot();
                out.println("Created replication slot " + source.slotName() + " at " + Lsn.format(at)
                        + ": changes from here on are kept for the pipeline.");
            } else {
                out.println("Replication slot " + source.slotName() + " exists.");
            }
        } else {
            out.println("The replication slot is created by `sluice run` with the snapshot it reads.");
        }
        out.println("Ready: `sluice run` with the same options starts the pipeline.");
        return 0;
    }

    /** Prints the slot's state and lag, then what the target records (PostgreSQL: its applied position and the apply rate over two seconds). */
    public int status() throws Exception {
        return status(List.of(new NamedTarget(null, spec)));
    }

    /** {@link #status()} of a pipeline with several targets: the slot once, then what each target records, by name. */
    public int status(List<NamedTarget> targets) throws Exception {
        long current = admin.currentLsn();
        Optional<SourceAdmin.Slot> slot = admin.slot();
        List<String> unlogged = admin.unloggedTables();
        out.println("Pipeline " + spec.name() + " (offsets " + spec.offsets() + (Files.exists(spec.offsets()) ? "" : ", none yet") + ")");
        if (!unlogged.isEmpty()) {
            out.println("  snapshot only (UNLOGGED, so never streamed): " + String.join(", ", unlogged));
        }
        if (slot.isEmpty()) {
            out.println("  slot " + source.slotName() + ": does not exist (`sluice run` creates it)");
        } else {
            SourceAdmin.Slot s = slot.get();
            out.println("  slot " + s.name() + ": " + (s.active() ? "streaming (process " + s.activePid() + ")" : "idle")
                    + ", confirmed " + Lsn.format(s.confirmedFlush()) + ", WAL kept for it: " + ByteCounts.format(current - s.confirmedFlush()));
        }
        List<String> unread = new java.util.ArrayList<>();
        DetachedTargets detached = DetachedTargets.at(spec.offsets());
        for (NamedTarget t : targets) {
            if (t.name() == null) {
                t.spec().sink().printStatus(spec.name(), spec.sourceName(), current, out);
                continue;
            }
            out.println("  target " + t.name() + ":");
            DetachedTargets.Entry d = detached.get(t.name());
            if (d != null && d.state() == DetachedTargets.State.DETACHED) {
                out.println("    detached since " + d.since() + " (" + d.why() + "): fed nothing, the slot moves on without it; once it "
                        + "answers again the running pipeline feeds it and re-syncs every table for it");
            } else if (d != null) {
                out.println("    fed again after it was detached, its tables being re-synced for it (requests " + d.requests() + ")");
            }
            // One target that cannot be read (down, say) hides nothing of the others'.
            try {
                t.spec().sink().printStatus(spec.name(), spec.sourceName(), current, out);
            } catch (Exception e) {
                String why = EmbeddedEngine.rootMessage(e, null);
                out.println("    could not be read: " + why);
                unread.add(t.name() + " (" + why + ")");
            }
        }
        for (var request : admin.recentResyncs(5)) {
            String forWhom = request.subscription() == null ? "" : request.subscription().startsWith("@")
                    ? " for target " + request.subscription().substring(1) : " for subscription " + request.subscription();
            out.println("  re-sync of " + request.target() + forWhom + " (request " + request.id() + "): " + request.state() + ", " + request.rows() + " rows in " + request.chunks() + " chunks"
                    + (request.updatedAt() == null ? ", requested " + request.requestedAt() : ", last " + request.updatedAt())
                    + (request.message() == null ? "" : ": " + request.message()));
        }
        if (!unread.isEmpty()) {
            err.println("sluice status: " + (unread.size() == 1 ? "a target" : "targets") + " could not be read: " + String.join(", ", unread));
            return 1;
        }
        return 0;
    }

    /**
     * Asks the running pipeline to re-sync the tables, one request each, and (unless detached)
     * waits until each has ended, printing its progress.
     *
     * @param subscription the webhook subscription the rows are for alone (a backfill); null for every target
     * @param timeoutMillis how long to wait in all; 0 for as long as it takes
     */
    public int resync(List<String> tables, String subscription, boolean detach, long timeoutMillis) throws Exception {
        List<Long> ids = new java.util.ArrayList<>();
        for (String table : tables) {
            long id = admin.requestResync(table, subscription);
            ids.add(id);
            out.println("Requested a re-sync of " + table + (subscription == null ? "" : " for subscription " + subscription)
                    + " from pipeline " + spec.name() + " (request " + id + ")");
        }
        if (detach) {
            out.println("The running pipeline copies " + (tables.size() == 1 ? "it" : "them") + " while it streams; `sluice status` shows how "
                    + (tables.size() == 1 ? "it goes" : "they go") + ".");
            return 0;
        }
        long deadline = timeoutMillis == 0 ? Long.MAX_VALUE : System.currentTimeMillis() + timeoutMillis;
        long waitingSaidAt = System.currentTimeMillis();
        int failed = 0;
        for (long id : ids) {
            String said = null;
            while (true) {
                var request = admin.resync(id).orElseThrow(() -> new IllegalStateException("Request " + id + " is gone from the "
                        + "signal table (deleted, or the pipeline was torn down)"));
                String now = request.state() + " " + request.rows() + " " + request.chunks();
                if (request.done()) {
                    out.println("Re-synced " + request.target() + ": " + request.rows() + " rows in " + request.chunks() + " chunks");
                    break;
                }
                if (request.failed()) {
                    err.println("sluice: the re-sync of " + request.target() + " failed: " + request.message());
                    failed++;
                    break;
                }
                if (!now.equals(said) && request.running()) {
                    out.println("  " + request.target() + ": " + request.rows() + " rows in " + request.chunks() + " chunks so far");
                    said = now;
                    waitingSaidAt = System.currentTimeMillis();
                } else if (System.currentTimeMillis() - waitingSaidAt > 30_000) {
                    out.println("  still waiting for pipeline " + spec.name() + " to take request " + id + " (is `sluice run` running "
                            + "with the same options?)");
                    waitingSaidAt = System.currentTimeMillis();
                }
                if (System.currentTimeMillis() > deadline) {
                    err.println("sluice: gave up waiting after " + timeoutMillis / 1000 + " s; the re-sync of " + request.target()
                            + " goes on (`sluice status` shows it)");
                    return 1;
                }
                Thread.sleep(500);
            }
        }
        return failed == 0 ? 0 : 1;
    }

    /** Drops the slot, publication and (when no other pipeline uses them) DDL triggers, forgets the target's position and the offsets; the target's tables stay. */
    public int teardown() throws Exception {
        try {
            out.println(admin.dropSlot() ? "Dropped replication slot " + source.slotName() : "No replication slot " + source.slotName());
            if (!admin.publicationIsTheUsers()) {
                out.println(admin.dropPublication() ? "Dropped publication " + source.publicationName()
                        : "No publication " + source.publicationName());
            }
            if (admin.unregisterDdl()) {
                out.println("Dropped the DDL capture event triggers (no other pipeline of " + source.database() + " uses them)");
            }
        } catch (SQLException e) {
            if ("55006".equals(e.getSQLState())) {
                err.println("sluice: " + e.getMessage());
                return 1;
            }
            throw e;
        }
        int requests = admin.forgetResyncs();
        if (requests > 0) {
            out.println("Deleted " + requests + " re-sync requests of the pipeline from the signal table");
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

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
