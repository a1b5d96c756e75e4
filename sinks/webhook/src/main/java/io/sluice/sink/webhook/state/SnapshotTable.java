package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Optional;

/**
 * What the state database records of each source's snapshot, and whether changes streamed after
 * it are in the outbox: where the {@code sluice} command learns that a pipeline into webhooks
 * has started, finished its snapshot, and streams (so a run resumes rather than copies again).
 */
public final class SnapshotTable {

    /** A source's snapshot as recorded; {@code finishedAt} null while it runs. */
    public record Snapshot(String source, String database, OffsetDateTime startedAt, OffsetDateTime finishedAt, boolean streamed) {
        public boolean finished() {
            return finishedAt != null;
        }
    }

    private final String table;

    public SnapshotTable(StateDatabase state) {
        this.table = state.table("webhook_snapshots");
    }

    /** A snapshot of the source begins (its first event). */
    public void started(Connection c, String source, String database) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + table + " (source, database, started_at) VALUES (?, ?, now()) "
                + "ON CONFLICT (source) DO UPDATE SET database = excluded.database, started_at = now(), finished_at = NULL, streamed = false")) {
            st.setString(1, source);
            st.setString(2, database);
            st.executeUpdate();
        }
    }

    /** Every row of the source's snapshot is in the outbox (its last event). */
    public void finished(Connection c, String source) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("UPDATE " + table + " SET finished_at = now() WHERE source = ?")) {
            st.setString(1, source);
            st.executeUpdate();
        }
    }

    /** Changes of the source streamed after its snapshot are in the outbox; in the caller's transaction. */
    public void streamed(Connection c, String source) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + table + " (source, streamed) VALUES (?, true) "
                + "ON CONFLICT (source) DO UPDATE SET streamed = true WHERE NOT " + table + ".streamed")) {
            st.setString(1, source);
            st.executeUpdate();
        }
    }

    public Optional<Snapshot> read(Connection c, String source) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT source, database, started_at, finished_at, streamed FROM " + table
                + " WHERE source = ?")) {
            st.setString(1, source);
            try (ResultSet rs = st.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Snapshot(rs.getString(1), rs.getString(2), rs.getObject(3, OffsetDateTime.class),
                        rs.getObject(4, OffsetDateTime.class), rs.getBoolean(5)));
            }
        }
    }

    /** Forgets what is recorded of the source; true when there was something. */
    public boolean forget(Connection c, String source) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("DELETE FROM " + table + " WHERE source = ?")) {
            st.setString(1, source);
            return st.executeUpdate() > 0;
        }
    }
}
