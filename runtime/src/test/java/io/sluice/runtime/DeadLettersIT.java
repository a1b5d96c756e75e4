package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.schemas.converter.BinaryConverter;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dead letters in the {@code sluice} command, as on a cluster: with {@code errors.tolerance=all}
 * a change the target's table cannot take is kept whole in the target's dead_letters table (with
 * its table, position and reason, readable back exactly) while the changes around it go on, and
 * the run and {@code sluice status} say so; without it, the same change stops the pipeline.
 */
@ExtendWith(PostgresExtension.class)
class DeadLettersIT {

    @TempDir
    Path work;

    @Test
    void aChangeTheTargetCannotTakeIsKeptWithItsReasonAndTheOthersGoOn() throws Exception {
        TestDatabase source = TestDatabases.create(DeadLettersIT.class);
        TestDatabase target = TestDatabases.create(DeadLettersIT.class);
        try {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, amount text)", "INSERT INTO orders VALUES (1, '10')");
            String[] pipeline = {"--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target), "--name", "dl",
                    "--offsets", work.resolve("dl.offsets").toString()};
            String[] tolerant = concat(pipeline, "--set", "target.errors.tolerance=all", "--set", "target.schema.mismatch.action=dead_letter");

            CompletableFuture<Void> stop = new CompletableFuture<>();
            CompletableFuture<Result> first = SluiceRuns.start(stop, concat(new String[] {"run"}, tolerant));
            SluiceRuns.waitFor(() -> rowsSoFar(target) == 1, first, "the snapshot");
            // A streamed row shows the snapshot's end is recorded: stopped before it, the next run would copy again.
            source.execute("INSERT INTO orders VALUES (100, '100')");
            SluiceRuns.waitFor(() -> rowsSoFar(target) == 2, first, "streaming after the snapshot");
            stop.complete(null);
            assertThat(first.get(60, TimeUnit.SECONDS).exit()).isZero();

            // The target's column now takes only numbers; the source goes on writing text.
            target.execute("ALTER TABLE orders ALTER COLUMN amount TYPE int USING amount::int");
            source.execute("INSERT INTO orders VALUES (2, '20')", "INSERT INTO orders VALUES (3, 'lots')", "INSERT INTO orders VALUES (4, '40')");
            CompletableFuture<Void> stopAgain = new CompletableFuture<>();
            CompletableFuture<Result> second = SluiceRuns.start(stopAgain, concat(new String[] {"run"}, tolerant));
            SluiceRuns.waitFor(() -> count(target, "SELECT count(*) FROM orders WHERE id IN (2, 4)") == 2, second, "the changes around it");
            stopAgain.complete(null);
            Result kept = second.get(60, TimeUnit.SECONDS);
            assertThat(kept.exit()).as(kept.err()).isZero();
            assertThat(kept.out()).contains("1 record(s) the target could not take were kept in table sluice.dead_letters");
            assertThat(count(target, "SELECT count(*) FROM orders WHERE id = 3")).isZero();

            try (Connection c = target.connect(); PreparedStatement s = c.prepareStatement("SELECT topic, source_table, source_position, "
                    + "reason, value_text, record_value FROM sluice.dead_letters WHERE pipeline = 'dl'"); ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString("topic")).isEqualTo("dl.public.orders");
                assertThat(rs.getString("source_table")).isEqualTo("public.orders");
                assertThat(rs.getString("source_position")).isNotBlank();
                assertThat(rs.getString("reason")).contains("amount").contains("lots");
                assertThat(rs.getString("value_text")).contains("lots");
                BinaryConverter converter = new BinaryConverter();
                converter.configure(Map.of(), false);
                SchemaAndValue back = converter.toConnectData(rs.getString("topic"), rs.getBytes("record_value"));
                assertThat(((Struct) back.value()).getStruct("after").get("amount")).isEqualTo("lots");
                assertThat(rs.next()).as("one record kept").isFalse();
            }
            Result status = SluiceRuns.start(new CompletableFuture<>(), concat(new String[] {"status"}, pipeline)).get(60, TimeUnit.SECONDS);
            assertThat(status.exit()).as(status.err()).isZero();
            assertThat(status.out()).contains("dead letters: 1 record(s) the target could not take");

            // Without errors.tolerance=all nothing is put aside: the pipeline stops on the change, naming it and what to do.
            source.execute("INSERT INTO orders VALUES (5, 'more')");
            Result strict = SluiceRuns.start(new CompletableFuture<>(), concat(new String[] {"run"}, pipeline)).get(120, TimeUnit.SECONDS);
            assertThat(strict.exit()).isEqualTo(1);
            assertThat(strict.err()).contains("public.orders").contains("more");
            assertThat(count(target, "SELECT count(*) FROM sluice.dead_letters")).isEqualTo(1);
        } finally {
            SluiceRuns.start(new CompletableFuture<>(), "teardown", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target),
                    "--name", "dl", "--offsets", work.resolve("dl.offsets").toString()).get(60, TimeUnit.SECONDS);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static String[] concat(String[] first, String... rest) {
        String[] all = java.util.Arrays.copyOf(first, first.length + rest.length);
        System.arraycopy(rest, 0, all, first.length, rest.length);
        return all;
    }

    /** The target table's rows; 0 while the snapshot has not created it. */
    private static long rowsSoFar(TestDatabase db) {
        try {
            return db.queryLong("SELECT count(*) FROM orders");
        } catch (Exception notYet) {
            return 0;
        }
    }

    private static long count(TestDatabase db, String sql) throws Exception {
        return db.queryLong(sql);
    }
}
