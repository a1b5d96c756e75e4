package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.connector.postgres.replication.JoinedTables;
import io.sluice.connector.postgres.replication.Publication;
import io.sluice.connector.postgres.replication.ReplicaIdentities;
import io.sluice.connector.postgres.replication.ReplicationSlot;
import io.sluice.connector.postgres.replication.StreamingPrerequisites;
import io.sluice.connector.postgres.resync.SelectionLedger;
import io.sluice.connector.postgres.resync.SignalTable;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What streaming needs on the source before its first change: the server's prerequisites, the
 * publication, the DDL capture triggers, the slot (a failover slot when asked for). The source
 * may be a hot standby (PostgreSQL 16 and later decode there): what a standby cannot do, the
 * publication's and the triggers' DDL, is done on its primary ({@code database.primary.hostname})
 * or, without one, named in one line; a slot made on a standby becomes consistent once the
 * primary logs its running transactions, which the primary is asked to do at once.
 */
final class StreamingSetup {

    private static final Logger LOG = LoggerFactory.getLogger(StreamingSetup.class);
    /** How long a slot held by a process that is going away (a killed earlier run) is waited for. */
    static final long SLOT_RELEASE_MILLIS = 15_000;
    /** SQLSTATE of a write refused because the server is read-only (a hot standby). */
    private static final String READ_ONLY = "25006";

    private final PostgresSourceConfig config;
    private final PgEndpoint endpoint;
    private final Optional<PgEndpoint> primary;
    private Boolean standby;
    private boolean viaRoot;
    private Set<String> joined = Set.of();

    StreamingSetup(PostgresSourceConfig config, PgEndpoint endpoint) {
        this.config = config;
        this.endpoint = endpoint;
        this.primary = PostgresSourceConnector.primaryEndpoint(config);
    }

    /**
     * Checks the server can stream to this user, makes sure the publication covers the selected
     * tables, and returns the slot when it exists.
     */
    Optional<ReplicationSlot.State> prepare(boolean snapshotDone) throws SQLException {
        try (Connection c = PgConnect.open(endpoint, "sluice setup " + config.topicPrefix())) {
            StreamingPrerequisites.check(c, endpoint);
            checkStandby(c);
            if (snapshotDone && config.ddlCapture()) {
                // Tables that joined the selection are announced through the capture before the publication takes them.
                updateCaptureIfSuperuser(c);
            }
            Published published = publish(c, snapshotDone);
            if (!published.done().isEmpty()) {
                LOG.info("{} on {}", published.done(), published.where().display());
            }
            published.warnings().forEach(warning -> LOG.warn("{}", warning));
            if (config.ddlCapture()) {
                captureDdl(c, false);
            }
            if (config.slotFailover()) {
                Optional<String> problem = ReplicationSlot.failoverProblem(c);
                if (problem.isPresent()) {
                    throw new ConnectException(problem.get());
                }
            }
            Optional<ReplicationSlot.State> slot = ReplicationSlot.find(c, config.slotName());
            if (slot.isPresent() && (!"pgoutput".equals(slot.get().plugin()) || !c.getCatalog().equals(slot.get().database()))) {
                throw new ConnectException("Replication slot " + config.slotName() + " on " + endpoint.display() + " belongs to database "
                        + slot.get().database() + " with plugin " + slot.get().plugin() + ", not to " + c.getCatalog()
                        + " with pgoutput: choose another slot.name, or drop that slot if nothing uses it");
            }
            if (slot.isPresent() && config.slotFailover() && !ReplicationSlot.isFailover(c, config.slotName())) {
                awaitSlotReleased(c);
                try (Connection replication = PgConnect.openReplication(endpoint, "sluice slot " + config.topicPrefix())) {
                    ReplicationSlot.makeFailover(replication, config.slotName());
                }
                LOG.info("Replication slot {} is now a failover slot: standbys with sync_replication_slots=on keep a copy of it",
                        config.slotName());
            }
            return slot;
        }
    }

    /** Whether partitions are published through their root (see {@link Publication#viaRootInUse}), said when it is not as configured. */
    private boolean viaRoot(Connection c, boolean snapshotDone) throws SQLException {
        boolean wanted = config.viaPartitionRoot();
        boolean inUse = Publication.viaRootInUse(c, config.publicationName(), config.publicationMode(), wanted, snapshotDone);
        if (inUse != wanted) {
            LOG.warn("Publication {} publishes partitions {}, and {}: {}={} is taken with the next snapshot (sluice run --fresh)",
                    config.publicationName(), inUse ? "through their root" : "as themselves",
                    snapshotDone ? "this pipeline's snapshot was taken so" : "publication.autocreate.mode=disabled leaves it as it is",
                    PostgresSourceConfig.VIA_PARTITION_ROOT, wanted);
        }
        return inUse;
    }

    /** Whether partitions' rows and changes carry their root's name; known once {@link #prepare} ran. */
    boolean viaRoot() {
        return viaRoot;
    }

    /** Whether the source is a hot standby; known once {@link #prepare} ran. */
    boolean standby() {
        return Boolean.TRUE.equals(standby);
    }

    /** Where what a standby cannot do is done: the primary given with a standby source, else the source itself. */
    PgEndpoint writable() {
        return standby() && primary.isPresent() ? primary.get() : endpoint;
    }

    /**
     * Creates the slot on a replication connection to the source. On a standby the creation waits
     * for the primary to log its running transactions, which it does by itself only every 15
     * seconds while it is written to: the primary, when known, is asked to every second meanwhile.
     */
    ReplicationSlot.Created createSlot(Connection replication) throws SQLException {
        if (!standby()) {
            return ReplicationSlot.create(replication, config.slotName(), config.slotFailover());
        }
        LOG.info("Creating replication slot {} on the standby {}: it is ready once the primary logs its running transactions{}",
                config.slotName(), endpoint.display(), primary.isPresent() ? " (asked of " + primary.get().display() + ")"
                        : " (within about 15 s while it is written to; database.primary.hostname makes it prompt)");
        AtomicBoolean done = new AtomicBoolean();
        Thread nudger = primary.isEmpty() ? null : new Thread(() -> nudge(done), "sluice-standby-snapshot");
        if (nudger != null) {
            nudger.setDaemon(true);
            nudger.start();
        }
        try {
            return ReplicationSlot.create(replication, config.slotName(), config.slotFailover());
        } finally {
            done.set(true);
            if (nudger != null) {
                nudger.interrupt();
            }
        }
    }

    /** Asks the primary to log its running transactions (pg_log_standby_snapshot, 16+) every second until {@code done}. */
    private void nudge(AtomicBoolean done) {
        try (Connection c = PgConnect.open(primary.get(), "sluice standby snapshot " + config.topicPrefix());
             Statement s = c.createStatement()) {
            while (!done.get()) {
                s.execute("SELECT pg_catalog.pg_log_standby_snapshot()");
                Thread.sleep(1000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException | RuntimeException e) {
            LOG.info("Could not ask the primary {} to log its running transactions ({}); the slot waits for it to do so by itself",
                    primary.get().display(), e.getMessage());
        }
    }

    void awaitSlotReleased(Connection c) throws SQLException {
        try {
            ReplicationSlot.awaitReleased(c, config.slotName(), SLOT_RELEASE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while waiting for replication slot " + config.slotName(), e);
        }
    }

    void checkStandby(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_is_in_recovery()")) {
            rs.next();
            standby = rs.getBoolean(1);
        }
        if (!standby) {
            return;
        }
        if (c.getMetaData().getDatabaseMajorVersion() < 16) {
            throw new ConnectException("The source " + endpoint.display() + " is a hot standby of PostgreSQL "
                    + c.getMetaData().getDatabaseProductVersion() + ", which cannot decode changes (16 and later can): point the "
                    + "source at its primary");
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_setting('hot_standby_feedback')::bool")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                LOG.warn("The source {} is a hot standby without hot_standby_feedback: the primary may remove catalog rows the slot "
                        + "still needs, and PostgreSQL then invalidates the slot (a new snapshot, --fresh, is the only way on). Set "
                        + "hot_standby_feedback = on on the standby, with primary_slot_name", endpoint.display());
            }
        }
        LOG.info("The source {} is a hot standby: the slot and the snapshot live there{}", endpoint.display(),
                primary.isPresent() ? "; the publication and DDL capture are made on the primary " + primary.get().display() : "");
    }

    /**
     * What {@link #publish} did: what it changed of the publication (empty when nothing), on which
     * server, how many selected tables it publishes, and what the user should know of them.
     */
    record Published(String done, PgEndpoint where, long tables, List<String> warnings) {
    }

    /**
     * Makes sure the publication covers the selected tables, on the primary when the source is a
     * standby with one given. Call {@link #checkStandby} first.
     */
    Published publish(Connection c, boolean snapshotDone) throws SQLException {
        List<SelectedTable> tables = config.tableSelector().select(c, c.getCatalog());
        viaRoot = viaRoot(c, snapshotDone);
        if (snapshotDone) {
            // Before the publication takes them: no change of a newcomer may reach a target before its definition.
            joinTables(c, tables);
        }
        String done;
        PgEndpoint where = endpoint;
        if (standby() && primary.isPresent()) {
            where = primary.get();
            try (Connection p = PgConnect.open(primary.get(), "sluice setup " + config.topicPrefix())) {
                done = Publication.ensure(p, config.publicationName(), config.publicationMode(), tables, viaRoot, config.rowFilters(), config.columnLists());
            }
        } else {
            try {
                done = Publication.ensure(c, config.publicationName(), config.publicationMode(), tables, viaRoot, config.rowFilters(), config.columnLists());
            } catch (SQLException e) {
                if (!READ_ONLY.equals(e.getSQLState())) {
                    throw e;
                }
                throw new ConnectException("Publication " + config.publicationName() + " is missing or lacks selected tables, and the "
                        + "source " + endpoint.display() + " is a hot standby, where it cannot be made: set database.primary.hostname to "
                        + "its primary (Sluice makes it there and the standby receives it), or make it on the primary (CREATE PUBLICATION "
                        + config.publicationName() + " FOR TABLE ...)");
            }
        }
        List<String> warnings = new java.util.ArrayList<>(ReplicaIdentities.problems(c, tables));
        List<String> unlogged = SelectedTable.unlogged(tables);
        if (!unlogged.isEmpty()) {
            warnings.add(Publication.unloggedWarning(unlogged));
        }
        return new Published(done, where, tables.stream().filter(SelectedTable::logged).count(), warnings);
    }

    /**
     * Tables selected now that the pipeline did not stream before: announced to the targets and
     * copied by a re-sync ({@link JoinedTables}); said, and left, when the signal table cannot be
     * written.
     */
    private void joinTables(Connection c, List<SelectedTable> tables) throws SQLException {
        SignalTable signals = config.signalTable();
        if (signals == null || (standby() && primary.isEmpty())) {
            return;
        }
        List<String> names = tables.stream().map(t -> t.publishedName(viaRoot)).toList();
        try (Connection w = PgConnect.open(writable(), "sluice setup " + config.topicPrefix())) {
            Optional<String> problem = signals.ensure(w);
            if (problem.isPresent()) {
                LOG.warn("{}. Tables that join the selection are not copied until then", problem.get());
                return;
            }
            joined = Set.copyOf(JoinedTables.requestCopies(w, names, signals, config.topicPrefix(),
                    config.ddlCapture() && DdlCapture.installed(w)));
        }
    }

    /**
     * The tables found by {@link #prepare} to have joined the selection since the pipeline last
     * recorded it, by published name: announced, and copied by re-syncs once streaming runs. A
     * resumed snapshot leaves them out (the targets got no definition of them with its schema).
     */
    Set<String> joined() {
        return joined;
    }

    /**
     * Records the tables selected, by published name, as what later starts compare with to find
     * the tables that joined the selection: as a snapshot starts (so that a resumed one knows
     * which tables it began with), and as the stream starts after it. Nothing joins here: a table
     * created meanwhile reached the targets through the stream's DDL.
     */
    void recordSelection(Collection<String> names) throws SQLException {
        SignalTable signals = config.signalTable();
        if (signals == null || (standby() && primary.isEmpty())) {
            return;
        }
        try (Connection w = PgConnect.open(writable(), "sluice setup " + config.topicPrefix())) {
            if (signals.ensure(w).isEmpty()) {
                new SelectionLedger(signals).record(w, config.topicPrefix(), names);
            }
        }
    }

    /** {@link #recordSelection(Collection)} of the tables selected now. */
    void recordSelection(Connection c) throws SQLException {
        recordSelection(config.tableSelector().select(c, c.getCatalog()).stream().map(t -> t.publishedName(viaRoot)).toList());
    }

    /** Brings the DDL capture up to this version when the user may (a superuser), as {@link #captureDdl} would. */
    private void updateCaptureIfSuperuser(Connection c) throws SQLException {
        if (c.getMetaData().getDatabaseMajorVersion() < 14 || standby()) {
            return;
        }
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user")) {
            if (rs.next() && rs.getBoolean(1)) {
                DdlCapture.install(c);
            }
        }
    }

    /**
     * Installs (or updates) the DDL capture triggers and registers this pipeline's publication
     * with them, on the primary when the source is a standby (the triggers fire there; their
     * messages reach the standby with the WAL). For a running pipeline ({@code required} false) a
     * user who may not install them leaves a warning, not a failure: a superuser may have
     * installed them already (with `sluice init`), or the pipeline runs without. For
     * {@code sluice init} ({@code required} true), whose job this is, the same cases stop it with
     * what to do.
     *
     * @throws ConnectException when required and the triggers cannot be installed or registered
     */
    void captureDdl(Connection source, boolean required) throws SQLException {
        if (source.getMetaData().getDatabaseMajorVersion() < 14) {
            String why = "PostgreSQL " + source.getMetaData().getDatabaseProductVersion() + " cannot stream logical messages (14 and later "
                    + "can)";
            if (required) {
                throw new ConnectException("DDL cannot be captured: " + why + ". Set " + PostgresSourceConfig.DDL_CAPTURE
                        + "=false to stream without it.");
            }
            LOG.warn("DDL is not captured: {}; set {}=false to silence this", why, PostgresSourceConfig.DDL_CAPTURE);
            return;
        }
        if (standby() && primary.isEmpty()) {
            if (!DdlCapture.installed(source)) {
                String why = "the source " + endpoint.display() + " is a hot standby, where the event triggers cannot be installed. Run "
                        + "`sluice init` against the primary, set database.primary.hostname, or set " + PostgresSourceConfig.DDL_CAPTURE
                        + "=false";
                if (required) {
                    throw new ConnectException("DDL cannot be captured: " + why);
                }
                LOG.warn("DDL is not captured: {}", why);
            } else {
                LOG.info("DDL capture triggers are installed (from the primary); tables created there join publication {} only as "
                        + "the primary's registration says", config.publicationName());
            }
            return;
        }
        boolean onPrimary = standby() && primary.isPresent();
        PgEndpoint where = writable();
        try (Connection c = onPrimary ? PgConnect.open(where, "sluice setup " + config.topicPrefix()) : null) {
            Connection target = onPrimary ? c : source;
            try {
                DdlCapture.install(target);
            } catch (SQLException e) {
                if (required || !DdlCapture.installed(target)) {
                    String why = "installing the DDL capture event triggers on " + where.display() + " failed (" + e.getMessage() + "). "
                            + "Event triggers take a superuser: run `sluice init` once as one (the pipeline itself can then run as "
                            + where.user() + "), or set " + PostgresSourceConfig.DDL_CAPTURE + "=false to stream without DDL capture";
                    if (required) {
                        throw new ConnectException(why, e);
                    }
                    LOG.warn("DDL is not captured: {}", why);
                    return;
                }
                LOG.debug("DDL capture triggers are installed; updating them failed", e);
            }
            if (config.publicationMode() != Publication.Mode.DISABLED) {
                try {
                    if (!DdlCapture.register(target, config.publicationName(), config.includes(), config.excludes(), config.rowFilters(),
                            config.columnLists())) {
                        LOG.warn("The DDL capture on {} is from an older Sluice: tables created while streaming join publication {} "
                                + "without their row filter or column list until the pipeline starts again. Have a superuser run "
                                + "its script again (or `sluice init`)", where.display(), config.publicationName());
                    }
                } catch (SQLException e) {
                    String why = "tables created on " + where.display() + " are not added to publication " + config.publicationName()
                            + " as they are created (" + e.getMessage() + "); run `sluice init` as a superuser";
                    if (required) {
                        throw new ConnectException(why, e);
                    }
                    LOG.warn("{}", why);
                }
            }
        }
    }
}
