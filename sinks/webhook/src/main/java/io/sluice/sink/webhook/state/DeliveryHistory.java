package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.postgres.Lsn;

/**
 * What the delivery log says of a subscription's deliveries, and replays asked of it: one
 * delivery again, or the ones that failed for good in a time or source position range.
 */
public final class DeliveryHistory {

    /** One attempt as the log has it (times in ISO-8601, as the API shows them). */
    public record Entry(long seq, String deliveryId, int attempt, String at, Integer status, Integer latencyMs, String outcome,
                        String response, String error) {
    }

    /** A delivery that failed for good. */
    public record Failure(long seq, String deliveryId, String failedAt, Integer status, String error) {
    }

    private final String attempts;
    private final String failed;
    private final String replays;
    private final String outbox;

    public DeliveryHistory(StateDatabase state) {
        this.attempts = state.table("webhook_attempts");
        this.failed = state.table("webhook_failed");
        this.replays = state.table("webhook_replays");
        this.outbox = state.table("webhook_outbox");
    }

    /**
     * The latest attempts, newest first.
     *
     * @param outcome only those that ended so ({@code delivered}, {@code retrying}, …); null for all
     * @param since   only those at or after; null for all
     */
    public List<Entry> attempts(Connection c, String subscription, String outcome, Instant since, int limit) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT seq, delivery_id, attempt, at, status, latency_ms, outcome, response, error "
                + "FROM " + attempts + " WHERE subscription = ? AND (?::text IS NULL OR outcome = ?) AND (?::timestamptz IS NULL OR at >= ?) "
                + "ORDER BY id DESC LIMIT ?")) {
            st.setString(1, subscription);
            st.setString(2, outcome);
            st.setString(3, outcome);
            Timestamp t = since == null ? null : Timestamp.from(since);
            st.setTimestamp(4, t);
            st.setTimestamp(5, t);
            st.setInt(6, limit);
            List<Entry> entries = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    entries.add(new Entry(rs.getLong(1), rs.getString(2), rs.getInt(3), rs.getTimestamp(4).toInstant().toString(),
                            (Integer) rs.getObject(5), (Integer) rs.getObject(6), rs.getString(7), rs.getString(8), rs.getString(9)));
                }
            }
            return entries;
        }
    }

    /** The deliveries that failed for good (and were not delivered by a replay since), oldest first. */
    public List<Failure> failures(Connection c, String subscription, int limit) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT seq, delivery_id, failed_at, status, error FROM " + failed
                + " WHERE subscription = ? ORDER BY seq LIMIT ?")) {
            st.setString(1, subscription);
            st.setInt(2, limit);
            List<Failure> list = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    list.add(new Failure(rs.getLong(1), rs.getString(2), rs.getTimestamp(3).toInstant().toString(), (Integer) rs.getObject(4),
                            rs.getString(5)));
                }
            }
            return list;
        }
    }

    /**
     * Asks for one delivery again, by its {@code webhook-id}.
     *
     * @return false when the outbox no longer holds it (or never did)
     */
    public boolean replayOne(Connection c, String subscription, String deliveryId) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + replays + " (subscription, seq) SELECT ?, seq FROM " + outbox
                + " WHERE delivery_id = ? ON CONFLICT DO NOTHING")) {
            st.setString(1, subscription);
            st.setString(2, deliveryId);
            int n = st.executeUpdate();
            if (n > 0) {
                return true;
            }
        }
        try (PreparedStatement st = c.prepareStatement("SELECT 1 FROM " + outbox + " WHERE delivery_id = ?")) {
            st.setString(1, deliveryId);
            try (ResultSet rs = st.executeQuery()) {
                return rs.next(); // asked for already
            }
        }
    }

    /**
     * Asks for every delivery that failed for good again, those that failed in a time range or
     * whose changes committed in a source position range (bounds inclusive, null for open).
     *
     * @return how many were asked for
     */
    public int replayFailed(Connection c, String subscription, Instant from, Instant to, String fromLsn, String toLsn) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + replays + " (subscription, seq) SELECT f.subscription, f.seq FROM "
                + failed + " f JOIN " + outbox + " o ON o.seq = f.seq WHERE f.subscription = ? "
                + "AND (?::timestamptz IS NULL OR f.failed_at >= ?) AND (?::timestamptz IS NULL OR f.failed_at <= ?) "
                + "AND (?::bigint IS NULL OR o.lsn >= ?) AND (?::bigint IS NULL OR o.lsn <= ?) ON CONFLICT DO NOTHING")) {
            st.setString(1, subscription);
            Timestamp f = from == null ? null : Timestamp.from(from);
            Timestamp t = to == null ? null : Timestamp.from(to);
            st.setTimestamp(2, f);
            st.setTimestamp(3, f);
            st.setTimestamp(4, t);
            st.setTimestamp(5, t);
            Long fl = fromLsn == null ? null : Lsn.parse(fromLsn);
            Long tl = toLsn == null ? null : Lsn.parse(toLsn);
            st.setObject(6, fl, java.sql.Types.BIGINT);
            st.setObject(7, fl, java.sql.Types.BIGINT);
            st.setObject(8, tl, java.sql.Types.BIGINT);
            st.setObject(9, tl, java.sql.Types.BIGINT);
            return st.executeUpdate();
        }
    }
}
