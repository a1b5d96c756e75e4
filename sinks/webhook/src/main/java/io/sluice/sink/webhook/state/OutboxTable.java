package io.sluice.sink.webhook.state;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.common.TopicPartition;

/**
 * Appends changes to the outbox. Each append is one transaction that takes the outbox's lock
 * before it numbers its rows, so rows are numbered in the order their transactions commit: a
 * subscription that has read up to a number has seen every row below it, whichever task wrote
 * it. The commit wakes the delivery loops ({@code NOTIFY}).
 */
public final class OutboxTable {

    private final StateDatabase state;
    private final SnapshotTable snapshots;
    private final String insert;
    private final String reserve;
    private final String lock;
    private final String notify;
    private final String backfillStarted;

    public OutboxTable(StateDatabase state) {
        this.state = state;
        this.snapshots = new SnapshotTable(state);
        this.insert = "INSERT INTO " + state.table("webhook_outbox")
                + " (seq, delivery_id, source, relation, operation, key_hash, changed, lsn, commit_time, body, only_for) "
                + "SELECT ?::bigint + n - 1, d, s, r, o, k, c::jsonb, l, to_timestamp(m / 1000.0), b, f "
                + "FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::bigint[], ?::bigint[], ?::text[], "
                + "?::text[]) WITH ORDINALITY AS x(d, s, r, o, k, c, l, m, b, f, n)";
        this.backfillStarted = "UPDATE " + state.table("webhook_subscriptions") + " SET backfill = 'started' "
                + "WHERE name = ANY(?) AND backfill IN ('pending', 'requested')";
        String sequence = Identifiers.literal(state.table("webhook_outbox_seq"));
        // The numbers of a whole append at once: the first is returned, the sequence left at the last.
        this.reserve = "SELECT setval(" + sequence + ", nextval(" + sequence + ") + ? - 1) - ? + 1";
        this.lock = "SELECT pg_advisory_xact_lock(hashtext(" + Identifiers.literal(lockName(state)) + "))";
        this.notify = "SELECT pg_notify(" + Identifiers.literal(channel(state)) + ", ?)";
    }

    /** The channel each append notifies when it commits. */
    public static String channel(StateDatabase state) {
        return "sluice_webhook_outbox_" + Integer.toHexString(state.schema().hashCode());
    }

    private static String lockName(StateDatabase state) {
        return "sluice.webhook.outbox:" + state.schema();
    }

    /**
     * Appends the entries in their order, in one transaction on the connection (left in
     * autocommit mode after), with the newest source position of each partition among them and
     * the offsets after the records they came from.
     *
     * @param offsets per partition, the offset after the last record the outbox holds with this append (empty when not kept)
     * @return the number of the last row appended
     */
    public long append(Connection c, List<OutboxEntry> entries, PositionTable positions, Map<TopicPartition, SourcePosition> newest,
                       Map<TopicPartition, Long> offsets) throws SQLException {
        int n = entries.size();
        String[] ids = new String[n];
        String[] sources = new String[n];
        String[] relations = new String[n];
        String[] operations = new String[n];
        Integer[] keyHashes = new Integer[n];
        String[] changed = new String[n];
        Long[] lsns = new Long[n];
        Long[] commits = new Long[n];
        String[] bodies = new String[n];
        String[] onlyFor = new String[n];
        java.util.Set<String> backfilled = new java.util.TreeSet<>();
        for (int i = 0; i < n; i++) {
            OutboxEntry e = entries.get(i);
            ids[i] = e.deliveryId();
            sources[i] = e.source();
            relations[i] = e.relation();
            operations[i] = e.operation();
            keyHashes[i] = e.keyHash();
            changed[i] = e.changed() == null ? null : jsonArray(e.changed());
            lsns[i] = e.lsn();
            commits[i] = e.commitMillis();
            bodies[i] = new String(e.body(), StandardCharsets.UTF_8);
            onlyFor[i] = e.onlyFor();
            if (e.onlyFor() != null) {
                backfilled.add(e.onlyFor());
            }
        }
        java.util.Set<String> streamedSources = new java.util.TreeSet<>();
        for (OutboxEntry e : entries) {
            if (e.lsn() != 0) {
                streamedSources.add(e.source());
            }
        }
        return Transactions.run(c, () -> {
            try (PreparedStatement st = c.prepareStatement(lock)) {
                st.execute();
            }
            long first;
            try (PreparedStatement st = c.prepareStatement(reserve)) {
                st.setLong(1, n);
                st.setLong(2, n);
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    first = rs.getLong(1);
                }
            }
            try (PreparedStatement st = c.prepareStatement(insert)) {
                st.setLong(1, first);
                st.setArray(2, c.createArrayOf("text", ids));
                st.setArray(3, c.createArrayOf("text", sources));
                st.setArray(4, c.createArrayOf("text", relations));
                st.setArray(5, c.createArrayOf("text", operations));
                st.setArray(6, c.createArrayOf("int4", keyHashes));
                st.setArray(7, c.createArrayOf("text", changed));
                st.setArray(8, c.createArrayOf("int8", lsns));
                st.setArray(9, c.createArrayOf("int8", commits));
                st.setArray(10, c.createArrayOf("text", bodies));
                st.setArray(11, c.createArrayOf("text", onlyFor));
                st.executeUpdate();
            }
            if (!backfilled.isEmpty()) {
                try (PreparedStatement st = c.prepareStatement(backfillStarted)) {
                    st.setArray(1, c.createArrayOf("text", backfilled.toArray()));
                    st.executeUpdate();
                }
            }
            positions.advance(c, newest);
            positions.advanceOffsets(c, offsets);
            for (String streamedSource : streamedSources) {
                snapshots.streamed(c, streamedSource);
            }
            long last = first + n - 1;
            try (PreparedStatement st = c.prepareStatement(notify)) {
                st.setString(1, Long.toString(last));
                st.execute();
            }
            return last;
        });
    }

    private static String jsonArray(List<String> names) {
        StringBuilder s = new StringBuilder("[");
        for (String name : names) {
            if (s.length() > 1) {
                s.append(',');
            }
            s.append('"');
            for (char ch : name.toCharArray()) {
                if (ch == '"' || ch == '\\') {
                    s.append('\\').append(ch);
                } else if (ch < 0x20) {
                    s.append(String.format("\\u%04x", (int) ch));
                } else {
                    s.append(ch);
                }
            }
            s.append('"');
        }
        return s.append(']').toString();
    }
}
