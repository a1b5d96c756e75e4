package io.sluice.runtime;

import static io.sluice.runtime.StandbyPairs.await;
import static io.sluice.runtime.StandbyPairs.awaitReplayed;
import static io.sluice.runtime.StandbyPairs.queryLong;
import static io.sluice.runtime.StandbyPairs.userPath;
import static io.sluice.runtime.StandbyPairs.withPrimaryAndStandby;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.sluice.testing.postgres.ClientPrograms;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice run} whose source is a hot standby of PostgreSQL 16 (made with
 * {@code pg_basebackup -R}, {@code hot_standby_feedback = on}): the slot and the snapshot live on
 * the standby, and what a standby cannot do (the publication, the DDL capture triggers, a table
 * copied into the stream) is done on the primary named with it. Under a pgbench workload on the
 * primary, with a column added and a table created and filled mid-stream, every table ends
 * equal to the primary's. Without a primary, a standby that lacks the publication stops the run
 * in one line naming the key; a standby of 15 is refused, naming 16.
 */
class StandbySourceIT {

    private static final String[] FEEDBACK = {"hot_standby_feedback = on"};
    private static final List<String> TABLES = List.of("pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history",
            "items", "later");

    private final Path work = Path.of(System.getProperty("sluice.test.workdir", "target/test-services"), "standby-" + System.currentTimeMillis());

    @Test
    void snapshotAndStreamFromAStandbyOf16() throws Exception {
        withPrimaryAndStandby("standby16", 16, FEEDBACK, (primary, standby, source, target) -> {
            TestDatabase onStandby = TestDatabases.on(standby, source.name());
            Pgbench pgbench = Pgbench.at(ClientPrograms.version18().resolve("pgbench"));
            pgbench.run(source, "-i", "-q", "-s", "1");
            source.execute("CREATE TABLE items (id serial PRIMARY KEY, name text, at timestamptz DEFAULT now())",
                    "INSERT INTO items (name) SELECT 'item ' || g FROM generate_series(1, 2000) g");
            awaitReplayed(source, standby);
            String name = "from_standby";
            SluiceProcess sluice = SluiceProcess.start(work, userPath(), "run", "--source", SluiceRuns.url(onStandby), "--target",
                    SluiceRuns.url(target), "--name", name, "--offsets", work.resolve(name + ".offsets").toString(),
                    "--set", "source.database.primary.hostname=" + primary.host(),
                    "--set", "source.database.primary.port=" + primary.port(),
                    "--set", "source.status.update.interval.ms=200");
            try {
                await(sluice, () -> sluice.output().contains("Streaming changes from slot"), "the snapshot");
                assertThat(queryLong(standby, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_" + name + "'"))
                        .as("the slot is on the standby").isEqualTo(1);
                assertThat(queryLong(primary, "SELECT count(*) FROM pg_replication_slots WHERE slot_type = 'logical'"))
                        .as("no logical slot on the primary").isZero();
                pgbench.run(source, "-n", "-c", "2", "-t", "200");
                source.execute("ALTER TABLE items ADD COLUMN note text DEFAULT 'added'", "UPDATE items SET note = 'n' || id WHERE id % 7 = 0",
                        "INSERT INTO items (name) SELECT 'more ' || g FROM generate_series(1, 100) g");
                // Created with its rows by CREATE TABLE AS, which the stream does not carry: they are copied into the stream, which
                // locks the table and emits a logical message, on the primary.
                source.execute("CREATE TABLE later AS SELECT g AS id, 'v' || g AS v FROM generate_series(1, 500) g",
                        "ALTER TABLE later ADD PRIMARY KEY (id)");
                pgbench.run(source, "-n", "-c", "2", "-t", "100");
                source.execute("INSERT INTO later VALUES (-1, 'last')");
                target.awaitSameAs(source, "SELECT count(*) FROM later WHERE id = -1", Duration.ofSeconds(180), "the last change");
                for (String table : TABLES) {
                    target.awaitChecksumOf(source, table, Duration.ofSeconds(60));
                }
                int exit = sluice.terminate(60);
                String out = sluice.output();
                assertThat(exit).as(out).isZero();
                assertThat(out).doesNotContain("ERROR").doesNotContain("Exception");
                assertThat(Files.readString(work.resolve(".sluice/sluice.log"))).as("the new table's rows copied into the stream")
                        .contains("Copying \"public\".\"later\" into the stream");
            } finally {
                sluice.close();
            }
        });
    }

    @Test
    void aStandbyWithoutItsPrimaryNamesWhatItCannotDo() throws Exception {
        String out = failedRunFromStandby("standby-alone", 16);
        assertThat(out).contains("is a hot standby, where it cannot be made").contains("database.primary.hostname");
    }

    @Test
    void aStandbyOf15IsRefusedNaming16() throws Exception {
        String out = failedRunFromStandby("standby15", 15);
        assertThat(out).contains("is a hot standby of PostgreSQL 15").contains("16 and later");
    }

    /** A run from the standby alone that must stop by itself, nothing copied; what it printed. */
    private String failedRunFromStandby(String name, int major) throws Exception {
        StringBuilder printed = new StringBuilder();
        withPrimaryAndStandby(name, major, FEEDBACK, (primary, standby, source, target) -> {
            source.execute("CREATE TABLE items (id int PRIMARY KEY)", "INSERT INTO items VALUES (1)");
            TestDatabase onStandby = TestDatabases.on(standby, source.name());
            awaitReplayed(source, standby);
            printed.append(failedRun(onStandby, target, name.replace('-', '_')));
            assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).as("tables on the target").isZero();
        });
        return printed.toString();
    }

    private String failedRun(TestDatabase source, TestDatabase target, String name) throws Exception {
        SluiceProcess sluice = SluiceProcess.start(work, userPath(), "run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target),
                "--name", name, "--offsets", work.resolve(name + ".offsets").toString());
        int exit = sluice.awaitExit(120);
        String out = sluice.output();
        assertThat(exit).as(out).isNotZero();
        return out;
    }
}
