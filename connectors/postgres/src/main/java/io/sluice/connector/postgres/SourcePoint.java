package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.connector.postgres.replication.ChangeStream;
import io.sluice.connector.postgres.replication.ReplicationSlot;
import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;

/**
 * One consistent point of the source, for comparing a target with it while the pipeline keeps
 * streaming: a temporary replication slot made with an exported snapshot, a connection that
 * reads in that snapshot (exactly the transactions committed before the slot's consistent
 * point), and the slot's stream, which holds exactly the transactions after it. A target that
 * has applied through a later commit differs from the snapshot by those transactions alone,
 * which {@link #readThrough} collects. Closing it drops the slot (a temporary one is dropped by
 * the server too, should this process die).
 */
public final class SourcePoint implements AutoCloseable {

    private final Connection replication;
    private final Connection snapshot;
    private final long lsn;
    private final String publication;
    private final String slot;
    private final PgEndpoint endpoint;
    private ChangeStream stream;
    private final SourceChanges changes = new SourceChanges();
    /** A message read past the position last read through: the first of the next transaction. */
    private PgOutputMessage.Begin ahead;
    /** Per heartbeat message written here (by its position), the commit position of its transaction once read. */
    private final Map<Long, Long> marks = new HashMap<>();

    private SourcePoint(Connection replication, Connection snapshot, long lsn, String publication, String slot, PgEndpoint endpoint) {
        this.slot = slot;
        this.replication = replication;
        this.snapshot = snapshot;
        this.lsn = lsn;
        this.publication = publication;
        this.endpoint = endpoint;
    }

    /**
     * Makes the point now: the slot (named after the pipeline's and this process), and the
     * snapshot's connection, in a read-only repeatable-read transaction left open.
     */
    public static SourcePoint open(PostgresSourceConfig config, String purpose) throws SQLException {
        PgEndpoint endpoint = PostgresSourceConnector.endpoint(config);
        Connection replication = PgConnect.openReplication(endpoint, purpose);
        Connection snapshot = null;
        try {
            String slot = (config.slotName() + "_v" + ProcessHandle.current().pid());
            slot = slot.length() > 63 ? slot.substring(slot.length() - 63) : slot;
            ReplicationSlot.Created created = ReplicationSlot.createTemporary(replication, slot);
            snapshot = PgConnect.open(endpoint, purpose);
            // In autocommit, so the transaction is the one BEGIN opens, with its isolation level.
            snapshot.setAutoCommit(true);
            try (Statement s = snapshot.createStatement()) {
                s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
                s.execute("SET TRANSACTION SNAPSHOT '" + created.snapshotName().replace("'", "''") + "'");
                s.execute("SELECT 1"); // takes the snapshot now, while the slot's connection has run nothing else
            }
            return new SourcePoint(replication, snapshot, created.consistentPoint(), config.publicationName(), slot, endpoint);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(snapshot);
            closeQuietly(replication);
            throw e;
        }
    }

    /**
     * A point without a slot, for a source no pipeline streams from: a snapshot taken now, with no
     * stream after it ({@link #mark} and the reads are refused).
     */
    public static SourcePoint now(PostgresSourceConfig config, String purpose) throws SQLException {
        PgEndpoint endpoint = PostgresSourceConnector.endpoint(config);
        Connection snapshot = PgConnect.open(endpoint, purpose);
        try (Statement s = snapshot.createStatement()) {
            snapshot.setAutoCommit(true);
            s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
            try (ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_current_wal_lsn()::text")) {
                rs.next();
                return new SourcePoint(null, snapshot, io.sluice.schemas.postgres.Lsn.parse(rs.getString(1)), null, null, endpoint);
            }
        } catch (SQLException | RuntimeException e) {
            closeQuietly(snapshot);
            throw e;
        }
    }

    /** Whether the pipeline streams now: its slot exists and a process holds it ({@code c}: a connection to the source). */
    public static boolean streaming(PostgresSourceConfig config, Connection c) throws SQLException {
        return ReplicationSlot.find(c, config.slotName()).map(ReplicationSlot.State::active).orElse(false);
    }

    /** The connection reading in the point's snapshot (its transaction stays open until {@link #close}). */
    public Connection snapshot() {
        return snapshot;
    }

    /** The consistent point: transactions committed before it are in the snapshot, those after it in the stream. */
    public long lsn() {
        return lsn;
    }

    /**
     * Writes a heartbeat of the pipeline (topic prefix {@code pipeline}) into the WAL after the
     * point, which the pipeline carries to its target like its own; the position of its message.
     */
    public long mark(String pipeline) throws SQLException {
        try (Connection c = PgConnect.open(endpoint, "sluice verify");
             PreparedStatement s = c.prepareStatement("SELECT pg_catalog.pg_logical_emit_message(true, ?, ?)::text")) {
            s.setString(1, Heartbeats.MESSAGE_PREFIX);
            s.setString(2, pipeline);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return io.sluice.schemas.postgres.Lsn.parse(rs.getString(1));
            }
        }
    }

    /**
     * Reads the stream until it has the transaction of the heartbeat {@link #mark} wrote at
     * {@code message}; that transaction's commit position.
     *
     * @throws SQLException when it does not come within {@code timeoutMillis}
     */
    public long commitOf(long message, long timeoutMillis) throws SQLException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!marks.containsKey(message)) {
            if (!step(-1) && System.nanoTime() > deadline) {
                throw new SQLException("The heartbeat written at " + io.sluice.schemas.postgres.Lsn.format(message)
                        + " did not come through the comparison's slot within " + timeoutMillis / 1000 + " s");
            }
        }
        return marks.get(message);
    }

    /**
     * Reads the stream through every transaction that committed at or before {@code commitLsn}
     * (which must be one the stream has: a target's last applied change or heartbeat), collecting
     * their changes; those after it stay unread.
     */
    public SourceChanges readThrough(long commitLsn, long timeoutMillis) throws SQLException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (Long.compareUnsigned(changes.through(), commitLsn) < 0) {
            if (!step(commitLsn) && System.nanoTime() > deadline) {
                throw new SQLException("The source's stream did not reach " + io.sluice.schemas.postgres.Lsn.format(commitLsn)
                        + ", the target's position, within " + timeoutMillis / 1000 + " s");
            }
        }
        return changes;
    }

    /**
     * Takes one message, unless it begins a transaction that commits after {@code limit} (−1:
     * none): that one waits for a later read. Whether there was one to take.
     */
    private boolean step(long limit) throws SQLException {
        if (replication == null) {
            throw new IllegalStateException("This point has no slot: no stream to read");
        }
        if (stream == null) {
            stream = ChangeStream.start(replication, slot, publication, lsn, true, 10_000);
        }
        PgOutputMessage m;
        if (ahead != null) {
            m = ahead;
        } else {
            m = stream.read();
            if (m == null) {
                sleep();
                return false;
            }
        }
        if (m instanceof PgOutputMessage.Begin b && limit != -1 && Long.compareUnsigned(b.finalLsn(), limit) > 0) {
            ahead = b;
            sleep();
            return false;
        }
        ahead = null;
        if (m instanceof PgOutputMessage.LogicalMessage lm && Heartbeats.MESSAGE_PREFIX.equals(lm.prefix())) {
            marks.put(lm.lsn(), changes.open());
        }
        changes.take(m);
        return true;
    }

    private static void sleep() throws SQLException {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("Interrupted while reading the comparison's slot", e);
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing after a failure: the failure is what counts
            }
        }
    }

    @Override
    public void close() {
        try (Statement s = snapshot.createStatement()) {
            s.execute("ROLLBACK");
        } catch (SQLException ignored) {
            // the connection is closed next either way
        }
        closeQuietly(snapshot);
        if (stream != null) {
            stream.close(); // closes the replication connection; the temporary slot goes with it
        } else {
            closeQuietly(replication);
        }
    }
}
