package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.browser.HeadlessChromium;
import io.sluice.testing.opensearch.FaultyProxy;
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
 * One {@code sluice run} into a PostgreSQL replica, an OpenSearch node and a webhook subscription
 * under a pgbench workload, with the OpenSearch node gone (connections refused) for a minute:
 * the search target is left behind, and the replica and the subscriber take the changes made
 * meanwhile while it is still gone; the slot is never confirmed past what the search target
 * held when it went; once it is back it catches up from the slot, and all three end equal to
 * the source, with one slot on the source. While it is gone, the meter, the status page (in
 * headless Chromium, a screenshot kept as target/status-page-left-behind.png) and
 * {@code sluice status} say so.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class SlowTargetIT {

    private static final long OUTAGE_SECONDS = 60;

    @TempDir
    Path work;

    @Test
    void aSearchNodeGoneForAMinuteHoldsNeitherTheReplicaNorTheSubscriber(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(SlowTargetIT.class);
        TestDatabase replica = TestDatabases.create(SlowTargetIT.class);
        String name = "slow_" + source.name().toLowerCase();
        String prefix = source.name().toLowerCase() + ".";
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        SluiceProcess sluice = null;
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new java.security.SecureRandom());
        HeadlessChromium chromium = HeadlessChromium.locate();
        try (TestReceiver receiver = new TestReceiver(List.of(secret)); FaultyProxy proxy = FaultyProxy.start(node, 1)) {
            pgbench.run(source, "-i", "-q", "-s", "1");
            FanOutFixture.customers(source, work, 1000);
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
                      search:
                        url: %s
                        index.name.format: %s${schema}.${table}
                    %s
                    offsets: %s
                    """.formatted(name, SluiceRuns.url(source), SluiceRuns.url(replica), proxy.httpUrl(), prefix, FanOutFixture.hooks(receiver.url(),
                    secret), work.resolve("slow.offsets")));
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "100", "-T", "3600",
                    "-b", "tpcb-like@4", "-f", work.resolve("customers.sql") + "@1");
            int metricsPort = SluiceRuns.freePort();
            String base = "http://127.0.0.1:" + metricsPort;
            sluice = SluiceProcess.start(work, "run", "--config", pipeline.toString(), "--metrics", "127.0.0.1:" + metricsPort);
            FanOutFixture.awaitOutput(sluice, "Streaming changes from slot");
            source.execute("INSERT INTO customers VALUES (-1, 'first@example.org')");
            FanOutFixture.awaitOn(sluice, "customer -1 on every target", () -> FanOutFixture.has(replica, -1) && delivered(receiver, -1)
                    && IndexDocuments.get(node, prefix + "public.customers", "-1") != null);

            proxy.down();
            long outageEnds = System.nanoTime() + TimeUnit.SECONDS.toNanos(OUTAGE_SECONDS);
            // What the search target holds was written before this point: the slot must not be confirmed past it.
            String held = source.queryText("SELECT pg_current_wal_lsn()::text");
            SluiceProcess running = sluice;
            FanOutFixture.awaitOn(sluice, "the search target left behind", () -> running.output().contains("Target search is left behind"));
            // Said where users look: the meter, the status page (in a browser), and sluice status, which reads every target it can.
            assertThat(io.sluice.runtime.metrics.Scrape.of(base).sum("sluice_target_left_behind_seconds", "target", name + ".search"))
                    .isPositive();
            assertThat(io.sluice.runtime.metrics.Scrape.of(base).sum("sluice_target_left_behind_seconds", "target", name + ".replica"))
                    .isZero();
            String dom = chromium.dom(base + "/", 10_000);
            assertThat(dom).containsPattern("<tr class=\"target\" data-name=\"" + name + ".search\"[^>]*data-left-behind=")
                    .contains("left behind");
            Path screenshot = Path.of("target", "status-page-left-behind.png");
            chromium.screenshot(base + "/", screenshot, 1280, 1000, 10_000);
            assertThat(Files.size(screenshot)).as("a screenshot").isGreaterThan(10_000);
            SluiceRuns.Result status = SluiceRuns.start(new java.util.concurrent.CompletableFuture<>(), "status", "--config",
                    pipeline.toString()).get(60, TimeUnit.SECONDS);
            assertThat(status.exit()).as(status.out() + status.err()).isOne();
            assertThat(status.out()).contains("target replica:", "target hooks:", "target search:\n    could not be read: ");
            assertThat(status.err()).contains("could not be read: search (");
            long inserted = System.currentTimeMillis();
            source.execute("INSERT INTO customers VALUES (-2, 'while the search node is gone@example.org')");
            long arrived = 0;
            while (System.nanoTime() < outageEnds) {
                assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_" + name
                        + "' AND confirmed_flush_lsn > '" + held + "'")).as("the slot confirmed past what the search target holds ("
                        + held + "):\n" + sluice.output()).isZero();
                if (arrived == 0 && FanOutFixture.has(replica, -2) && delivered(receiver, -2)) {
                    arrived = System.currentTimeMillis();
                }
                assertThat(sluice.alive()).as(sluice.output()).isTrue();
                Thread.sleep(250);
            }
            assertThat(arrived).as("customer -2 on the replica and delivered while the search node was gone:\n" + sluice.output())
                    .isPositive();
            System.out.printf("customer -2 reached the replica and the subscriber %d ms after its insert, the search node gone%n",
                    arrived - inserted);
            assertThat(IndexDocuments.get(node, prefix + "public.customers", "-2")).isNull();

            proxy.up();
            FanOutFixture.awaitOn(sluice, "the search target catching up", () -> running.output().contains("Target search has written what it took"));
            source.execute("INSERT INTO customers VALUES (-3, 'after@example.org')");
            FanOutFixture.awaitOn(sluice, "customer -3 on every target", () -> FanOutFixture.has(replica, -3) && delivered(receiver, -3)
                    && IndexDocuments.get(node, prefix + "public.customers", "-3") != null
                    && IndexDocuments.get(node, prefix + "public.customers", "-2") != null);
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_" + name
                    + "' AND confirmed_flush_lsn > '" + held + "'")).as("the slot moves on once every target holds more").isOne();

            workload.destroy();
            assertThat(workload.waitFor(30, TimeUnit.SECONDS)).isTrue();
            workload = null;
            source.execute("DELETE FROM customers WHERE id % 100 = 7", "INSERT INTO customers VALUES (-4, 'last@example.org')");
            FanOutFixture.awaitOn(sluice, "customer -4 on every target", () -> FanOutFixture.has(replica, -4) && delivered(receiver, -4)
                    && IndexDocuments.get(node, prefix + "public.customers", "-4") != null);
            for (String table : new String[] {"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "customers"}) {
                replica.awaitChecksumOf(source, table, java.time.Duration.ofSeconds(120));
            }
            assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
            assertThat(sluice.output()).contains("changes applied in this run to search.");
            sluice = null;

            FanOutFixture.assertSame(source, node, prefix + "public.pgbench_accounts", "SELECT aid, abalance FROM pgbench_accounts", "abalance");
            FanOutFixture.assertSame(source, node, prefix + "public.pgbench_tellers", "SELECT tid, tbalance FROM pgbench_tellers", "tbalance");
            FanOutFixture.assertSame(source, node, prefix + "public.customers", "SELECT id, email FROM customers", "email");
            assertThat(FanOutFixture.lastStates(receiver)).as("the webhook subscription's last states").isEqualTo(FanOutFixture.rows(source, "SELECT id, email FROM customers"));
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"))
                    .as("one slot feeds all targets").isEqualTo(1);
        } finally {
            FanOutFixture.cleanUp(workload, sluice, source, replica);
        }
    }

    /**
     * A PostgreSQL target whose sink fails on a row its table refuses (a CHECK added behind
     * Sluice's back) is left behind while the other target takes the changes; it is tried again
     * at growing intervals, failing on the same row each time, and the slot holds that row all the
     * while; once the constraint is gone it catches up, and both end equal to the source.
     */
    @Test
    void aTargetWhoseSinkFailsIsTriedAgainUntilItTakesTheRows() throws Exception {
        TestDatabase source = TestDatabases.create(SlowTargetIT.class);
        TestDatabase one = TestDatabases.create(SlowTargetIT.class);
        TestDatabase two = TestDatabases.create(SlowTargetIT.class);
        String name = "failing_" + source.name().toLowerCase();
        Pgbench pgbench = Pgbench.locate();
        Process workload = null;
        SluiceProcess sluice = null;
        try {
            pgbench.run(source, "-i", "-q", "-s", "1");
            source.execute("CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL)",
                    "INSERT INTO customers SELECT g, 'person' || g || '@example.org' FROM generate_series(1, 100) g");
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "1", "-j", "1", "-R", "50", "-T", "3600");
            sluice = SluiceProcess.start(work, "run", "--source", SluiceRuns.url(source), "--target", "one=" + SluiceRuns.url(one),
                    "--target", "two=" + SluiceRuns.url(two), "--name", name, "--offsets", work.resolve("failing.offsets").toString(),
                    "--set", "source.status.update.interval.ms=200");
            FanOutFixture.awaitOutput(sluice, "Streaming changes from slot");
            source.execute("INSERT INTO customers VALUES (-1, 'first@example.org')");
            SluiceProcess running = sluice;
            FanOutFixture.awaitOn(sluice, "customer -1 on both targets", () -> FanOutFixture.has(one, -1) && FanOutFixture.has(two, -1));

            // Nothing else commits from here until -5 does: every change before this point may be on two, none after it.
            workload.destroy();
            assertThat(workload.waitFor(30, TimeUnit.SECONDS)).isTrue();
            two.execute("ALTER TABLE customers ADD CONSTRAINT not_minus_five CHECK (id <> -5)");
            String held = source.queryText("SELECT pg_current_wal_lsn()::text");
            source.execute("INSERT INTO customers VALUES (-5, 'refused on two@example.org')",
                    "INSERT INTO customers VALUES (-6, 'after it@example.org')");
            FanOutFixture.awaitOn(sluice, "target two left behind, tried again and left behind again", () ->
                    running.output().split("Target two is left behind: its sink failed", -1).length > 2
                            && running.output().contains("Target two answers again"));
            FanOutFixture.awaitOn(sluice, "customer -6 on target one", () -> FanOutFixture.has(one, -6));
            assertThat(FanOutFixture.has(two, -6)).isFalse();
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_" + name
                    + "' AND confirmed_flush_lsn > '" + held + "'")).as("the slot confirmed past what target two holds (" + held + "):\n"
                    + sluice.output()).isZero();
            assertThat(sluice.output()).contains("not_minus_five");

            // Fixed under load: it catches up while the changes keep coming.
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "1", "-j", "1", "-R", "50", "-T", "3600");
            two.execute("ALTER TABLE customers DROP CONSTRAINT not_minus_five");
            FanOutFixture.awaitOn(sluice, "customers -5 and -6 on target two", () -> FanOutFixture.has(two, -5) && FanOutFixture.has(two, -6));
            workload.destroy();
            assertThat(workload.waitFor(30, TimeUnit.SECONDS)).isTrue();
            workload = null;
            source.execute("INSERT INTO customers VALUES (-7, 'last@example.org')");
            for (TestDatabase target : new TestDatabase[] {one, two}) {
                for (String table : new String[] {"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history", "customers"}) {
                    target.awaitChecksumOf(source, table, java.time.Duration.ofSeconds(120));
                }
            }
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_" + name
                    + "' AND confirmed_flush_lsn > '" + held + "'")).as("the slot moves on").isOne();
            assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
            sluice = null;
        } finally {
            FanOutFixture.cleanUp(workload, sluice, source, one, two);
        }
    }

    private static boolean delivered(TestReceiver receiver, int id) {
        return receiver.accepted().stream().anyMatch(r -> r.json().path("after").path("id").asInt() == id);
    }
}
