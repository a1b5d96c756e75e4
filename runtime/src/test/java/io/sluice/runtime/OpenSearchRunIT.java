package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice run} from PostgreSQL into a real OpenSearch node, as a user runs it: the
 * snapshot of a pgbench database, then its workload streamed; a row the index refuses kept as a
 * dead letter in OpenSearch; a graceful stop, {@code sluice status}; a run in a JVM of its own
 * killed with SIGKILL mid-stream; a last run. Each index ends with exactly one document per
 * row, equal to it, and {@code sluice teardown} forgets the snapshot's record.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class OpenSearchRunIT {

    @TempDir
    Path work;

    @Test
    void runIndexesASnapshotThenAWorkloadThroughAStopAndAKill(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(OpenSearchRunIT.class);
        String prefix = source.name().toLowerCase() + ".";
        String name = "search_" + source.name().toLowerCase();
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        SluiceProcess killed = null;
        try {
            pgbench.run(source, "-i", "-q", "-s", "2");
            source.execute("CREATE TABLE notes (id int PRIMARY KEY, meta jsonb)", "INSERT INTO notes VALUES (1, '{\"a\": 1}')");
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "200", "-T", "3600");
            String[] command = {"run", "--source", SluiceRuns.url(source), "--target", node.httpUrl(), "--name", name,
                    "--offsets", work.resolve("search.offsets").toString(), "--exclude", "public.pgbench_history",
                    "--set", "source.status.update.interval.ms=200", "--set", "target.errors.tolerance=all",
                    "--set", "source.heartbeat.interval.ms=500",
                    "--set", "target.index.name.format=" + prefix + "${schema}.${table}"};

            // pgbench_history has no key: its rows could have no document id, which is said before anything runs.
            String[] withHistory = java.util.Arrays.stream(command).filter(a -> !a.equals("--exclude") && !a.equals("public.pgbench_history"))
                    .toArray(String[]::new);
            Result refused = SluiceRuns.start(new CompletableFuture<>(), withHistory).get(60, TimeUnit.SECONDS);
            assertThat(refused.exit()).as(refused.out() + refused.err()).isNotZero();
            assertThat(refused.err()).contains("public.pgbench_history").contains("no primary key").contains("--exclude");

            CompletableFuture<Void> stop = new CompletableFuture<>();
            int metricsPort = SluiceRuns.freePort();
            String metrics = "http://127.0.0.1:" + metricsPort;
            CompletableFuture<Result> first = SluiceRuns.start(stop, SluiceRuns.with(command, "--metrics", "127.0.0.1:" + metricsPort));
            SluiceRuns.waitFor(() -> snapshotFinished(node, name), first, "the snapshot to be recorded as finished");
            source.execute("INSERT INTO notes VALUES (-1, '{\"after\": \"snapshot\"}')",
                    "INSERT INTO notes VALUES (2, '[1, 2]')"); // flat_object takes objects only: a dead letter
            SluiceRuns.waitFor(() -> IndexDocuments.get(node, prefix + "public.notes", "-1") != null
                    && IndexDocuments.count(node, "sluice_dead_letters", "{\"query\":{\"term\":{\"pipeline\":\"" + name + "\"}}}") == 1,
                    first, "a streamed row and the dead letter");
            // The OpenSearch sink's metrics: documents written, and the refused row counted as a dead letter of its table.
            SluiceRuns.waitFor(() -> io.sluice.runtime.metrics.Scrape.of(metrics).sum("sluice_sink_dead_letters_total", "target", name,
                    "table", "public.notes") == 1, first, "the dead letter counted");
            assertThat(io.sluice.runtime.metrics.Scrape.of(metrics).sum("sluice_opensearch_bulk_items_total", "target", name,
                    "result", "written")).isPositive();
            // Heartbeats go into the bulk requests, to the sink's state index: the newest one indexed moves with the source's.
            long streamingSince = System.currentTimeMillis();
            SluiceRuns.waitFor(() -> heartbeatMillis(node, name) > streamingSince, first, "a heartbeat indexed in sluice_state");
            assertThat(io.sluice.runtime.metrics.Scrape.of(metrics).value("sluice_end_to_end_lag_seconds", "target", name)).isPresent();
            stop.complete(null);
            Result stopped = first.get(60, TimeUnit.SECONDS);
            assertThat(stopped.exit()).as(stopped.out() + stopped.err()).isZero();
            assertThat(stopped.out()).contains("Streaming changes from slot sluice_" + name + " into " + node.httpUrl())
                    .contains("Stopped.").contains("1 record(s) the target could not take were kept in index sluice_dead_letters");
            JsonNode letter = IndexDocuments.all(node, "sluice_dead_letters").values().stream()
                    .filter(d -> d.path("pipeline").asText().equals(name)).findFirst().orElseThrow();
            assertThat(letter.path("source_table").asText()).isEqualTo("public.notes");
            assertThat(letter.path("reason").asText()).contains("meta");
            assertThat(letter.path("record_value").asText()).as("the record whole, to apply again").isNotEmpty();

            Result status = SluiceRuns.start(new CompletableFuture<>(), concat("status", command)).get(60, TimeUnit.SECONDS);
            assertThat(status.exit()).as(status.err()).isZero();
            assertThat(status.out()).contains("snapshot of " + source.name()).contains("finished").contains("4 indexes")
                    .contains("dead letters: 1 record(s)").contains("documents in the snapshot's indexes");

            // In a JVM of its own, killed outright while it streams.
            killed = SluiceProcess.start(work, command);
            source.execute("INSERT INTO notes VALUES (-2, '{}')");
            SluiceProcess running = killed;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (IndexDocuments.get(node, prefix + "public.notes", "-2") == null) {
                assertThat(running.alive()).as("sluice runs until killed:\n" + running.output()).isTrue();
                assertThat(System.nanoTime()).as("the killed run streamed within 120 s:\n" + running.output()).isLessThan(deadline);
                Thread.sleep(50);
            }
            Thread.sleep(new Random().nextInt(2000));
            killed.kill();
            assertThat(killed.output()).contains("Resuming pipeline " + name);

            workload.destroy();
            workload.waitFor(30, TimeUnit.SECONDS);
            source.execute("UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid % 1000 = 0",
                    "DELETE FROM pgbench_accounts WHERE aid % 5000 = 1", "INSERT INTO notes VALUES (-3, '{}')");
            CompletableFuture<Void> stopLast = new CompletableFuture<>();
            CompletableFuture<Result> last = SluiceRuns.start(stopLast, command);
            SluiceRuns.waitFor(() -> IndexDocuments.get(node, prefix + "public.notes", "-3") != null, last, "the last run to catch up");
            stopLast.complete(null);
            Result lastResult = last.get(60, TimeUnit.SECONDS);
            assertThat(lastResult.exit()).as(lastResult.out() + lastResult.err()).isZero();

            assertSame(source, node, prefix + "public.pgbench_accounts", "SELECT aid, abalance FROM pgbench_accounts", "abalance");
            assertSame(source, node, prefix + "public.pgbench_tellers", "SELECT tid, tbalance FROM pgbench_tellers", "tbalance");
            assertSame(source, node, prefix + "public.pgbench_branches", "SELECT bid, bbalance FROM pgbench_branches", "bbalance");
            assertSame(source, node, prefix + "public.notes", "SELECT id, meta::text FROM notes WHERE id <> 2", null);

            Result teardown = SluiceRuns.start(new CompletableFuture<>(), concat("teardown", command)).get(60, TimeUnit.SECONDS);
            assertThat(teardown.exit()).as(teardown.err()).isZero();
            assertThat(teardown.out()).contains("Forgot the snapshot record of " + name);
            assertThat(snapshotFinished(node, name)).isFalse();
            assertThat(heartbeatMillis(node, name)).as("the heartbeat forgotten with the pipeline").isZero();

            // An override the existing index cannot take is said before anything runs.
            String[] overridden = java.util.Arrays.copyOf(command, command.length + 2);
            overridden[command.length] = "--set";
            overridden[command.length + 1] = "target.mapping.overrides={\"*.pgbench_accounts\": {\"filler\": {\"type\": \"text\"}}}";
            Result mismatch = SluiceRuns.start(new CompletableFuture<>(), overridden).get(60, TimeUnit.SECONDS);
            assertThat(mismatch.exit()).as(mismatch.out() + mismatch.err()).isNotZero();
            assertThat(mismatch.err()).contains("index " + prefix + "public.pgbench_accounts has column public.pgbench_accounts.filler as "
                    + "keyword, the sink maps it as text").contains("--table-exists truncate");
        } finally {
            if (workload != null) {
                workload.destroyForcibly();
            }
            if (killed != null) {
                killed.close();
            }
            TestDatabases.drop(source);
        }
    }

    /** The commit time of the newest heartbeat of a pipeline indexed in the state index; 0 when none is. */
    private static long heartbeatMillis(OpenSearchNode node, String pipeline) throws Exception {
        JsonNode record = IndexDocuments.get(node, "sluice_state", "heartbeat:" + pipeline);
        return record == null ? 0 : record.path("committed_at_ms").asLong();
    }

    private static boolean snapshotFinished(OpenSearchNode node, String pipeline) throws Exception {
        JsonNode record = IndexDocuments.get(node, "sluice_state", "snapshot:" + pipeline);
        return record != null && record.path("finished_at").isTextual();
    }

    /** Every row is a document whose id is the key and whose field equals the column (the id alone when field is null); no other document. */
    private static void assertSame(TestDatabase source, OpenSearchNode node, String index, String query, String field) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                rows.put(rs.getString(1), field == null ? rs.getString(1) : rs.getString(2));
            }
        }
        Map<String, String> docs = new HashMap<>();
        IndexDocuments.all(node, index).forEach((id, doc) -> docs.put(id, field == null ? id : doc.path(field).asText()));
        assertThat(docs).as(index).hasSameSizeAs(rows).isEqualTo(rows);
    }

    private static String[] concat(String first, String[] command) {
        String[] all = new String[command.length];
        all[0] = first;
        System.arraycopy(command, 1, all, 1, command.length - 1);
        return all;
    }
}
