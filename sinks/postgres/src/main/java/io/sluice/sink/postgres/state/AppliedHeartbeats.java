package io.sluice.sink.postgres.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.sink.core.pgstate.MissingRelation;
import io.sluice.sink.core.pgstate.OwnTables;

/**
 * The table on the target that holds, per source, the commit time of the newest heartbeat
 * applied. It is written in the transaction of the changes that came with the heartbeat (or in
 * one of its own on an idle stream), so a heartbeat counts as applied only once the target has
 * committed something after it: a target that is down or stalled shows as growing end-to-end lag
 * even while the source is idle.
 */
public final class AppliedHeartbeats {

    private final String qualified;
    private final String name;

    /** @param schema where Sluice's other tables on the target are */
    public AppliedHeartbeats(String schema) {
        this.qualified = Identifiers.quote(schema, "heartbeats");
        this.name = schema + ".heartbeats";
    }

    /** The table, as {@code schema.table}. */
    public String name() {
        return name;
    }

    /**
     * A heartbeat taken: its commit time on the source in milliseconds since the epoch, and its
     * commit position (null from a producer that does not send it).
     */
    public record Beat(long commitMillis, Long commitLsn) {

        /** The newer of two, by time; the position is the furthest either has. */
        public Beat newer(Beat other) {
            Long lsn = commitLsn == null ? other.commitLsn : other.commitLsn == null ? commitLsn
                    : Long.compareUnsigned(commitLsn, other.commitLsn) >= 0 ? commitLsn : other.commitLsn;
            return new Beat(Math.max(commitMillis, other.commitMillis), lsn);
        }
    }

    /** Creates the table if it is missing, with the column of the heartbeat's position (added to one made before it). */
    public void ensure(Connection c) throws SQLException {
        OwnTables.create(c, "CREATE TABLE IF NOT EXISTS " + qualified
                + " (source text PRIMARY KEY, committed_at timestamptz NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), "
                + "lsn_commit pg_lsn)", OwnTables.columnUnlessThere(qualified, "lsn_commit", "pg_lsn"));
    }

    /**
     * The statement that records each source's newest heartbeat (its commit time and position),
     * never moving one back: sent with a batch's other statements.
     */
    public String writeSql(Map<String, Beat> beats) {
        StringJoiner rows = new StringJoiner(", ");
        beats.forEach((source, beat) -> rows.add("(" + Identifiers.literal(source) + ", to_timestamp(" + beat.commitMillis() + " / 1000.0), "
                + (beat.commitLsn() == null ? "NULL" : "'" + Lsn.format(beat.commitLsn()) + "'") + "::pg_lsn)"));
        return "INSERT INTO " + qualified + " AS h (source, committed_at, lsn_commit) VALUES " + rows
                + " ON CONFLICT (source) DO UPDATE SET committed_at = greatest(h.committed_at, EXCLUDED.committed_at), "
                + "lsn_commit = greatest(h.lsn_commit, EXCLUDED.lsn_commit), applied_at = now()";
    }

    /**
     * The commit position of a source's newest heartbeat applied; empty when none with a position
     * was (or the table, or its column, does not exist: a target written before positions were).
     */
    public Optional<Long> readLsn(Connection c, String source) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT lsn_commit::text FROM " + qualified + " WHERE source = ? AND lsn_commit IS NOT NULL")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(Lsn.parse(rs.getString(1))) : Optional.empty();
            }
        } catch (SQLException e) {
            if (MissingRelation.is(e) || "42703".equals(e.getSQLState())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** The commit time of a source's newest heartbeat applied; empty when none was (or the table does not exist). */
    public Optional<Instant> read(Connection c, String source) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT committed_at FROM " + qualified + " WHERE source = ?")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(rs.getObject(1, java.time.OffsetDateTime.class).toInstant()) : Optional.empty();
            }
        } catch (SQLException e) {
            if (MissingRelation.is(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Forgets a source's heartbeat (its pipeline was torn down); false when there was none. */
    public boolean forget(Connection c, String source) throws SQLException {
        return OwnTables.forget(c, qualified, source);
    }
}
