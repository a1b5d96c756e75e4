package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.sluice.testing.postgres.ClientPrograms;
import io.sluice.testing.postgres.PostgresServer;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sluice run} between PostgreSQL servers of different major versions, 14 to 18, each as a
 * source and as a target: a schema with the types and objects users have (an extension type, an
 * enum, a composite, a stored generated column, a partitioned table, special values), the
 * snapshot, streaming under a workload that moves rows between partitions, an {@code ADD
 * COLUMN} mid-stream, a SIGKILL and a restart; every table ends equal. The runs find pg_dump as a
 * user's machine offers it: version 18's first on PATH, Debian's 15 in /usr/lib/postgresql, and
 * must take one at least the source's version, fitting its script to an older target. Servers of
 * versions the machine lacks come from Maven Central ({@link PostgresServer#launch(String, int, String...)}).
 */
class VersionMatrixIT {

    private static final Logger LOG = LoggerFactory.getLogger(VersionMatrixIT.class);
    private static final Map<Integer, PostgresServer.Launched> SERVERS = new ConcurrentHashMap<>();
    private static final List<String> TABLES = List.of("items", "events", "ledger");

    private final Path work = Path.of(System.getProperty("sluice.test.workdir", "target/test-services"), "versions-" + System.currentTimeMillis());

    static Stream<Arguments> pairs() {
        // Every version is a source and a target at least once; 17 -> 15 is an older target than the source,
        // 18 -> 15 and 18 -> 14 a pg_dump newer than the target.
        return Stream.of(Arguments.of(14, 18), Arguments.of(16, 15), Arguments.of(17, 15), Arguments.of(18, 15),
                Arguments.of(18, 14), Arguments.of(15, 16), Arguments.of(15, 17),
                // 13 is past its end of life but still common: it works without DDL capture, which it cannot stream.
                Arguments.of(13, 15), Arguments.of(15, 13));
    }

    @AfterAll
    static void stopServers() {
        SERVERS.values().forEach(PostgresServer.Launched::close);
    }

    @ParameterizedTest(name = "PostgreSQL {0} -> PostgreSQL {1}")
    @MethodSource("pairs")
    void copiesThenStreamsThroughAKill(int sourceVersion, int targetVersion) throws Exception {
        TestDatabase source = TestDatabases.create(server(sourceVersion), VersionMatrixIT.class);
        TestDatabase target = TestDatabases.create(server(targetVersion), VersionMatrixIT.class);
        assertThat(source.server().majorVersion()).isEqualTo(sourceVersion);
        assertThat(target.server().majorVersion()).isEqualTo(targetVersion);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong transactions = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> workload(source, writing, transactions, failure), "workload");
        SluiceProcess sluice = null;
        String name = "v" + sourceVersion + "to" + targetVersion;
        List<String> args = new ArrayList<>(List.of("run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target),
                "--name", name, "--offsets", work.resolve(name + ".offsets").toString(), "--set", "source.status.update.interval.ms=200",
                "--set", "source.heartbeat.interval.ms=500", "--set", "source.slot.health.interval.ms=500"));
        int metricsPort = SluiceRuns.freePort();
        String metrics = "http://127.0.0.1:" + metricsPort;
        args.addAll(List.of("--metrics", "127.0.0.1:" + metricsPort));
        if (sourceVersion < 14) {
            // 13 cannot stream logical messages, so DDL is not captured: the added column comes with the first row that has it.
            args.addAll(List.of("--set", "source.ddl.capture=false"));
        }
        String[] command = args.toArray(String[]::new);
        try {
            schema(source, sourceVersion);
            sluice = SluiceProcess.start(work, userPath(), command);
            waitForOutput(sluice, "Streaming changes from slot", "the snapshot");
            writer.start();
            waitForApplied(target, name, 200, sluice, "streaming under the workload");
            assertThat(failure.get()).as("the workload").isNull();
            // Without DDL capture (13) a default that fills the rows already there cannot reach the target: none is given then.
            source.execute("ALTER TABLE items ADD COLUMN note text" + (sourceVersion < 14 ? "" : " DEFAULT 'added'"),
                    "UPDATE items SET note = 'n' || id WHERE id % 10 = 0");
            long before = applied(target, name);
            waitForApplied(target, name, before + 100, sluice, "streaming after ADD COLUMN");
            sluice.kill();
            String firstOutput = sluice.output();
            sluice = SluiceProcess.start(work, userPath(), command);
            long atKill = applied(target, name);
            waitForApplied(target, name, atKill + 100, sluice, "streaming after the restart");
            // The slot's health and the heartbeats work on this version: the lag is measured, the slot read.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!(io.sluice.runtime.metrics.Scrape.orEmpty(metrics).value("sluice_source_slot_wal_status", "pipeline", name, "status",
                    "reserved").orElse(0) == 1 && io.sluice.runtime.metrics.Scrape.orEmpty(metrics).value("sluice_end_to_end_lag_seconds",
                    "target", name).isPresent())) {
                assertThat(sluice.alive()).as("sluice runs while waiting for its metrics:\n" + sluice.output()).isTrue();
                assertThat(System.nanoTime()).as("the slot read and the lag measured within 60 s:\n" + sluice.output()).isLessThan(deadline);
                Thread.sleep(200);
            }
            writing.set(false);
            writer.join();
            assertThat(failure.get()).as("the workload").isNull();
            source.execute("INSERT INTO ledger (account, delta) VALUES (-1, 0)");
            target.awaitSameAs(source, "SELECT count(*) FROM ledger WHERE account = -1", java.time.Duration.ofSeconds(120), "the last change");
            for (String table : TABLES) {
                target.awaitChecksumOf(source, table, java.time.Duration.ofSeconds(60));
            }
            assertThat(target.queryText("SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_inherits i "
                    + "JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'events'"))
                    .as("the partitions").isEqualTo("events_2024,events_2025,events_other");
            assertThat(target.queryText("SELECT attgenerated FROM pg_attribute WHERE attrelid = 'items'::regclass AND attname = 'total'"))
                    .as("the generated column is computed by the target").isEqualTo("s");
            int exit = sluice.terminate(60);
            assertThat(exit).as(sluice.output()).isZero();
            String all = firstOutput + sluice.output();
            assertThat(firstOutput).contains("Snapshot done");
            if (sourceVersion > 15 || targetVersion < 15) {
                LOG.info("Output of the first run of {}:\n{}", name, firstOutput);
            }
            assertThat(all).doesNotContain("Exception");
            assertThat(all).as("heartbeats written").doesNotContain("Writing the heartbeat");
        } finally {
            writing.set(false);
            if (writer.isAlive()) {
                writer.join();
            }
            if (sluice != null) {
                sluice.close();
            }
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /** A source newer than every pg_dump on the machine stops the run at its start, one line naming both, nothing created. */
    @Test
    void aSourceNewerThanEveryPgDumpStopsBeforeAnythingIsCreated() throws Exception {
        TestDatabases.withSourceAndTarget(server(17), server(15), VersionMatrixIT.class, (source, target) -> {
            source.execute("CREATE TABLE items (id int PRIMARY KEY)", "INSERT INTO items VALUES (1)");
            String out = failedRun(source, target, "old_dump", Map.of("PATH", "/usr/bin:/bin"));
            assertThat(out).contains("No pg_dump 17 or newer for the source").contains("PostgreSQL 17.")
                    .contains("pg_dump 15.").contains("postgresql-client-17");
            assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"))
                    .as("tables on the target").isZero();
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"))
                    .as("slots on the source").isZero();
        });
    }

    /**
     * What the target's version cannot hold stops the run before a row is copied, naming the
     * object, even when it is post-data (a key built after the rows): the source sends it ahead.
     */
    @Test
    void aSchemaTheTargetCannotHoldStopsBeforeTheCopy() throws Exception {
        TestDatabases.withSourceAndTarget(server(15), server(14), VersionMatrixIT.class, (source, target) -> {
            source.execute("CREATE TABLE codes (id int PRIMARY KEY, code text, CONSTRAINT one_code UNIQUE NULLS NOT DISTINCT (code))",
                    "INSERT INTO codes VALUES (1, 'a'), (2, NULL)");
            String out = failedRun(source, target, "too_new", userPath());
            assertThat(out).contains("runs PostgreSQL 14.").contains("one_code").contains("UNIQUE NULLS NOT DISTINCT (PostgreSQL 15+)")
                    .contains("Nothing was copied");
            assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).as("tables on the target").isZero();
        });
    }

    /**
     * On 14 a publication takes no row filter: streaming with one is refused in one line before
     * anything is made; a snapshot alone filters its reads there as anywhere.
     */
    @Test
    void rowFiltersOnFourteenAreRefusedForStreamingAndTakenByASnapshot() throws Exception {
        TestDatabases.withSourceAndTarget(server(14), server(15), VersionMatrixIT.class, (source, target) -> {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, region text)", "INSERT INTO orders VALUES (1, 'eu'), (2, 'us'), (3, 'us')");
            SluiceProcess refused = SluiceProcess.start(work, userPath(), "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "filtered14", "--offsets", work.resolve("filtered14.offsets").toString(),
                    "--filter", "public.orders=id > 1");
            int exit = refused.awaitExit(120);
            assertThat(exit).as(refused.output()).isNotZero();
            assertThat(refused.output()).contains("table.filter.public.orders: row filters need PostgreSQL 15 or later")
                    .contains("the source runs 14");
            assertThat(source.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")).isZero();
            assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).isZero();
            SluiceProcess narrowed = SluiceProcess.start(work, userPath(), "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "narrow14", "--offsets", work.resolve("narrow14.offsets").toString(),
                    "--columns", "public.orders=region");
            assertThat(narrowed.awaitExit(120)).as(narrowed.output()).isNotZero();
            assertThat(narrowed.output()).contains("table.columns.public.orders: column lists need PostgreSQL 15 or later");

            SluiceProcess snapshot = SluiceProcess.start(work, userPath(), "snapshot", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "snap14", "--offsets", work.resolve("snap14.offsets").toString(),
                    "--filter", "public.orders=region = 'us'", "--columns", "public.orders=id");
            assertThat(snapshot.awaitExit(120)).as(snapshot.output()).isZero();
            assertThat(target.queryText("SELECT string_agg(id::text, ',' ORDER BY id) FROM orders")).isEqualTo("2,3");
            assertThat(target.queryText("SELECT string_agg(column_name, ',') FROM information_schema.columns WHERE table_name = 'orders'"))
                    .as("the column list, on 14 too, for a snapshot alone").isEqualTo("id");
        });
    }

    /** Runs {@code sluice run} until it ends by itself, which it must do with an exit code that is not 0; returns what it printed. */
    private String failedRun(TestDatabase source, TestDatabase target, String name, Map<String, String> env) throws Exception {
        SluiceProcess sluice = SluiceProcess.start(work, env, "run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target),
                "--name", name, "--offsets", work.resolve(name + ".offsets").toString());
        int exit = sluice.awaitExit(120);
        String out = sluice.output();
        assertThat(exit).as(out).isNotZero();
        return out;
    }

    private static PostgresServer server(int major) {
        return SERVERS.computeIfAbsent(major, m -> PostgresServer.launch("v" + m, m));
    }

    /** A user's PATH with PostgreSQL 18's client programs first, as after installing the newest client package. */
    private static Map<String, String> userPath() {
        return Map.of("PATH", ClientPrograms.version18() + ":" + System.getenv("PATH"));
    }

    private static void schema(TestDatabase source, int version) throws Exception {
        List<String> ddl = new ArrayList<>(List.of(
                "CREATE EXTENSION hstore",
                "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
                "CREATE TYPE pair AS (a int, b text)",
                "CREATE TABLE items (id bigint PRIMARY KEY, name text NOT NULL, price numeric(12,2), tags text[], attrs hstore, m mood, "
                        + "p pair, d date, ts timestamptz, f float8, total numeric GENERATED ALWAYS AS (price * 2) STORED)",
                "CREATE INDEX items_d ON items (d)",
                "INSERT INTO items (id, name, price, tags, attrs, m, p, d, ts, f) SELECT g, 'item ' || g, g * 1.25, ARRAY['a', NULL, g::text], "
                        + "hstore('k', g::text), (ARRAY['sad', 'ok', 'happy'])[1 + g % 3]::mood, ROW(g, 'p' || g)::pair, DATE '2024-01-01' + g, "
                        + "TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * INTERVAL '1 minute', g / 7.0 FROM generate_series(1, 3000) g",
                // The values that break codecs: infinities, NaN, empty and NULL-holding arrays, the extreme years, empty text, a wide value.
                "INSERT INTO items (id, name, price, tags, attrs, m, p, d, ts, f) VALUES "
                        + "(-1, '', 'NaN', '{}', '', NULL, ROW(NULL, NULL)::pair, 'infinity', '-infinity', 'NaN'), "
                        + "(-2, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 10000) g), 0, ARRAY[NULL]::text[], NULL, 'ok', NULL, '4713-01-01 BC', '294276-12-31 23:59:59.999999+00', "
                        + "'-Infinity'), (-3, 'x', -9999999999.99, ARRAY['', '\"', '{}'], 'a=>NULL', 'sad', ROW(0, '')::pair, '5874897-12-31', "
                        + "'4713-01-01 00:00:00+00 BC', 1e308)",
                "CREATE TABLE events (id bigint, at date, payload jsonb, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
                "CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                "CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
                "CREATE TABLE events_other PARTITION OF events DEFAULT",
                "INSERT INTO events SELECT g, DATE '2024-01-01' + g % 900, jsonb_build_object('g', g) FROM generate_series(1, 3000) g",
                "CREATE TABLE ledger (account bigint, delta bigint, at timestamptz DEFAULT clock_timestamp())"));
        if (version >= 18) {
            // Virtual generated columns are 18's; an older target computes the column as a stored one.
            ddl.add("ALTER TABLE items ADD COLUMN half numeric GENERATED ALWAYS AS (price / 2) VIRTUAL");
        }
        source.execute(ddl.toArray(String[]::new));
    }

    private static void workload(TestDatabase db, AtomicBoolean writing, AtomicLong transactions, AtomicReference<Throwable> failure) {
        Random r = new Random(7);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            long next = 100_000;
            while (writing.get()) {
                int id = 1 + r.nextInt(3000);
                s.execute("UPDATE items SET price = price + 1, tags = array_append(tags, '" + id + "') WHERE id = " + id);
                // A row moved to another partition: the key's date changes.
                s.execute("UPDATE events SET at = at + 400 WHERE id = " + (1 + r.nextInt(3000)));
                s.execute("INSERT INTO ledger (account, delta) VALUES (" + id + ", " + r.nextInt(100) + ")");
                if (r.nextInt(5) == 0) {
                    s.execute("INSERT INTO items (id, name, m) VALUES (" + next++ + ", 'new', 'happy')");
                } else if (r.nextInt(5) == 0) {
                    s.execute("DELETE FROM events WHERE id = " + (1 + r.nextInt(3000)));
                }
                c.commit();
                transactions.incrementAndGet();
                Thread.sleep(5);
            }
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    private static long applied(TestDatabase target, String name) throws Exception {
        try {
            return target.queryLong("SELECT coalesce(max(changes), -1) FROM sluice.applied_position WHERE source = '" + name + "'");
        } catch (java.sql.SQLException e) {
            return -1; // the position table is not made yet
        }
    }

    private static void waitForOutput(SluiceProcess sluice, String line, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!sluice.output().contains(line)) {
            assertThat(sluice.alive()).as("sluice runs while waiting for " + what + ":\n" + sluice.output()).isTrue();
            assertThat(System.nanoTime()).as(what + " within 180 s:\n" + sluice.output()).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private static void waitForApplied(TestDatabase target, String name, long atLeast, SluiceProcess sluice, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (applied(target, name) < atLeast) {
            assertThat(sluice.alive()).as("sluice runs while waiting for " + what + ":\n" + sluice.output()).isTrue();
            assertThat(System.nanoTime()).as(what + " within 180 s:\n" + sluice.output()).isLessThan(deadline);
            Thread.sleep(200);
        }
    }
}
