package io.sluice.connector.postgres.replication;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.sluice.connector.postgres.pgoutput.PgOutputDecoder;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.schemas.postgres.Lsn;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pgoutput stream of one slot on a replication connection. One thread reads it; any thread
 * may {@link #confirm} a position, which the reading thread reports to the server with its next
 * status update, so the slot releases WAL only up to what is durable downstream.
 */
public final class ChangeStream implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeStream.class);

    private final Connection connection;
    private final PGReplicationStream stream;
    private final AtomicLong confirmed = new AtomicLong();
    private long reported;

    private ChangeStream(Connection connection, PGReplicationStream stream, long start) {
        this.connection = connection;
        this.stream = stream;
        this.confirmed.set(start);
        this.reported = start;
    }

    /**
     * Starts streaming changes committed after {@code start} (the server starts no earlier than
     * the slot's confirmed position).
     *
     * @param messages ask for logical messages too (PostgreSQL 14 and later)
     */
    public static ChangeStream start(Connection replication, String slot, String publication, long start, boolean messages,
                                     long statusIntervalMillis) throws SQLException {
        ChainedLogicalStreamBuilder builder = replication.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
                .withSlotName(slot)
                .withStartPosition(LogSequenceNumber.valueOf(start))
                .withSlotOption("proto_version", "1")
                .withSlotOption("publication_names", "\"" + publication.replace("\"", "\"\"") + "\"")
                .withStatusInterval((int) Math.max(1, statusIntervalMillis), TimeUnit.MILLISECONDS);
        if (messages) {
            builder.withSlotOption("messages", "true");
        }
        PGReplicationStream stream = builder.start();
        LOG.info("Streaming changes from slot {} (publication {}) after {}", slot, publication, Lsn.format(start));
        return new ChangeStream(replication, stream, start);
    }

    /** The next message, or null when none has arrived; never blocks for long. */
    public PgOutputMessage read() throws SQLException {
        reportConfirmed();
        ByteBuffer payload = stream.readPending();
        return payload == null ? null : PgOutputDecoder.decode(payload);
    }

    /** The newest position marked durable downstream. */
    public long confirmed() {
        return confirmed.get();
    }

    /** The log position of the last message or keepalive received. */
    public long lastReceived() {
        return stream.getLastReceiveLSN().asLong();
    }

    /** Marks everything up to {@code lsn} durable downstream; positions only move forward. */
    public void confirm(long lsn) {
        confirmed.accumulateAndGet(lsn, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
    }

    private void reportConfirmed() throws SQLException {
        long now = confirmed.get();
        if (now != reported) {
            LogSequenceNumber lsn = LogSequenceNumber.valueOf(now);
            stream.setFlushedLSN(lsn);
            stream.setAppliedLSN(lsn);
            stream.forceUpdateStatus();
            reported = now;
        }
    }

    @Override
    public void close() {
        try {
            reportConfirmed();
        } catch (SQLException e) {
            LOG.debug("Reporting the confirmed position at close", e);
        }
        try {
            stream.close();
        } catch (SQLException e) {
            LOG.debug("Closing the replication stream", e);
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("Closing the replication connection", e);
        }
    }
}
