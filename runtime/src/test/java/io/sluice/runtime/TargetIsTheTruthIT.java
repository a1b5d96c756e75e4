package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The target, not {@code .sluice/}, says what was copied: a target dropped and created again
 * empty, or one whose tables were emptied or dropped, is copied again (or the command stops,
 * non-zero, saying what to run) — never a command that exits 0 over a target without the copy.
 * And a target that holds the copy is streamed into even when the local offsets are gone.
 */
@ExtendWith(PostgresExtension.class)
class TargetIsTheTruthIT {

    @TempDir
    Path work;

    private static void shop(TestDatabase source) throws Exception {
        source.execute("CREATE TABLE customers (id int PRIMARY KEY, name text)",
                "INSERT INTO customers SELECT g, 'customer ' || g FROM generate_series(1, 2000) g",
                "CREATE TABLE orders (id int PRIMARY KEY, customer int REFERENCES customers, total numeric)",
                "INSERT INTO orders SELECT g, 1 + g % 2000, g * 1.5 FROM generate_series(1, 5000) g");
    }

    /** Drops the database and creates it again empty, under the same name, as an operator would. */
    private static void recreate(TestDatabase db) throws Exception {
        try (Connection c = db.server().connect(db.server().adminDatabase()); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE " + db.name() + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + db.name());
        }
    }

    private static Result sluice(String... args) throws Exception {
        return SluiceRuns.start(new CompletableFuture<>(), args).get(180, TimeUnit.SECONDS);
    }

    @Test
    void theSnapshotCommandCopiesAgainIntoARecreatedOrEmptiedTarget() throws Exception {
        TestDatabase source = TestDatabases.create(TargetIsTheTruthIT.class);
        TestDatabase target = TestDatabases.create(TargetIsTheTruthIT.class);
        try {
            shop(source);
            String[] command = {"snapshot", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "shop",
                    "--offsets", work.resolve("shop.offsets").toString()};
            Result first = sluice(command);
            assertThat(first.exit()).as(first.err()).isZero();
            assertThat(target.checksum("orders")).isEqualTo(source.checksum("orders"));

            Result again = sluice(command);
            assertThat(again.exit()).as(again.err()).isZero();
            assertThat(again.out()).contains("The snapshot of pipeline shop finished at").contains("recorded on the target")
                    .contains("--fresh").doesNotContain("Snapshot done");

            recreate(target);
            Result recreated = sluice(command);
            assertThat(recreated.exit()).as(recreated.err()).isZero();
            assertThat(recreated.out()).contains("has no record of it").contains("the target wins").contains("Snapshot done");
            assertThat(target.checksum("customers")).isEqualTo(source.checksum("customers"));
            assertThat(target.checksum("orders")).isEqualTo(source.checksum("orders"));

            // Emptied behind Sluice's back: the copy is not there, so the command does not say it is.
            target.execute("TRUNCATE orders");
            Result emptied = sluice(command);
            assertThat(emptied.exit()).as("the tables exist, so the default table.exists=fail stops it").isEqualTo(1);
            assertThat(emptied.out()).contains("table \"public\".\"orders\" is empty while the source's is not")
                    .contains("copied again");
            assertThat(emptied.err()).contains("table.exists=truncate");
            String[] truncate = java.util.Arrays.copyOf(command, command.length + 2);
            truncate[command.length] = "--table-exists";
            truncate[command.length + 1] = "truncate";
            Result reloaded = sluice(truncate);
            assertThat(reloaded.exit()).as(reloaded.err()).isZero();
            assertThat(target.checksum("orders")).isEqualTo(source.checksum("orders"));
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    @Test
    void theRunCommandStartsOverIntoARecreatedTargetAndStreamsIntoOneThatHoldsTheCopy() throws Exception {
        TestDatabase source = TestDatabases.create(TargetIsTheTruthIT.class);
        TestDatabase target = TestDatabases.create(TargetIsTheTruthIT.class);
        Path offsets = work.resolve("live.offsets");
        String[] command = {"run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "live",
                "--offsets", offsets.toString(), "--set", "source.status.update.interval.ms=200"};
        try {
            shop(source);
            runUntil(command, source, target, 1);

            // The target is made again empty; the local offsets still say the pipeline streams.
            recreate(target);
            Result restarted = runUntil(command, source, target, 2);
            assertThat(restarted.out()).contains("has no record of it").contains("starts over with a new snapshot")
                    .contains("Snapshot done");
            assertThat(target.checksum("orders")).isEqualTo(source.checksum("orders"));

            // The local offsets are lost (a new machine, a container without its volume): the target has the copy.
            Files.delete(offsets);
            Result fromSlot = runUntil(command, source, target, 3);
            assertThat(fromSlot.out()).contains("No local state for pipeline live").contains("streamed from replication slot sluice_live")
                    .doesNotContain("Snapshot done");
            assertThat(target.checksum("orders")).isEqualTo(source.checksum("orders"));

            // A table of the copy dropped on the target: streaming would leave it missing.
            target.execute("DROP TABLE orders");
            Result refused = sluice(command);
            assertThat(refused.exit()).isEqualTo(1);
            assertThat(refused.err()).contains("lacks table \"public\".\"orders\"").contains("--fresh");
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * Runs the pipeline until the target records its snapshot as finished and the order with id
     * {@code -marker}, written on the source after that, has been streamed to the target; then stops it.
     */
    private static Result runUntil(String[] command, TestDatabase source, TestDatabase target, int marker) throws Exception {
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CompletableFuture<Result> run = SluiceRuns.start(stop, command);
        SluiceRuns.waitFor(() -> {
            try {
                return target.queryLong("SELECT count(*) FROM sluice.snapshots WHERE source = 'live' AND finished_at IS NOT NULL") == 1;
            } catch (java.sql.SQLException e) {
                return false; // not made yet
            }
        }, run, "the snapshot recorded as finished on the target");
        source.execute("INSERT INTO orders VALUES (-" + marker + ", 1, 0)");
        SluiceRuns.waitFor(() -> target.queryLong("SELECT count(*) FROM orders WHERE id = -" + marker) == 1, run,
                "order -" + marker + " streamed to the target");
        stop.complete(null);
        Result result = run.get(60, TimeUnit.SECONDS);
        assertThat(result.exit()).as(result.out() + result.err()).isZero();
        return result;
    }
}
