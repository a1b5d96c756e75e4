package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

/**
 * Per source, the commit time of the newest heartbeat the state database took, written right
 * after the outbox rows that came with it (or alone on an idle stream): a heartbeat counts as
 * durable only once the state database took something after it, so a state database that is
 * down shows as growing end-to-end lag even while the source is idle.
 */
public final class HeartbeatTable {

    private final String table;

    public HeartbeatTable(StateDatabase state) {
        this.table = state.table("webhook_heartbeats");
    }

    /** Moves each source's heartbeat forward to these commit times (milliseconds since the epoch), never back. */
    public void advance(Connection c, Map<String, Long> commitMillis) throws SQLException {
        if (commitMillis.isEmpty()) {
            return;
        }
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + table + " AS h (source, committed_at) VALUES (?, to_timestamp(? / 1000.0)) "
                + "ON CONFLICT (source) DO UPDATE SET committed_at = greatest(h.committed_at, excluded.committed_at), applied_at = now()")) {
            for (Map.Entry<String, Long> e : commitMillis.entrySet()) {
                st.setString(1, e.getKey());
                st.setLong(2, e.getValue());
                st.addBatch();
            }
            st.executeBatch();
        }
    }

    /** Forgets a source's heartbeat (its pipeline was torn down); whether there was one. */
    public boolean forget(Connection c, String source) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("DELETE FROM " + table + " WHERE source = ?")) {
            st.setString(1, source);
            return st.executeUpdate() > 0;
        }
    }
}
