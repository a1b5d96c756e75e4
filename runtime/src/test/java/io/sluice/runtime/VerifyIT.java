package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice verify} after {@code sluice snapshot}: a target equal to its source (a filtered
 * table, a column list, an anonymized column, a composite text key, a keyless table, values whose
 * text depends on session settings) exits 0 saying each table is equal and what it left out.
 * Rows deleted, changed and added behind Sluice's back in three tables, and a table dropped:
 * exit 1, naming the tables and the keys. A target other than PostgreSQL: exit 2.
 */
@ExtendWith(PostgresExtension.class)
class VerifyIT {

    @TempDir
    Path work;

    @Test
    void equalTablesPassAndDifferencesAreNamed() throws Exception {
        TestDatabase source = TestDatabases.create(VerifyIT.class);
        TestDatabase target = TestDatabases.create(VerifyIT.class);
        try {
            source.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance numeric(12,2), opened timestamptz, rate float8, "
                            + "tags text[], doc jsonb, raw bytea)",
                    "INSERT INTO accounts SELECT g, g * 1.25, timestamptz '2026-01-01 00:00+02' + g * interval '1 hour', g / 3.0, "
                            + "ARRAY['a', NULL, 'c''s'], jsonb_build_object('n', g), decode(md5(g::text), 'hex') FROM generate_series(1, 50000) g",
                    "CREATE TABLE items (sku text, n int, label text, PRIMARY KEY (sku, n))",
                    "INSERT INTO items SELECT 'sku ' || (g % 17), g, 'label ' || g FROM generate_series(1, 3000) g",
                    "CREATE TABLE orders (id bigint PRIMARY KEY, region text, amount int)",
                    "INSERT INTO orders SELECT g, (ARRAY['eu', 'us'])[1 + g % 2], g FROM generate_series(1, 2000) g",
                    "CREATE TABLE customers (id int PRIMARY KEY, email text, secret text, region text)",
                    "INSERT INTO customers SELECT g, 'c' || g || '@shop.test', 'secret ' || g, 'eu' FROM generate_series(1, 500) g",
                    "CREATE TABLE audit (note text, at date)",
                    "INSERT INTO audit SELECT 'note ' || (g % 50), date '2026-01-01' + g FROM generate_series(1, 300) g");
            Path pipeline = work.resolve("verify.yaml");
            Files.writeString(pipeline, """
                    name: verified
                    source:
                      url: %s
                      table.filter:
                        public.orders: region = 'eu'
                      table.columns:
                        public.customers: id, email, region
                    target:
                      url: %s
                    transforms:
                      transforms: anonymize
                      transforms.anonymize.type: io.sluice.transforms.anonymize.Anonymize
                      transforms.anonymize.secret: a secret for this test only
                      transforms.anonymize.rules: public.customers.email = email
                    """.formatted(SluiceRuns.url(source), SluiceRuns.url(target)));
            Result snapshot = SluiceRuns.start(new CompletableFuture<>(), "snapshot", "--config", pipeline.toString()).get(300, TimeUnit.SECONDS);
            assertThat(snapshot.exit()).as(snapshot.out() + snapshot.err()).isZero();

            Result equal = verify(pipeline);
            assertThat(equal.exit()).as(equal.out() + equal.err()).isZero();
            assertThat(equal.out()).contains("public.accounts: equal (50000 rows)", "public.items: equal (3000 rows)",
                    "public.orders: equal (1000 rows)", "public.customers: equal (500 rows)", "not compared: email (anonymized)",
                    "public.audit: equal (300 rows; no key: compared as a whole)", "5 tables equal");

            target.execute("DELETE FROM accounts WHERE id IN (17, 40000)",
                    "UPDATE accounts SET rate = rate + 1e-9 WHERE id = 23456",
                    "UPDATE items SET label = 'changed' WHERE sku = 'sku 3' AND n = 3",
                    "INSERT INTO orders VALUES (999999, 'eu', 1)",
                    "DROP TABLE audit");
            Result differs = verify(pipeline);
            assertThat(differs.exit()).as(differs.out() + differs.err()).isEqualTo(1);
            assertThat(differs.out())
                    .contains("public.accounts: DIFFERS: 50000 rows on the source, 49998 on the target; missing on the target: (17) (40000); "
                            + "changed: (23456)")
                    .contains("public.items: DIFFERS: 3000 rows on the source, 3000 on the target; changed: (\"sku 3\",3)")
                    .contains("public.orders: DIFFERS: 1000 rows on the source, 1001 on the target; not on the source: (999999)")
                    .contains("public.customers: equal (500 rows)")
                    .contains("public.audit: DIFFERS: the target has no table \"public\".\"audit\"")
                    .contains("Some tables differ");

            Result elsewhere = SluiceRuns.start(new CompletableFuture<>(), "verify", "--source", SluiceRuns.url(source), "--target",
                    "http://localhost:9", "--name", "verified").get(60, TimeUnit.SECONDS);
            assertThat(elsewhere.exit()).as(elsewhere.out() + elsewhere.err()).isEqualTo(2);
            assertThat(elsewhere.err()).contains("sluice verify: ").contains("localhost:9");
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * While {@code sluice run} streams a pgbench workload of about 1,000 rows/s and a second one
     * that updates rows with out-of-line (TOAST) values it does not send again, moves rows between
     * partitions (each its own table, as {@code sluice run} publishes them into PostgreSQL), into and out of a row filter, and updates a table
     * whose key is anonymized and one with an anonymized column: five verifies in a row find every
     * table equal, the keyless history (only ever inserted into) among them, and
     * the pipeline's slot stays the only one once they are done. Rows deleted, changed and added
     * behind Sluice's back on the target in three tables are then named, exit 1, while the
     * workload goes on; {@code --repair} re-syncs those rows through the pipeline (the one only the
     * target had deleted, the TOAST value written whole), and the next verify exits 0.
     */
    @Test
    void aStreamingTargetIsComparedAtOnePointWithoutFalseDifferences() throws Exception {
        TestDatabase source = TestDatabases.create(VerifyIT.class);
        TestDatabase target = TestDatabases.create(VerifyIT.class);
        Pgbench pgbench = Pgbench.locate();
        List<Process> workloads = new ArrayList<>();
        CompletableFuture<Void> stop = new CompletableFuture<>();
        Path config = work.resolve("live.yaml");
        String[] pipeline = {"--config", config.toString(), "--offsets", work.resolve("live.offsets").toString()};
        try {
            Files.writeString(config, """
                    name: verifiedlive
                    source:
                      url: %s
                      table.filter:
                        public.tickets: state = 'open'
                    target:
                      url: %s
                    transforms:
                      transforms: anonymize
                      transforms.anonymize.type: io.sluice.transforms.anonymize.Anonymize
                      transforms.anonymize.secret: a secret for this test only
                      transforms.anonymize.rules: public.people.email = email; public.codes.code = hash
                    """.formatted(SluiceRuns.url(source), SluiceRuns.url(target)));
            pgbench.run(source, "-i", "-q", "-s", "2");
            // Accounts the workload never picks (it draws from 1 to 200,000): changed behind Sluice's back, they stay changed.
            source.execute("INSERT INTO pgbench_accounts SELECT g, 1, 0, 'beyond the workload' FROM generate_series(200001, 200100) g",
                    "CREATE TABLE docs (id int PRIMARY KEY, n int NOT NULL, body text NOT NULL)",
                    // Hex of random bytes compresses to about half: 40,000 characters stay far above the 2 kB that moves them out of line.
                    "INSERT INTO docs SELECT g, 0, (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 1250)) "
                            + "FROM generate_series(1, 200) g",
                    // Not in the stream's images (PostgreSQL computes it on each side): left out, said so.
                    "ALTER TABLE docs ADD COLUMN twice int GENERATED ALWAYS AS (n * 2) STORED",
                    "CREATE TABLE notes (id int PRIMARY KEY, note text)",
                    "INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 5000) g",
                    // Published through its root: rows move between partitions (their key changes with them).
                    "CREATE TABLE orders_p (id int, region text, amount int, PRIMARY KEY (id, region)) PARTITION BY LIST (region)",
                    "CREATE TABLE orders_p_eu PARTITION OF orders_p FOR VALUES IN ('eu')",
                    "CREATE TABLE orders_p_us PARTITION OF orders_p FOR VALUES IN ('us')",
                    "INSERT INTO orders_p SELECT g, (ARRAY['eu', 'us'])[1 + g % 2], g FROM generate_series(1, 300) g",
                    // Filtered: rows move into the filter and out of it.
                    "CREATE TABLE tickets (id int PRIMARY KEY, state text NOT NULL, n int NOT NULL)",
                    "INSERT INTO tickets SELECT g, (ARRAY['open', 'closed'])[1 + g % 2], 0 FROM generate_series(1, 300) g",
                    "ALTER TABLE tickets REPLICA IDENTITY FULL", // a filter on a column outside the key needs it
                    // Anonymized key: compared as a whole, by the key it has on the source.
                    "CREATE TABLE codes (code text PRIMARY KEY, n int NOT NULL)",
                    "INSERT INTO codes SELECT 'code ' || g, 0 FROM generate_series(1, 300) g",
                    // An anonymized column: left out.
                    "CREATE TABLE people (id int PRIMARY KEY, email text NOT NULL, n int NOT NULL)",
                    "INSERT INTO people SELECT g, 'p' || g || '@shop.test', 0 FROM generate_series(1, 300) g");
            Path touch = work.resolve("touch.sql");
            Files.writeString(touch, """
                    \\set id random(1, 200)
                    \\set other random(1, 300)
                    UPDATE docs SET n = n + 1 WHERE id = :id;
                    UPDATE orders_p SET region = CASE region WHEN 'eu' THEN 'us' ELSE 'eu' END, amount = amount + 1 WHERE id = :other;
                    UPDATE tickets SET state = CASE state WHEN 'open' THEN 'closed' ELSE 'open' END, n = n + 1 WHERE id = :other;
                    UPDATE codes SET n = n + 1 WHERE code = 'code ' || :other;
                    UPDATE people SET n = n + 1, email = 'q' || n || '@shop.test' WHERE id = :other;
                    """);
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(new String[] {"run"}, pipeline));
            SluiceRuns.awaitSame(source, "SELECT count(*) FROM docs", target, "SELECT count(*) FROM docs", run, "the snapshot");
            SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_verifiedlive' "
                    + "AND active") == 1, run, "streaming");
            workloads.add(pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "2", "-j", "2", "-R", "250", "-T", "3600"));
            workloads.add(pgbench.start(source, ProcessBuilder.Redirect.DISCARD, "-n", "-c", "1", "-R", "50", "-T", "3600", "-f",
                    touch.toString()));
            long historyBefore = source.queryLong("SELECT count(*) FROM pgbench_history");
            for (int i = 0; i < 5; i++) {
                Result equal = verify(pipeline);
                assertThat(equal.exit()).as("verify %d: %s%s", i + 1, equal.out(), equal.err()).isZero();
                assertThat(equal.out()).contains("The pipeline is streaming", "public.pgbench_accounts: equal (200100 rows)",
                        "public.docs: equal (200 rows)", "public.notes: equal (5000 rows)", "public.orders_p_eu: equal (",
                        "public.orders_p_us: equal (", "public.tickets: equal (", "public.codes: equal (300 rows; no key: compared as a whole)",
                        "public.people: equal (300 rows)", "not compared: email (anonymized)", "not compared: twice (generated)",
                        "11 tables equal");
            }
            assertThat(source.queryLong("SELECT count(*) FROM pgbench_history")).as("the workload ran meanwhile").isGreaterThan(historyBefore);
            assertThat(source.queryLong("SELECT sum(n) FROM docs")).as("the TOAST rows were updated meanwhile").isPositive();
            // The server drops a temporary slot once its walsender has ended, which may be a moment after verify exits.
            SluiceRuns.waitFor(() -> source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()") == 1,
                    run, "the comparisons' temporary slots gone, the pipeline's alone left");

            target.execute("DELETE FROM pgbench_accounts WHERE aid IN (200017, 200050)",
                    "UPDATE pgbench_accounts SET filler = 'behind its back' WHERE aid = 200042",
                    "UPDATE notes SET note = 'changed' WHERE id = 77",
                    "INSERT INTO notes VALUES (900001, 'added')",
                    "UPDATE docs SET body = 'short' WHERE id = 3"); // the workload's updates of it keep the body (they do not send it)
            Result differs = verify(pipeline);
            assertThat(differs.exit()).as(differs.out() + differs.err()).isEqualTo(1);
            assertThat(differs.out())
                    .contains("public.pgbench_accounts: DIFFERS: 200100 rows on the source, 200098 on the target; missing on the "
                            + "target: (200017) (200050); changed: (200042)")
                    .contains("public.notes: DIFFERS: 5000 rows on the source, 5001 on the target; not on the source: (900001); changed: (77)")
                    .contains("public.docs: DIFFERS: 200 rows on the source, 200 on the target; changed: (3)")
                    .contains("Some tables differ");

            Result repaired = SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"verify", "--repair"}, pipeline))
                    .get(300, TimeUnit.SECONDS);
            assertThat(repaired.exit()).as(repaired.out() + repaired.err()).isZero();
            assertThat(repaired.out()).contains("Repairing 3 rows of public.pgbench_accounts", "Repairing 2 rows of public.notes",
                    "Repairing 1 row of public.docs", "Comparing again after the repair:", "11 tables equal");
            Result after = verify(pipeline);
            assertThat(after.exit()).as(after.out() + after.err()).isZero();
            assertThat(target.queryLong("SELECT count(*) FROM notes WHERE id = 900001")).as("the row only the target had").isZero();
            assertThat(target.queryLong("SELECT length(body) FROM docs WHERE id = 3")).as("the TOAST value repaired").isEqualTo(40_000);
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            workloads.forEach(Process::destroy);
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static Result verify(String[] pipeline) throws Exception {
        return SluiceRuns.start(new CompletableFuture<>(), SluiceRuns.with(new String[] {"verify"}, pipeline)).get(300, TimeUnit.SECONDS);
    }

    private static Result verify(Path pipeline) throws Exception {
        return SluiceRuns.start(new CompletableFuture<>(), "verify", "--config", pipeline.toString()).get(300, TimeUnit.SECONDS);
    }
}
