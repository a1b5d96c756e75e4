package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.List;

/**
 * Writes what deliveries did: every attempt, the deliveries that failed for good (to be
 * replayed), replays that are done, and the subscription's place and failing time — all in one
 * transaction, so the place never gets ahead of the log.
 */
public final class DeliveryLog {

    /** How a delivery attempt ended. */
    public enum Outcome {
        /** 2xx: delivered. */
        DELIVERED,
        /** Failed; tried again later. */
        RETRYING,
        /** 429, 502, 503 or 504: the receiver asked to slow down; tried again later. */
        THROTTLED,
        /** Failed for good: no more tries (a permanent answer, or the retry time is up). */
        FAILED,
        /** 410: the receiver is gone; the subscription is disabled. */
        GONE;

        public String key() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One attempt of one delivery. */
    public record Attempt(long seq, String deliveryId, int attempt, Instant at, Integer status, Integer latencyMs, Outcome outcome,
                          String response, String error, boolean replay) {
    }

    private final String attempts;
    private final String failed;
    private final String replays;
    private final SubscriptionTable subscriptions;

    public DeliveryLog(StateDatabase state) {
        this.attempts = state.table("webhook_attempts");
        this.failed = state.table("webhook_failed");
        this.replays = state.table("webhook_replays");
        this.subscriptions = new SubscriptionTable(state);
    }

    /**
     * Writes a subscription's attempts and where it is now, in one transaction.
     *
     * @param position     every row up to it is delivered or failed for good
     * @param failingSince since when it fails without a success; null when it does not
     */
    public void write(Connection c, String subscription, List<Attempt> done, long position, Instant failingSince) throws SQLException {
        Transactions.run(c, () -> {
            if (!done.isEmpty()) {
                try (PreparedStatement st = c.prepareStatement("INSERT INTO " + attempts
                        + " (subscription, seq, delivery_id, attempt, at, status, latency_ms, outcome, response, error) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    for (Attempt a : done) {
                        st.setString(1, subscription);
                        st.setLong(2, a.seq());
                        st.setString(3, a.deliveryId());
                        st.setInt(4, a.attempt());
                        st.setTimestamp(5, Timestamp.from(a.at()));
                        setInt(st, 6, a.status());
                        setInt(st, 7, a.latencyMs());
                        st.setString(8, a.outcome().key());
                        st.setString(9, clean(a.response()));
                        st.setString(10, clean(a.error()));
                        st.addBatch();
                    }
                    st.executeBatch();
                }
                try (PreparedStatement fail = c.prepareStatement("INSERT INTO " + failed
                        + " (subscription, seq, delivery_id, failed_at, status, error) VALUES (?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (subscription, seq) DO UPDATE SET failed_at = excluded.failed_at, status = excluded.status, "
                        + "error = excluded.error");
                     PreparedStatement delivered = c.prepareStatement("DELETE FROM " + failed + " WHERE subscription = ? AND seq = ?");
                     PreparedStatement replayed = c.prepareStatement("DELETE FROM " + replays + " WHERE subscription = ? AND seq = ?")) {
                    for (Attempt a : done) {
                        if (a.outcome() == Outcome.FAILED || a.outcome() == Outcome.GONE) {
                            fail.setString(1, subscription);
                            fail.setLong(2, a.seq());
                            fail.setString(3, a.deliveryId());
                            fail.setTimestamp(4, Timestamp.from(a.at()));
                            setInt(fail, 5, a.status());
                            fail.setString(6, clean(a.error()));
                            fail.addBatch();
                        } else if (a.outcome() == Outcome.DELIVERED && a.replay()) {
                            delivered.setString(1, subscription);
                            delivered.setLong(2, a.seq());
                            delivered.addBatch();
                        }
                        if (a.replay() && (a.outcome() == Outcome.DELIVERED || a.outcome() == Outcome.FAILED || a.outcome() == Outcome.GONE)) {
                            replayed.setString(1, subscription);
                            replayed.setLong(2, a.seq());
                            replayed.addBatch();
                        }
                    }
                    fail.executeBatch();
                    delivered.executeBatch();
                    replayed.executeBatch();
                }
            }
            subscriptions.setProgress(c, subscription, position, failingSince);
            return null;
        });
    }

    private static void setInt(PreparedStatement st, int i, Integer v) throws SQLException {
        if (v == null) {
            st.setNull(i, Types.INTEGER);
        } else {
            st.setInt(i, v);
        }
    }

    /** Text PostgreSQL can store: no NUL characters. */
    private static String clean(String s) {
        return s == null ? null : s.replace('\u0000', '\uFFFD');
    }
}
