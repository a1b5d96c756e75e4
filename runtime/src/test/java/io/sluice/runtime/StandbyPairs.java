package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.postgres.ClientPrograms;
import io.sluice.testing.postgres.PostgresServer;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;

/** A primary with a hot standby for the failover and standby tests, and what those tests wait on. */
final class StandbyPairs {

    private StandbyPairs() {
    }

    @FunctionalInterface
    interface PairTest {
        void run(PostgresServer.Launched primary, PostgresServer.Launched standby, TestDatabase source, TestDatabase target) throws Exception;
    }

    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    /**
     * Runs {@code test} with a primary of {@code major}, a database on it, a hot standby of it
     * streaming through the physical slot {@code standby1}, and a target database on the shared
     * server; the servers are stopped and the target dropped after.
     */
    static void withPrimaryAndStandby(String name, int major, String[] standbySettings, PairTest test) throws Exception {
        try (PostgresServer.Launched primary = PostgresServer.launch(name + "-primary", major);
             PostgresServer.Launched standby = PostgresServer.standby(name + "-standby", primary, "standby1", standbySettings)) {
            TestDatabase source = TestDatabases.create(primary, StandbyPairs.class);
            TestDatabase target = TestDatabases.create(StandbyPairs.class);
            try {
                test.run(primary, standby, source, target);
            } finally {
                TestDatabases.drop(target);
            }
        }
    }

    /**
     * Waits until the standby has replayed everything the primary had written when this was called.
     * Asked through the standby's admin database: a database just created on the primary does not
     * exist on the standby until it is replayed, so connecting to it would race the replay.
     */
    static void awaitReplayed(TestDatabase primary, PostgresServer standby) throws Exception {
        String lsn = primary.queryText("SELECT pg_current_wal_lsn()::text");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (queryLong(standby, "SELECT CASE WHEN pg_last_wal_replay_lsn() >= '" + lsn + "' THEN 1 ELSE 0 END") == 0) {
            assertThat(System.nanoTime()).as("the standby replays " + lsn + " within 60 s").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** Waits, at most 180 s and while sluice runs, until the condition holds. */
    static void await(SluiceProcess sluice, Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!condition.holds()) {
            assertThat(sluice.alive()).as("sluice runs while waiting for " + what + ":\n" + sluice.output()).isTrue();
            assertThat(System.nanoTime()).as(what + " within 180 s:\n" + sluice.output()).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** PostgreSQL 18's client programs first on PATH: pg_dump must be at least the source's version. */
    static Map<String, String> userPath() {
        return Map.of("PATH", ClientPrograms.version18() + ":" + System.getenv("PATH"));
    }

    static long queryLong(PostgresServer server, String sql) throws Exception {
        try (var c = server.connect(server.adminDatabase()); var s = c.createStatement(); var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
