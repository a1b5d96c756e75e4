package io.sluice.sink.postgres.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;

import io.sluice.sink.core.position.SourcePosition;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The position and heartbeat tables of a target written by an earlier version (without the
 * columns {@code whole} and {@code lsn_commit}) get them when the sink starts, keep their rows,
 * and record the new values; and once they have them, starting takes no lock that waits behind
 * a session holding a position row (a batch whose connection was lost while its transaction
 * stayed open: CommitInDoubtIT hung on that with an unconditional ADD COLUMN IF NOT EXISTS).
 */
@ExtendWith(PostgresExtension.class)
class AppliedPositionsIT {

    private TestDatabase target;

    @BeforeEach
    void create() throws Exception {
        target = TestDatabases.create(AppliedPositionsIT.class);
    }

    @AfterEach
    void drop() throws Exception {
        TestDatabases.drop(target);
    }

    @Test
    void tablesOfAnEarlierVersionGetTheNewColumnsWithoutWaitingForARowHolder() throws Exception {
        target.execute("CREATE SCHEMA sluice",
                "CREATE TABLE sluice.applied_position (source text PRIMARY KEY, lsn_commit pg_lsn NOT NULL, event bigint NOT NULL, "
                        + "applied_at timestamptz NOT NULL DEFAULT now(), changes bigint NOT NULL DEFAULT 0)",
                "INSERT INTO sluice.applied_position (source, lsn_commit, event) VALUES ('src', '0/100', 3)",
                "CREATE TABLE sluice.heartbeats (source text PRIMARY KEY, committed_at timestamptz NOT NULL, "
                        + "applied_at timestamptz NOT NULL DEFAULT now())",
                "INSERT INTO sluice.heartbeats (source, committed_at) VALUES ('src', now())");
        AppliedPositions positions = new AppliedPositions("sluice.applied_position");
        try (Connection holder = target.connect(); Connection sink = target.connect()) {
            positions.ensure(sink); // the first start after the upgrade adds the columns (taking the tables' lock, briefly)
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("UPDATE sluice.applied_position SET changes = changes + 1");
                s.execute("UPDATE sluice.heartbeats SET applied_at = now()");
            }
            try (Statement s = sink.createStatement()) {
                s.execute("SET lock_timeout = '10s'"); // were it to wait for the holder, it fails instead of hanging
            }
            positions.ensure(sink); // every later start: the columns are there, and it takes no lock the holder blocks
            holder.rollback();
            assertThat(positions.whole(sink, "src")).as("a row written before the column says nothing: taken as whole").isTrue();
            assertThat(positions.heartbeats().readLsn(sink, "src")).isEmpty();
            try (Statement s = sink.createStatement()) {
                s.executeUpdate(positions.writeSql(Map.of("src", new SourcePosition(0x200, 1)), Map.of(), Map.of("src", false)));
                s.executeUpdate(positions.heartbeats().writeSql(Map.of("src", new AppliedHeartbeats.Beat(1_700_000_000_000L, 0x180L))));
            }
            assertThat(positions.whole(sink, "src")).isFalse();
            assertThat(positions.read(sink, "src")).isEqualTo(new SourcePosition(0x200, 1));
            assertThat(positions.heartbeats().readLsn(sink, "src")).contains(0x180L);
        }
    }
}
