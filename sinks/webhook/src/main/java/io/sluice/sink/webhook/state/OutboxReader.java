package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.sluice.sink.core.routing.TableGlob;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;

/**
 * Reads a subscription's changes from the outbox: those past its place that its tables,
 * operations and changed columns select (and that are not another subscription's backfill), in
 * outbox order, and the rows asked to be replayed.
 */
public final class OutboxReader {

    private static final String COLUMNS = "seq, delivery_id, relation, operation, key_hash, lsn, "
            + "(extract(epoch from commit_time) * 1000)::bigint, body";

    private final String outbox;
    private final String replays;

    public OutboxReader(StateDatabase state) {
        this.outbox = state.table("webhook_outbox");
        this.replays = state.table("webhook_replays");
    }

    /** The number of the last row in the outbox (0 when it is empty): every row up to it is committed and visible. */
    public long last(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT coalesce(max(seq), 0) FROM " + outbox)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Up to {@code limit} of the subscription's rows numbered after {@code after} and up to {@code upTo}, in order. */
    public List<OutboxRow> read(Connection c, SubscriptionSpec spec, long after, long upTo, int limit) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM " + outbox
                + " WHERE seq > ? AND seq <= ? AND relation ~ ANY(?) AND operation = ANY(?) AND (only_for IS NULL OR only_for = ?)");
        if (!spec.changedColumns().isEmpty()) {
            sql.append(" AND (operation <> 'update' OR changed IS NULL OR jsonb_exists_any(changed, ?))");
        }
        sql.append(" ORDER BY seq LIMIT ?");
        try (PreparedStatement st = c.prepareStatement(sql.toString())) {
            int i = 1;
            st.setLong(i++, after);
            st.setLong(i++, upTo);
            st.setArray(i++, c.createArrayOf("text", spec.tables().stream().map(TableGlob::postgresRegex).toArray()));
            st.setArray(i++, c.createArrayOf("text", spec.operations().toArray()));
            st.setString(i++, spec.name());
            if (!spec.changedColumns().isEmpty()) {
                st.setArray(i++, c.createArrayOf("text", spec.changedColumns().toArray()));
            }
            st.setInt(i, limit);
            return rows(st, false);
        }
    }

    /** Up to {@code limit} rows asked to be replayed for the subscription, numbered after {@code after}. */
    public List<OutboxRow> replays(Connection c, String subscription, long after, int limit) throws SQLException {
        try (PreparedStatement st = c.prepareStatement("SELECT " + COLUMNS.replace("seq,", "o.seq,") + " FROM " + replays + " r JOIN "
                + outbox + " o ON o.seq = r.seq WHERE r.subscription = ? AND r.seq > ? AND (o.only_for IS NULL OR o.only_for = r.subscription) "
                + "ORDER BY r.seq LIMIT ?")) {
            st.setString(1, subscription);
            st.setLong(2, after);
            st.setInt(3, limit);
            return rows(st, true);
        }
    }

    private static List<OutboxRow> rows(PreparedStatement st, boolean replay) throws SQLException {
        List<OutboxRow> rows = new ArrayList<>();
        try (ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                rows.add(new OutboxRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5), rs.getLong(6),
                        rs.getLong(7), rs.getString(8), replay));
            }
        }
        return rows;
    }
}
