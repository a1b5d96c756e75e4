package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the outbox and the delivery log from growing without end. A change every subscription
 * has settled stays {@code retention} long (to be replayed), then goes; a change an active or
 * paused subscription has not settled stays until {@code maxAge}, and goes then too, named in a
 * warning (a disabled subscription holds nothing past the retention). Attempts older than the
 * log's retention go. One process cleans at a time; the highest number removed is kept, so a
 * subscription that starts behind it knows what it missed.
 */
public final class OutboxRetention {

    /** What one cleaning removed. */
    public record Removed(long changes, long attempts, List<String> missedBy) {
    }

    private static final int CHUNK = 10_000;

    private final StateDatabase state;

    public OutboxRetention(StateDatabase state) {
        this.state = state;
    }

    public Removed clean(Connection c, long retentionMillis, long maxAgeMillis, long logRetentionMillis) throws SQLException {
        String outbox = state.table("webhook_outbox");
        String subscriptions = state.table("webhook_subscriptions");
        c.setAutoCommit(false);
        try {
            try (PreparedStatement lock = c.prepareStatement("SELECT pg_try_advisory_xact_lock(hashtext(?))")) {
                lock.setString(1, "sluice.webhook.retention:" + state.schema());
                try (ResultSet rs = lock.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        c.rollback();
                        return new Removed(0, 0, List.of()); // another process is at it
                    }
                }
            }
            List<String> missedBy = new ArrayList<>();
            long oldLast = 0;
            try (PreparedStatement st = c.prepareStatement("SELECT coalesce(max(seq), 0) FROM " + outbox + " WHERE written_at < now() - "
                    + "make_interval(secs => ? / 1000.0)")) {
                st.setLong(1, maxAgeMillis);
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    oldLast = rs.getLong(1);
                }
            }
            if (oldLast > 0) {
                try (PreparedStatement st = c.prepareStatement("SELECT name FROM " + subscriptions + " WHERE status <> 'disabled' "
                        + "AND position < ? ORDER BY name")) {
                    st.setLong(1, oldLast);
                    try (ResultSet rs = st.executeQuery()) {
                        while (rs.next()) {
                            missedBy.add(rs.getString(1));
                        }
                    }
                }
            }
            long changes = 0;
            try (PreparedStatement st = c.prepareStatement("DELETE FROM " + outbox + " WHERE seq IN (SELECT seq FROM " + outbox
                    + " WHERE (written_at < now() - make_interval(secs => ? / 1000.0) AND seq <= (SELECT coalesce(min(position), "
                    + "9223372036854775807) FROM " + subscriptions + " WHERE status <> 'disabled')) "
                    + "OR written_at < now() - make_interval(secs => ? / 1000.0) ORDER BY seq LIMIT " + CHUNK + ") RETURNING seq")) {
                st.setLong(1, retentionMillis);
                st.setLong(2, maxAgeMillis);
                long removedThrough = 0;
                int n;
                do {
                    n = 0;
                    try (ResultSet rs = st.executeQuery()) {
                        while (rs.next()) {
                            n++;
                            removedThrough = Math.max(removedThrough, rs.getLong(1));
                        }
                    }
                    changes += n;
                } while (n == CHUNK);
                if (removedThrough > 0) {
                    try (PreparedStatement mark = c.prepareStatement("INSERT INTO " + state.table("webhook_retention")
                            + " (id, removed_through) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET "
                            + "removed_through = greatest(" + state.table("webhook_retention") + ".removed_through, excluded.removed_through)")) {
                        mark.setLong(1, removedThrough);
                        mark.executeUpdate();
                    }
                }
            }
            long attempts;
            try (PreparedStatement st = c.prepareStatement("DELETE FROM " + state.table("webhook_attempts") + " WHERE at < now() - "
                    + "make_interval(secs => ? / 1000.0)")) {
                st.setLong(1, logRetentionMillis);
                attempts = st.executeUpdate();
            }
            try (PreparedStatement st = c.prepareStatement("DELETE FROM " + state.table("webhook_failed") + " f WHERE NOT EXISTS "
                    + "(SELECT 1 FROM " + outbox + " o WHERE o.seq = f.seq)")) {
                st.executeUpdate(); // a failure whose change is gone can be replayed no more
            }
            c.commit();
            return new Removed(changes, attempts, missedBy);
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** The highest outbox number retention removed (0 when none). */
    public long removedThrough(Connection c) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT coalesce(max(removed_through), 0) FROM " + state.table("webhook_retention"));
             ResultSet rs = st.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
