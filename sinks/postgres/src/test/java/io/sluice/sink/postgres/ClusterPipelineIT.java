package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;

/**
 * The whole pipeline on a Kafka Connect cluster of three workers: Sluice's source (exactly once,
 * ordering barriers into three partitions per table topic) and its sink (three tasks) created
 * through the REST API, a snapshot and then a pgbench workload streamed PostgreSQL → Kafka →
 * PostgreSQL. Mid-stream the worker with the most sink tasks is stopped and its tasks move to the
 * other two; once the workload stops, every table on the target equals the source's — the
 * insert-only, keyless pgbench_history included, so nothing was lost or applied twice. The same
 * again with the Anonymize transform in the source's chain, the snapshot's rows travelling as
 * raw COPY tuples that it rewrites.
 */
@ExtendWith(PostgresExtension.class)
class ClusterPipelineIT {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterPipelineIT.class);
    private static final int PARTITIONS = 3;
    private static final List<String> PGBENCH = List.of("pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history");

    /** When the worker is stopped. */
    private enum Stop { MID_STREAM, MID_SNAPSHOT }

    @Test
    void snapshotAndStreamingSurviveAWorkerStoppedMidStream() throws Exception {
        pipeline("plain", false, Stop.MID_STREAM);
    }

    @Test
    void theSameWithAnonymizationInTheSourceChain() throws Exception {
        pipeline("anon", true, Stop.MID_STREAM);
    }

    /** Snapshot rows committed by the stopped worker's tasks are not loaded again by the tasks that take their partitions. */
    @Test
    void theSnapshotSurvivesAWorkerStoppedWhileRowsLoad() throws Exception {
        pipeline("load", false, Stop.MID_SNAPSHOT);
    }

    private void pipeline(String name, boolean anonymize, Stop when) throws Exception {
        Pgbench pgbench = Pgbench.locate();
        TestDatabase source = TestDatabases.create(ClusterPipelineIT.class);
        TestDatabase target = TestDatabases.create(ClusterPipelineIT.class);
        Process workload = null;
        // Tasks of a stopped worker move after two seconds, not Connect's default five minutes.
        try (ConnectCluster connect = ConnectCluster.startExactlyOnce(name, 3, Map.of("scheduled.rebalance.max.delay.ms", "2000"))) {
            pgbench.run(source, "-i", "-q", "-s", when == Stop.MID_SNAPSHOT ? "3" : "1");
            source.execute("CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL, visits int NOT NULL DEFAULT 0)",
                    "INSERT INTO customers SELECT g, 'customer' || g || '@shop.test', 0 FROM generate_series(1, 1000) g");
            Path script = Files.createTempFile("customers", ".sql");
            Files.writeString(script, "\\set id random(1, 1000)\nUPDATE customers SET visits = visits + 1, "
                    + "email = 'customer' || :id || '.' || (visits + 1) || '@shop.test' WHERE id = :id;\n");

            connect.embedded().configureConnector(name + "-source", sourceConfig(source, name, anonymize));
            connect.embedded().configureConnector(name + "-sink", ConnectorConfigs.sinkOfPrefix(target, name, PARTITIONS));
            workload = pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "100", "-T", "600",
                    "-b", "tpcb-like@4", "-f", script + "@1");

            if (when == Stop.MID_STREAM) {
                await(() -> count(target, "pgbench_history") >= 100, "streamed changes on the target");
            } else {
                await(() -> count(target, "pgbench_accounts") > 0, "snapshot rows on the target");
                assertThat(target.queryLong("SELECT count(*) FROM pg_indexes WHERE tablename = 'pgbench_accounts'"))
                        .as("the snapshot is still loading (no keys yet) when the worker stops").isZero();
            }
            WorkerHandle stopped = connect.busiestWorker(name + "-sink");
            String gone = ":" + stopped.url().getPort(); // the handle forgets its address once stopped
            LOG.info("Stopping worker {} ({})", stopped.url(), when);
            connect.embedded().removeWorker(stopped);
            await(() -> connect.allTasksRunningElsewhere(name + "-sink", PARTITIONS, gone), "the sink's tasks running on the other workers");
            long before = count(target, "pgbench_history");
            await(() -> count(target, "pgbench_history") >= before + 100, "changes applied after the worker stopped");

            workload.destroy();
            workload.waitFor();
            source.execute("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime, filler) VALUES (1, 1, 1, 0, now(), 'the end')");
            await(() -> count(target, "pgbench_history WHERE filler = 'the end'") == 1, "the last change on the target");
            // Each table's partitions have their own tasks: the last change of one table says nothing of another's.
            for (String table : PGBENCH) {
                target.awaitChecksumOf(source, "public." + table, Duration.ofSeconds(60));
            }
            if (anonymize) {
                target.awaitChecksumOf(source, "(SELECT id, visits FROM public.customers)", Duration.ofSeconds(60));
                Map<Integer, String> original = emails(source);
                Map<Integer, String> masked = emails(target);
                assertThat(masked.keySet()).isEqualTo(original.keySet());
                assertThat(masked).allSatisfy((id, email) -> assertThat(email).as("customer %d", id)
                        .isNotEqualTo(original.get(id)).doesNotContain("customer").contains("@"));
            } else {
                target.awaitChecksumOf(source, "public.customers", Duration.ofSeconds(60));
            }
            ConnectorStateInfo status = connect.embedded().connectorStatus(name + "-sink");
            assertThat(status.tasks()).allSatisfy(t -> assertThat(t.state()).as("task %d: %s", t.id(), t.trace()).isEqualTo("RUNNING"));
            connect.embedded().deleteConnector(name + "-source");
            connect.embedded().deleteConnector(name + "-sink");
        } finally {
            if (workload != null) {
                workload.destroyForcibly();
            }
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static Map<String, String> sourceConfig(TestDatabase source, String name, boolean anonymize) {
        Map<String, String> config = ConnectorConfigs.sourceWithBarriers(source, name, "public.*", PARTITIONS);
        config.put("exactly.once.support", "required");
        config.put("slot.name", name + "_slot");
        config.put("status.update.interval.ms", "500");
        if (anonymize) {
            config.put("transforms", "anonymize");
            config.put("transforms.anonymize.type", "io.sluice.transforms.anonymize.Anonymize");
            config.put("transforms.anonymize.secret", "a secret for this test only");
            config.put("transforms.anonymize.rules", "public.customers.email = email");
            // Anonymize rewrites the snapshot's raw COPY tuples where they are, so they stay on with it in the chain.
            config.put("snapshot.raw.tuples", "true");
        }
        return config;
    }

    /** The worker running the most tasks of the connector. */
    private static long count(TestDatabase db, String from) {
        try {
            return db.queryLong("SELECT count(*) FROM " + from);
        } catch (java.sql.SQLException e) {
            return -1; // not created yet
        }
    }

    private static Map<Integer, String> emails(TestDatabase db) throws Exception {
        Map<Integer, String> emails = new TreeMap<>();
        try (var c = db.connect(); var s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, email FROM public.customers")) {
            while (rs.next()) {
                emails.put(rs.getInt(1), rs.getString(2));
            }
        }
        return emails;
    }

    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition condition, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
        while (!condition.holds()) {
            assertThat(System.nanoTime()).as("%s within 240 s", what).isLessThan(deadline);
            Thread.sleep(250);
        }
    }
}
