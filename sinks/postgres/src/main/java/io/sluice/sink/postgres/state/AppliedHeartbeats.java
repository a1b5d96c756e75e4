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

    /** Creates the table if it is missing. */
    public void ensure(Connection c) throws SQLException {
        OwnTables.create(c, "CREATE TABLE IF NOT EXISTS " + qualified
                + " (source text PRIMARY KEY, committed_at timestamptz NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
    }

    /**
     * The statement that records each source's newest heartbeat (its commit time in milliseconds
     * since the epoch), never moving one back: sent with a batch's other statements.
     */
    public String writeSql(Map<String, Long> commitMillis) {
        StringJoiner rows = new StringJoiner(", ");
        commitMillis.forEach((source, millis) -> rows.add("(" + Identifiers.literal(source) + ", to_timestamp(" + millis + " / 1000.0))"));
        return "INSERT INTO " + qualified + " AS h (source, committed_at) VALUES " + rows
                + " ON CONFLICT (source) DO UPDATE SET committed_at = greatest(h.committed_at, EXCLUDED.committed_at), applied_at = now()";
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
