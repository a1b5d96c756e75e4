package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code sluice run} into four targets from one slot, as a user runs it from a pipeline
 * file: a PostgreSQL replica with the rows as they are, a staging PostgreSQL whose own transform
 * anonymizes e-mail addresses, an OpenSearch node with the raw rows, and a webhook subscription
 * to the customers. Under a pgbench
 * workload, in a JVM of its own killed with SIGKILL while it streams, then run again: every
 * target ends equal to the source (the staging copy with its addresses rewritten, and only it),
 * which a slot confirmed past what any target held would have made impossible; the source has
 * one slot; the status lines and the stop name every target.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class FanOutIT {

    private static final String[] TABLES = {"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "customers"};

    @TempDir
    Path work;

    @Test
    void oneSlotFeedsFourTargetsThroughAKill(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(FanOutIT.class);
        TestDatabase replica = TestDatabases.create(FanOutIT.class);
        TestDatabase staging = TestDatabases.create(FanOutIT.class);
        String name = "fan_" + source.name().toLowerCase();
        String prefix = source.name().toLowerCase() + ".";
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        SluiceProcess sluice = null;
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new java.security.SecureRandom());
        try (TestReceiver receiver = new TestReceiver(List.of(secret))) {
            pgbench.run(source, "-i", "-q", "-s", "2");
            FanOutFixture.customers(source, work, 2000);
            Path pipeline = work.resolve("pipeline.yaml");
            Files.writeString(pipeline, """
                    name: %s
                    source:
                      url: %s
                      table.exclude.list: public.pgbench_history
                      status.update.interval.ms: 200
                      heartbeat.interval.ms: 500
                    targets:
                      replica:
                        url: %s
                      staging:
                        url: %s
                        transforms:
                          transforms: mask
                          transforms.mask.type: io.sluice.transforms.anonymize.Anonymize
                          transforms.mask.secret: a secret for this test only
                          transforms.mask.rules: public.customers.email = email
                      search:
                        url: %s
                        index.name.format: %s${schema}.${table}
                    %s
                    offsets: %s
                    """.formatted(name, SluiceRuns.url(source), SluiceRuns.url(replica), SluiceRuns.url(staging), node.httpUrl(), prefix,
                    FanOutFixture.hooks(receiver.url(), secret), work.resolve("fan.offsets")));
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "200", "-T", "3600",
                    "-b", "tpcb-like@4", "-f", work.resolve("customers.sql") + "@1");
            String[] command = {"run", "--config", pipeline.toString()};

            sluice = SluiceProcess.start(work, command);
            FanOutFixture.awaitOutput(sluice, "Streaming changes from slot");
            source.execute("INSERT INTO customers VALUES (-1, 'first@example.org', 'streamed')");
            FanOutFixture.awaitEverywhere(sluice, replica, staging, node, prefix, -1);
            Thread.sleep(new Random().nextInt(2000));
            sluice.kill();
            assertThat(sluice.output()).contains("Streaming changes from slot sluice_" + name + " into replica (", "staging (", "search (",
                    "hooks (");

            int metricsPort = SluiceRuns.freePort();
            sluice = SluiceProcess.start(work, SluiceRuns.with(command, "--metrics", "127.0.0.1:" + metricsPort));
            source.execute("INSERT INTO customers VALUES (-2, 'second@example.org', 'after the kill')");
            FanOutFixture.awaitEverywhere(sluice, replica, staging, node, prefix, -2);
            // Each target compared with the source while the pipeline streams into all three, picked by its name in the file.
            for (String target : new String[] {"replica", "staging", "search"}) {
                SluiceRuns.Result verified = SluiceRuns.start(new java.util.concurrent.CompletableFuture<>(), "verify", "--config",
                        pipeline.toString(), "--target", target).get(300, TimeUnit.SECONDS);
                assertThat(verified.exit()).as(target + ":\n" + verified.out() + verified.err()).isZero();
                assertThat(verified.out()).as(target).contains("The pipeline is streaming").containsIgnoringCase("public.customers: equal");
            }
            // Rows changed behind Sluice's back on two targets: one re-sync of the pipeline hands the table to every target again.
            replica.execute("UPDATE customers SET name = 'changed on the replica' WHERE id BETWEEN 10 AND 19");
            staging.execute("DELETE FROM customers WHERE id BETWEEN 20 AND 29");
            SluiceRuns.Result resynced = SluiceRuns.start(new java.util.concurrent.CompletableFuture<>(), "resync", "--config",
                    pipeline.toString(), "--timeout", "60", "public.customers").get(120, TimeUnit.SECONDS);
            SluiceProcess running = sluice;
            assertThat(resynced.exit()).as(() -> resynced.out() + resynced.err() + "\nThe pipeline said:\n" + running.output()).isZero();
            assertThat(replica.queryLong("SELECT count(*) FROM customers WHERE name = 'changed on the replica'")).isZero();
            assertThat(staging.queryLong("SELECT count(*) FROM customers WHERE id BETWEEN 20 AND 29")).isEqualTo(10);
            workload.destroy();
            assertThat(workload.waitFor(30, TimeUnit.SECONDS)).isTrue();
            workload = null;
            source.execute("UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid % 1000 = 0",
                    "DELETE FROM customers WHERE id % 500 = 7", "INSERT INTO customers VALUES (-3, 'last@example.org', 'the end')");
            FanOutFixture.awaitEverywhere(sluice, replica, staging, node, prefix, -3);
            long hooksDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (receiver.accepted().stream().noneMatch(r -> r.json().path("after").path("id").asInt() == -3)) {
                assertThat(System.nanoTime()).as("customer -3 delivered within 120 s:\n" + sluice.output()).isLessThan(hooksDeadline);
                Thread.sleep(100);
            }
            // The stream may still hold changes of other tables made before the last row: caught up once the replica matches.
            for (String table : TABLES) {
                replica.awaitChecksumOf(source, table, java.time.Duration.ofSeconds(120));
            }
            // Every target's sink meters, under the pipeline's name and the target's.
            var scrape = io.sluice.runtime.metrics.Scrape.of("http://127.0.0.1:" + metricsPort);
            String page = new String(java.net.URI.create("http://127.0.0.1:" + metricsPort + "/status.json").toURL().openStream()
                    .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            for (String target : new String[] {"replica", "staging", "search", "hooks"}) {
                assertThat(page).as("the status page's targets").contains("\"name\":\"" + name + "." + target + "\"")
                        .contains("\"display\":\"" + target + "\"").contains(target + " (");
                assertThat(scrape.sum("sluice_sink_changes_applied_total", "target", name + "." + target)).as(target).isPositive();
            }
            assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
            assertThat(sluice.output()).contains("Resuming pipeline " + name).contains("changes applied in this run to replica.")
                    .contains("changes applied in this run to staging.").contains("changes applied in this run to search.")
                    .contains("changes applied in this run to hooks.");
            sluice = null;
            SluiceRuns.Result status = SluiceRuns.start(new java.util.concurrent.CompletableFuture<>(), "status", "--config",
                    pipeline.toString()).get(60, TimeUnit.SECONDS);
            assertThat(status.exit()).as(status.out() + status.err()).isZero();
            assertThat(status.out()).contains("slot sluice_" + name + ": idle").contains("target replica:").contains("target staging:")
                    .contains("target search:").contains("target hooks:");

            for (String table : TABLES) {
                assertThat(replica.checksum(table)).as("replica " + table).isEqualTo(source.checksum(table));
                if (!table.equals("customers")) {
                    assertThat(staging.checksum(table)).as("staging " + table).isEqualTo(source.checksum(table));
                }
            }
            // Staging: every customer, with its own transform's address, never the source's; the other columns as they are.
            Map<String, String> sourceCustomers = FanOutFixture.rows(source, "SELECT id, email || '|' || coalesce(name, '') FROM customers");
            Map<String, String> stagingCustomers = FanOutFixture.rows(staging, "SELECT id, email || '|' || coalesce(name, '') FROM customers");
            assertThat(stagingCustomers.keySet()).isEqualTo(sourceCustomers.keySet());
            for (String id : sourceCustomers.keySet()) {
                String[] raw = sourceCustomers.get(id).split("\\|", 2);
                String[] masked = stagingCustomers.get(id).split("\\|", 2);
                assertThat(masked[0]).as("customer %s's address on staging", id).isNotEqualTo(raw[0]).contains("@");
                assertThat(masked[1]).as("customer %s's name on staging", id).isEqualTo(raw[1]);
            }
            // Search: the raw rows, one document per row.
            FanOutFixture.assertSame(source, node, prefix + "public.pgbench_accounts", "SELECT aid, abalance FROM pgbench_accounts", "abalance");
            FanOutFixture.assertSame(source, node, prefix + "public.pgbench_tellers", "SELECT tid, tbalance FROM pgbench_tellers", "tbalance");
            FanOutFixture.assertSame(source, node, prefix + "public.customers", "SELECT id, email FROM customers", "email");
            // Hooks: every customer's last state as delivered, the raw address; deleted ones last delivered as deleted.
            assertThat(FanOutFixture.lastStates(receiver)).as("the webhook subscription's last states").isEqualTo(FanOutFixture.rows(source, "SELECT id, email FROM customers"));
            assertThat(receiver.received()).allMatch(TestReceiver.Received::verified, "every request signed");
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"))
                    .as("one slot feeds all targets").isEqualTo(1);
        } finally {
            FanOutFixture.cleanUp(workload, sluice, source, replica, staging);
        }
    }

    /**
     * Two PostgreSQL targets without transforms take the snapshot as raw COPY tuples, each from the
     * same records, with partitions as partitions and a table without a key; killed as soon as
     * some of the snapshot is stored (inside it, or just after) and run again, both end equal to
     * the source.
     */
    @Test
    void twoPostgresTargetsShareRawTuplesThroughAKill() throws Exception {
        TestDatabase source = TestDatabases.create(FanOutIT.class);
        TestDatabase one = TestDatabases.create(FanOutIT.class);
        TestDatabase two = TestDatabases.create(FanOutIT.class);
        String name = "pair_" + source.name().toLowerCase();
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        SluiceProcess sluice = null;
        try {
            pgbench.run(source, "-i", "-q", "-s", "4");
            source.execute("CREATE TABLE events (id int, at date NOT NULL, what text, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
                    "CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
                    "CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')",
                    "INSERT INTO events SELECT g, date '2025-01-01' + (g % 700), 'event ' || g FROM generate_series(1, 20000) g");
            String[] command = {"run", "--source", SluiceRuns.url(source), "--target", "one=" + SluiceRuns.url(one), "--target",
                    "two=" + SluiceRuns.url(two), "--name", name, "--offsets", work.resolve("pair.offsets").toString(),
                    "--set", "source.status.update.interval.ms=200"};
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "200", "-T", "3600");

            sluice = SluiceProcess.start(work, command);
            // Killed once some of the snapshot is stored as done for both targets: inside it, or just after it.
            Path offsets = work.resolve("pair.offsets");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.exists(offsets)) {
                assertThat(sluice.alive()).as("sluice runs:\n" + sluice.output()).isTrue();
                assertThat(System.nanoTime()).as("offsets stored within 120 s:\n" + sluice.output()).isLessThan(deadline);
                Thread.sleep(5);
            }
            sluice.kill();

            sluice = SluiceProcess.start(work, command);
            FanOutFixture.awaitOutput(sluice, "Streaming changes from slot sluice_" + name + " into one (");
            source.execute("INSERT INTO events VALUES (-1, '2026-06-01', 'streamed into a partition')");
            workload.destroy();
            assertThat(workload.waitFor(30, TimeUnit.SECONDS)).isTrue();
            workload = null;
            source.execute("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime, filler) VALUES (1, 1, 1, 0, now(), 'the end')");
            String[] tables = {"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history", "events"};
            for (TestDatabase target : new TestDatabase[] {one, two}) {
                for (String table : tables) {
                    target.awaitChecksumOf(source, table, java.time.Duration.ofSeconds(180));
                }
                assertThat(target.queryLong("SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass"))
                        .as("partitions as partitions").isEqualTo(2);
            }
            assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
            assertThat(sluice.output()).contains("Resuming pipeline " + name).contains("changes applied in this run to one.")
                    .contains("changes applied in this run to two.");
            sluice = null;
        } finally {
            FanOutFixture.cleanUp(workload, sluice, source, one, two);
        }
    }
}
