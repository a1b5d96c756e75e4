package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.connector.postgres.replication.Publication;
import io.sluice.connector.postgres.replication.ReplicationSlot;
import io.sluice.connector.postgres.replication.StreamingPrerequisites;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.connector.postgres.resync.SignalTable;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The source connector's front door for the {@code sluice} command's work around a pipeline:
 * preparing the source ({@code init}: the same publication and DDL capture the task makes, by
 * {@link StreamingSetup}), what {@code status} shows of it (the slot, the current WAL position),
 * what {@code teardown} removes, and the selected tables' sizes for progress. Each call opens its
 * own connection to the source.
 */
public final class SourceAdmin {

    private final PostgresSourceConfig config;
    private final PgEndpoint endpoint;

    /** @param keys the source's configuration keys */
    public SourceAdmin(Map<String, String> keys) {
        this.config = new PostgresSourceConfig(keys);
        this.endpoint = PostgresSourceConnector.endpoint(config);
    }

    public PgEndpoint endpoint() {
        return endpoint;
    }

    /** A replication slot as the server reports it. */
    public record Slot(String name, boolean active, Integer activePid, long confirmedFlush) {
    }

    /**
     * What preparing the publication did.
     *
     * @param done     what changed of the publication, as a sentence; empty when it covered the tables already
     * @param tables   how many selected tables it publishes
     * @param warnings what the user should know of the selected tables (replica identities, unlogged tables)
     */
    public record Published(String done, long tables, List<String> warnings) {
    }

    /** A selected table's size, as the planner's statistics have it. */
    public record TableSize(String table, long rows, long bytes) {
    }

    /** Why the source cannot stream to its user, one line each; empty when it can. */
    public List<String> prerequisiteProblems() throws SQLException {
        try (Connection c = open("init")) {
            return StreamingPrerequisites.problems(c, endpoint);
        }
    }

    /** Makes sure the publication covers the selected tables (on the primary when the source is a standby with one given). */
    public Published publish() throws SQLException {
        StreamingSetup setup = new StreamingSetup(config, endpoint);
        try (Connection c = open("init")) {
            setup.checkStandby(c);
            StreamingSetup.Published published = setup.publish(c, false);
            return new Published(published.done(), published.tables(), published.warnings());
        }
    }

    /**
     * Installs the DDL capture triggers and registers the publication with them.
     *
     * @throws ConnectException saying what to do, when they cannot be installed
     */
    public void captureDdl() throws SQLException {
        StreamingSetup setup = new StreamingSetup(config, endpoint);
        try (Connection c = open("init")) {
            setup.checkStandby(c);
            setup.captureDdl(c, true);
        }
    }

    public Optional<Slot> slot() throws SQLException {
        try (Connection c = open("status")) {
            return ReplicationSlot.find(c, config.slotName()).map(s -> new Slot(s.name(), s.active(), s.activePid(), s.confirmedFlush()));
        }
    }

    /** Creates the pipeline's slot (a failover slot when configured); its consistent point. */
    public long createSlot() throws SQLException {
        StreamingSetup setup = new StreamingSetup(config, endpoint);
        try (Connection c = open("init")) {
            setup.checkStandby(c);
        }
        try (Connection replication = PgConnect.openReplication(endpoint, "sluice init")) {
            return setup.createSlot(replication).consistentPoint();
        }
    }

    /** Drops the pipeline's slot; false when there was none. Fails with SQLSTATE 55006 while a stream holds it. */
    public boolean dropSlot() throws SQLException {
        try (Connection c = open("teardown")) {
            return ReplicationSlot.drop(c, config.slotName());
        }
    }

    /** Drops the publication (unless publication.autocreate.mode=disabled leaves it to the user); false when there was none. */
    public boolean dropPublication() throws SQLException {
        if (config.publicationMode() == Publication.Mode.DISABLED) {
            return false;
        }
        try (Connection c = open("teardown")) {
            return Publication.drop(c, config.publicationName());
        }
    }

    /** Whether the publication is left to the user (publication.autocreate.mode=disabled). */
    public boolean publicationIsTheUsers() {
        return config.publicationMode() == Publication.Mode.DISABLED;
    }

    /** Unregisters the publication from DDL capture; true when that removed the triggers (no other pipeline of the database uses them). */
    public boolean unregisterDdl() throws SQLException {
        try (Connection c = open("teardown")) {
            return DdlCapture.unregister(c, config.publicationName());
        }
    }

    /** The server's current WAL position (the replayed one on a standby). */
    public long currentLsn() throws SQLException {
        try (Connection c = open("status"); PreparedStatement s = c.prepareStatement(
                "SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END::text");
             ResultSet rs = s.executeQuery()) {
            rs.next();
            return Lsn.parse(rs.getString(1));
        }
    }

    /** The selected tables that are UNLOGGED (copied by a snapshot, never streamed). */
    public List<String> unloggedTables() throws SQLException {
        try (Connection c = open("status")) {
            return SelectedTable.unlogged(selector().select(c, c.getCatalog()));
        }
    }

    /** Row and size estimates of the selected tables. */
    public List<TableSize> tableSizes() throws SQLException {
        List<TableSize> sizes = new ArrayList<>();
        try (Connection c = open("estimate");
             PreparedStatement s = c.prepareStatement("SELECT GREATEST(reltuples, 0)::bigint, pg_table_size(oid) FROM pg_class WHERE oid = ?")) {
            for (SelectedTable table : selector().select(c, config.database())) {
                s.setLong(1, table.oid());
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    sizes.add(new TableSize(table.qualifiedName(), rs.getLong(1), rs.getLong(2)));
                }
            }
        }
        return sizes;
    }

    private TableSelector selector() {
        return config.tableSelector();
    }

    /**
     * Asks the running pipeline to re-sync a table (a row in the signal table, made first when
     * missing); the request's id.
     *
     * @throws IllegalStateException when the pipeline takes no requests ({@code signal.table} is empty) or the table cannot be made
     */
    public long requestResync(String table) throws SQLException {
        return requestResync(table, null);
    }

    /**
     * Asks the running pipeline to re-sync a table for one webhook subscription alone (its
     * backfill), or for every target when {@code subscription} is null; the request's id.
     */
    public long requestResync(String table, String subscription) throws SQLException {
        SignalTable signals = signals();
        try (Connection c = openWritable("resync")) {
            Optional<String> problem = signals.ensure(c);
            if (problem.isPresent()) {
                throw new IllegalStateException(problem.get());
            }
            return signals.request(c, config.topicPrefix(), table, subscription);
        }
    }

    /**
     * Asks the running pipeline to re-sync the rows of a table with these keys (texts per key
     * column, in key order; a key the source lacks is deleted on the targets): a repair; the
     * request's id.
     */
    public long requestRepair(String table, List<String[]> keys) throws SQLException {
        SignalTable signals = signals();
        try (Connection c = openWritable("repair")) {
            Optional<String> problem = signals.ensure(c);
            if (problem.isPresent()) {
                throw new IllegalStateException(problem.get());
            }
            return signals.request(c, config.topicPrefix(), table, null, keys.toArray(new String[0][]));
        }
    }

    /**
     * Asks the running pipeline for a webhook subscription's backfill: a re-sync, for that
     * subscription alone, of every table the pipeline streams that {@code wants} takes (by the
     * name its events carry: a partitioned table's root when partitions are published through it),
     * in one transaction.
     *
     * @return the tables asked for, in the order of the requests
     */
    public List<String> requestBackfill(String subscription, java.util.function.Predicate<String> wants) throws SQLException {
        return List.copyOf(requestAll(subscription, wants).keySet());
    }

    /**
     * Asks the running pipeline for a re-sync of every table it streams, for the records
     * addressed to {@code address} alone ({@code @<target>}: a target of a fan-out brought back
     * after it was detached), in one transaction.
     *
     * @return per table, the id of its request, in the order of the requests
     */
    public Map<String, Long> requestResyncOfAll(String address) throws SQLException {
        return requestAll(address, table -> true);
    }

    private Map<String, Long> requestAll(String subscription, java.util.function.Predicate<String> wants) throws SQLException {
        SignalTable signals = signals();
        try (Connection c = openWritable("backfill")) {
            Optional<String> problem = signals.ensure(c);
            if (problem.isPresent()) {
                throw new IllegalStateException(problem.get());
            }
            boolean viaRoot = Publication.viaRootInUse(c, config.publicationName(), config.publicationMode(), config.viaPartitionRoot(),
                    true);
            List<String> tables = selector().select(c, config.database()).stream().filter(SelectedTable::logged)
                    .map(t -> t.publishedName(viaRoot)).distinct().filter(wants).toList();
            c.setAutoCommit(false);
            Map<String, Long> ids = new java.util.LinkedHashMap<>();
            try {
                for (String table : tables) {
                    ids.put(table, signals.request(c, config.topicPrefix(), table, subscription));
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
            return ids;
        }
    }

    /**
     * A re-sync request as the signal table has it.
     *
     * @param subscription the webhook subscription it is the backfill of; null when it is for every target
     * @param state requested, running, done or failed
     * @param rows  rows copied durably so far
     */
    public record Resync(long id, String target, String subscription, String state, long rows, long chunks, String requestedAt,
                         String updatedAt, String message) {

        static Resync of(SignalTable.Request r) {
            return new Resync(r.id(), r.target(), r.subscription(), r.state().name().toLowerCase(java.util.Locale.ROOT), r.rows(),
                    r.chunks(), r.requestedAt(), r.updatedAt(), r.message());
        }

        public boolean done() {
            return state.equals("done");
        }

        public boolean failed() {
            return state.equals("failed");
        }

        public boolean running() {
            return state.equals("running");
        }
    }

    /** A re-sync request as the signal table has it now; empty when it is gone. */
    public Optional<Resync> resync(long id) throws SQLException {
        SignalTable signals = signals();
        try (Connection c = openWritable("resync")) {
            return signals.get(c, id).map(Resync::of);
        }
    }

    /** The pipeline's latest re-sync requests, newest first; empty when it takes none or never had one. */
    public List<Resync> recentResyncs(int limit) throws SQLException {
        SignalTable signals = config.signalTable();
        if (signals == null) {
            return List.of();
        }
        try (Connection c = openWritable("status")) {
            return signals.exists(c) ? signals.recent(c, config.topicPrefix(), limit).stream().map(Resync::of).toList() : List.of();
        }
    }

    /** Forgets the pipeline's re-sync requests and its record of the tables it streams (at teardown); how many requests there were. */
    public int forgetResyncs() throws SQLException {
        SignalTable signals = config.signalTable();
        if (signals == null) {
            return 0;
        }
        try (Connection c = openWritable("teardown")) {
            new io.sluice.connector.postgres.resync.SelectionLedger(signals).forget(c, config.topicPrefix());
            return signals.forget(c, config.topicPrefix());
        }
    }

    private SignalTable signals() {
        SignalTable signals = config.signalTable();
        if (signals == null) {
            throw new IllegalStateException(PostgresSourceConfig.SIGNAL_TABLE + " is empty: this pipeline takes no re-sync requests. "
                    + "Set it (the default is " + SignalTable.DEFAULT + ") and restart the pipeline");
        }
        return signals;
    }

    /** The primary when the configuration names one (the source is a standby), else the source: where requests are written. */
    private Connection openWritable(String what) throws SQLException {
        return PgConnect.open(PostgresSourceConnector.primaryEndpoint(config).orElse(endpoint), "sluice " + what);
    }

    private Connection open(String what) throws SQLException {
        return PgConnect.open(endpoint, "sluice " + what);
    }
}
