package io.sluice.connector.postgres.replication;

import java.sql.SQLException;

import org.apache.kafka.connect.errors.ConnectException;

/** What a failure of the stream that is not an outage means, in one message with what to do. */
final class StreamFailures {

    private StreamFailures() {
    }

    static ConnectException explain(SQLException e, String slot, String publication) {
        if ("42704".equals(e.getSQLState()) && e.getMessage() != null && e.getMessage().contains("publication")) {
            return new ConnectException("Publication " + publication + " is gone from the source (dropped by someone?): "
                    + "the changes made since cannot be decoded, because PostgreSQL reads a publication as it was at each change, "
                    + "so creating it again does not bring them back. Take the snapshot again (`sluice run --fresh`, or reset this "
                    + "connector's offsets and drop slot " + slot + "). The server said: " + e.getMessage(), e);
        }
        if (e.getMessage() != null && e.getMessage().contains("cannot read from logical replication slot")) {
            return new ConnectException("Replication slot " + slot + " was invalidated by the source server (its WAL passed "
                    + "max_slot_wal_keep_size, or the slot lagged past the server's limits), so the changes since its position are lost "
                    + "to Sluice. Take the snapshot again (`sluice run --fresh`, or reset this connector's offsets and drop slot " + slot
                    + "). To be warned before it happens, watch sluice_source_slot_at_risk and the WARN lines of slot health "
                    + "(docs/metrics.md), or raise max_slot_wal_keep_size. The server said: " + e.getMessage(), e);
        }
        if ("25006".equals(e.getSQLState())) {
            return new ConnectException("Streaming from slot " + slot + " needed a write the source refuses, being a hot standby "
                    + "(copying a table that joined the selection with rows locks it and marks the stream): set "
                    + "database.primary.hostname to its primary. The server said: " + e.getMessage(), e);
        }
        return new ConnectException("Streaming from slot " + slot + " failed: " + e.getMessage(), e);
    }
}
