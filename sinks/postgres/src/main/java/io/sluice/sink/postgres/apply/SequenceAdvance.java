package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.StringJoiner;

import io.sluice.schemas.envelope.SequenceEvents;
import io.sluice.schemas.naming.Identifiers;

/**
 * Moves the target's sequences forward to the source's values, in one statement: never back (a
 * target that handed out more keeps its own), and only those the target has. After it, the next
 * value of each is past every value the source had handed out when it was read.
 */
public final class SequenceAdvance {

    private SequenceAdvance() {
    }

    /** The statement (its one row counts the sequences moved), or null when there is nothing to advance. */
    public static String sql(List<SequenceEvents.Value> values) {
        if (values.isEmpty()) {
            return null;
        }
        StringJoiner rows = new StringJoiner(", ");
        for (SequenceEvents.Value v : values) {
            rows.add("(" + Identifiers.literal(v.schema()) + ", " + Identifiers.literal(v.name()) + ", " + v.lastValue() + "::bigint)");
        }
        // The target's next value is its last plus the increment, or its start when it never handed one out.
        return "SELECT count(pg_catalog.setval(pg_catalog.format('%I.%I', s.schemaname, s.sequencename)::regclass, v.last_value, true)) "
                + "FROM (VALUES " + rows + ") AS v(schemaname, sequencename, last_value) "
                + "JOIN pg_catalog.pg_sequences s USING (schemaname, sequencename) "
                + "WHERE v.last_value BETWEEN s.min_value AND s.max_value "
                + "AND CASE WHEN s.increment_by > 0 THEN v.last_value >= coalesce(s.last_value::numeric + s.increment_by, s.start_value) "
                + "ELSE v.last_value <= coalesce(s.last_value::numeric + s.increment_by, s.start_value) END";
    }

    /** Advances what lags; returns how many sequences moved. */
    public static long advance(Connection c, List<SequenceEvents.Value> values) throws SQLException {
        String sql = sql(values);
        if (sql == null) {
            return 0;
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
