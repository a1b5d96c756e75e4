package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

import io.sluice.schemas.postgres.Lsn;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Whether the slot a stream reconnects to goes on where the stream left off. After a failover
 * the new primary has the slot only when it was a failover slot that a standby synchronized
 * (17 and later); a slot there that has confirmed more than this stream ever did is not the
 * stream's own (made again by someone), and starting from it would skip changes silently.
 */
final class SlotContinuity {

    /** The stream cannot go on without a gap; its message says why and what to do. */
    static final class Broken extends ConnectException {
        Broken(String message) {
            super(message);
        }
    }

    private SlotContinuity() {
    }

    /**
     * Fails when the server behind {@code sql} lacks the slot, or, when it is another server than
     * {@code before} (the one the stream came from), holds one that confirmed past {@code
     * confirmed}, what this stream last reported. (On the same server the slot is the stream's
     * own; another server's copy of it can only lag what was reported to the first.)
     *
     * @return the server, as {@code host:port}
     */
    static String check(Connection sql, String slot, long confirmed, String before) throws SQLException {
        Optional<ReplicationSlot.State> state = ReplicationSlot.find(sql, slot);
        String server = server(sql);
        if (state.isEmpty()) {
            throw new Broken("Replication slot " + slot + " is not on " + server + ", the server the source's hosts lead to now: after "
                    + "a failover the new primary holds the slot only when it was a failover slot (slot.failover=true, PostgreSQL 17 "
                    + "and later) that a standby with sync_replication_slots=on had synchronized. The changes since "
                    + Lsn.format(confirmed) + " cannot be streamed without a gap, so nothing more is: take the snapshot again with "
                    + "`sluice run --fresh` (or reset this connector's offsets).");
        }
        if (!server.equals(before) && confirmed > 0 && Long.compareUnsigned(state.get().confirmedFlush(), confirmed) > 0) {
            throw new Broken("Replication slot " + slot + " on " + server + " has confirmed changes up to "
                    + Lsn.format(state.get().confirmedFlush()) + ", past " + Lsn.format(confirmed) + " where this stream left off: it is "
                    + "not this pipeline's slot (made again after a failover?), and streaming from it would skip the changes in between. "
                    + "Take the snapshot again with `sluice run --fresh` (or reset this connector's offsets).");
        }
        return server;
    }

    /** The server behind the connection as it names itself, {@code host:port}. */
    static String server(Connection sql) throws SQLException {
        try (Statement s = sql.createStatement();
             ResultSet rs = s.executeQuery("SELECT coalesce(host(inet_server_addr()), 'the local socket') || ':' || "
                     + "coalesce(inet_server_port()::text, current_setting('port'))")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
