package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.webhook.subscription.Subscription;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The subscriptions in the state database. A new subscription starts at the end of the outbox:
 * it gets the changes written after it was made (and, with {@code backfill}, the current rows
 * of its tables, once the source re-synced them for it).
 */
public final class SubscriptionTable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final StateDatabase state;
    private final String table;
    private final String outbox;

    private static final String SELECT_COLUMNS = "SELECT name, spec::text, declared, status, status_reason, position, failing_since, "
            + "created_at, updated_at, backfill, backfill_note FROM ";
    private final String snapshots;

    public SubscriptionTable(StateDatabase state) {
        this.state = state;
        this.table = state.table("webhook_subscriptions");
        this.outbox = state.table("webhook_outbox");
        this.snapshots = state.table("webhook_snapshots");
    }

    /**
     * A new subscription's backfill, in SQL: none when it asks for none; not needed when nothing
     * has reached the outbox yet (no snapshot begun, nothing streamed: it gets everything the
     * pipeline sends, its snapshot too); else pending.
     */
    private String backfillOf(SubscriptionSpec spec) {
        return spec.backfill() ? "(SELECT CASE WHEN EXISTS (SELECT 1 FROM " + snapshots + ") THEN 'pending' ELSE 'not_needed' END)" : "NULL";
    }

    public List<Subscription> all(Connection c) throws SQLException {
        List<Subscription> all = new ArrayList<>();
        try (PreparedStatement st = c.prepareStatement(SELECT_COLUMNS + table + " ORDER BY name"); ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                all.add(read(rs));
            }
        }
        return all;
    }

    public Optional<Subscription> get(Connection c, String name) throws SQLException {
        try (PreparedStatement st = c.prepareStatement(SELECT_COLUMNS + table + " WHERE name = ?")) {
            st.setString(1, name);
            try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? Optional.of(read(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Makes a subscription at the end of the outbox, or changes what an existing one asks for
     * (its place, status and history stay).
     *
     * @return whether it was made
     */
    public boolean put(Connection c, SubscriptionSpec spec, String declared) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + table + " (name, spec, declared, status, position, backfill) "
                + "VALUES (?, ?::jsonb, ?, 'active', (SELECT coalesce(max(seq), 0) FROM " + outbox + "), " + backfillOf(spec) + ") "
                + "ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, declared = excluded.declared, updated_at = now() "
                + "RETURNING (xmax = 0)")) {
            st.setString(1, spec.name());
            st.setString(2, toJson(spec.options()));
            st.setString(3, declared);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** Makes a subscription; false when one of that name exists. */
    public boolean create(Connection c, SubscriptionSpec spec, String declared) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("INSERT INTO " + table + " (name, spec, declared, status, position, backfill) "
                + "VALUES (?, ?::jsonb, ?, 'active', (SELECT coalesce(max(seq), 0) FROM " + outbox + "), " + backfillOf(spec) + ") "
                + "ON CONFLICT (name) DO NOTHING")) {
            st.setString(1, spec.name());
            st.setString(2, toJson(spec.options()));
            st.setString(3, declared);
            return st.executeUpdate() == 1;
        }
    }

    public boolean delete(Connection c, String name) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("DELETE FROM " + table + " WHERE name = ?")) {
            st.setString(1, name);
            return st.executeUpdate() == 1;
        }
    }

    /** Deletes the subscriptions declared in the configuration that it no longer names. */
    public List<String> deleteUndeclared(Connection c, List<String> declared) throws SQLException {
        List<String> gone = new ArrayList<>();
        try (PreparedStatement st = c.prepareStatement("DELETE FROM " + table + " WHERE declared = 'config' AND NOT (name = ANY(?)) "
                + "RETURNING name")) {
            st.setArray(1, c.createArrayOf("text", declared.toArray()));
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    gone.add(rs.getString(1));
                }
            }
        }
        return gone;
    }

    /** Sets the status; leaving {@code failing since} behind when it becomes active again. */
    public boolean setStatus(Connection c, String name, Subscription.Status status, String reason) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("UPDATE " + table + " SET status = ?, status_reason = ?, updated_at = now()"
                + (status == Subscription.Status.ACTIVE ? ", failing_since = NULL" : "") + " WHERE name = ?")) {
            st.setString(1, status.key());
            st.setString(2, reason);
            st.setString(3, name);
            return st.executeUpdate() == 1;
        }
    }

    /** Records where a subscription's deliveries are and since when they fail (null: they do not). */
    public void setProgress(Connection c, String name, long position, Instant failingSince) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("UPDATE " + table + " SET position = greatest(position, ?), failing_since = ? "
                + "WHERE name = ?")) {
            st.setLong(1, position);
            st.setTimestamp(2, failingSince == null ? null : Timestamp.from(failingSince));
            st.setString(3, name);
            st.executeUpdate();
        }
    }

    /**
     * Asks for a backfill of an existing subscription (again); false when there is no such
     * subscription.
     */
    public boolean requestBackfill(Connection c, String name) throws SQLException {
        return setBackfill(c, name, Subscription.Backfill.PENDING, null);
    }

    /**
     * Records where a subscription's backfill is, and what more to say of it. Its {@code updated_at}
     * stays: that says its options changed (its delivery loop starts again), and these do not.
     */
    public boolean setBackfill(Connection c, String name, Subscription.Backfill backfill, String note) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("UPDATE " + table + " SET backfill = ?, backfill_note = ? "
                + "WHERE name = ?")) {
            st.setString(1, backfill.key());
            st.setString(2, note);
            st.setString(3, name);
            return st.executeUpdate() == 1;
        }
    }

    /**
     * The subscriptions whose backfill waits to be asked of the source, locked in the caller's
     * transaction (those another process is asking for are passed over).
     */
    public List<Subscription> lockPendingBackfills(Connection c) throws SQLException {
        List<Subscription> pending = new ArrayList<>();
        try (PreparedStatement st = c.prepareStatement(SELECT_COLUMNS + table + " WHERE backfill = 'pending' ORDER BY name "
                + "FOR UPDATE SKIP LOCKED"); ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                pending.add(read(rs));
            }
        }
        return pending;
    }

    private static Subscription read(ResultSet rs) throws SQLException {
        String name = rs.getString(1);
        Map<String, String> options = fromJson(rs.getString(2));
        List<String> errors = new ArrayList<>();
        SubscriptionSpec spec = SubscriptionSpec.parse(name, options::get, "the stored subscription " + name + ": ", errors);
        if (spec == null) {
            throw new ConnectException("The stored subscription " + name + " cannot be read: " + String.join("; ", errors)
                    + ". Update it through the API, or delete it");
        }
        Timestamp failing = rs.getTimestamp(7);
        return new Subscription(spec, rs.getString(3), Subscription.Status.valueOf(rs.getString(4).toUpperCase(java.util.Locale.ROOT)),
                rs.getString(5), rs.getLong(6), failing == null ? null : failing.toInstant(), rs.getTimestamp(8).toInstant(),
                rs.getTimestamp(9).toInstant(), Subscription.Backfill.of(rs.getString(10)), rs.getString(11));
    }

    private static String toJson(Map<String, String> options) {
        ObjectNode node = JSON.createObjectNode();
        options.forEach(node::put);
        return node.toString();
    }

    private static Map<String, String> fromJson(String text) {
        try {
            Map<String, String> options = new LinkedHashMap<>();
            JsonNode node = JSON.readTree(text);
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                options.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
            }
            return options;
        } catch (java.io.IOException e) {
            throw new ConnectException("A stored subscription's options are not JSON: " + e.getMessage(), e);
        }
    }

    public StateDatabase state() {
        return state;
    }
}
