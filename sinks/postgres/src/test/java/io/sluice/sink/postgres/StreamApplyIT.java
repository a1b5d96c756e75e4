package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Snapshot, then streamed changes applied to a real target by the sink, checked by an ordered
 * checksum of every table against the source: every kind of change (keys that change, values
 * PostgreSQL leaves out because they did not change, the same key changed many times in one
 * batch, truncates), and a live workload across crashes at random points, where the position
 * table must keep the target from applying anything twice.
 */
@ExtendWith(PostgresExtension.class)
class StreamApplyIT {

    private static final List<String> KINDS_TABLES = List.of("public.docs", "public.audit", "public.log", "public.pairs", "public.scratch",
            "public.ranges", "public.notes");

    @ParameterizedTest(name = "apply.max.delay.ms={0}")
    @ValueSource(longs = {0, 600_000})
    void everyKindOfChangeArrivesAsOnTheSource(long delay) throws Exception {
        TestDatabase source = TestDatabases.create(StreamApplyIT.class);
        TestDatabase target = TestDatabases.create(StreamApplyIT.class);
        try {
            kinds(source, target, delay);
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static void kinds(TestDatabase source, TestDatabase target, long delay) throws Exception {
        source.execute("CREATE TYPE mood AS ENUM ('calm', 'busy')",
                "CREATE TABLE docs (id int PRIMARY KEY, body text NOT NULL, tags text[], m mood, price numeric(8,2), meta jsonb, "
                        + "seen timestamptz, raw bytea, u uuid, spot point)",
                "ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL",
                "CREATE TABLE audit (id int PRIMARY KEY, who text, at timestamptz)",
                "ALTER TABLE audit REPLICA IDENTITY FULL",
                "CREATE TABLE log (at int, line text)",
                "CREATE TABLE pairs (a int, b text, v text, PRIMARY KEY (a, b))",
                "ALTER TABLE pairs ALTER COLUMN v SET STORAGE EXTERNAL",
                "CREATE TABLE scratch (id int PRIMARY KEY, v text)",
                // Partitioned, published through its root (the source's default): a TRUNCATE of the root empties the tree.
                "CREATE TABLE ranges (id int PRIMARY KEY, v text) PARTITION BY RANGE (id)",
                "CREATE TABLE ranges_low PARTITION OF ranges FOR VALUES FROM (0) TO (100)",
                "CREATE TABLE ranges_high PARTITION OF ranges FOR VALUES FROM (100) TO (300)",
                "INSERT INTO ranges SELECT g, 'before truncate' FROM generate_series(1, 199) g",
                // No key: rows are found by all their values, copies of one row counted.
                "CREATE TABLE notes (who text, n int, body text, spot point, meta json)",
                "ALTER TABLE notes REPLICA IDENTITY FULL",
                "ALTER TABLE notes ALTER COLUMN body SET STORAGE EXTERNAL",
                "INSERT INTO notes SELECT 'kept', g, repeat('k', 3000), point(g, g), '{\"k\": 1}' FROM generate_series(1, 5) g",
                "INSERT INTO docs SELECT g, CASE WHEN g % 3 = 0 THEN repeat(md5(g::text), 400) ELSE 'short ' || g END, ARRAY['a' || g], "
                        + "'calm', g * 1.5, jsonb_build_object('g', g), '2024-01-01'::timestamptz + g * interval '1 hour', "
                        + "decode(md5(g::text), 'hex'), md5(g::text)::uuid, point(g, -g) FROM generate_series(1, 300) g",
                "INSERT INTO scratch SELECT g, 'before truncate' FROM generate_series(1, 20) g");
        Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(stored, sourceProps(source, "kinds"),
                Pipes.sinkProps(target, "apply.max.delay.ms", Long.toString(delay)))) {
            String big = "'" + "y".repeat(9000) + "'";
            source.execute(
                    // Unchanged TOASTed bodies: only the price is sent, the body must stay.
                    "UPDATE docs SET price = price + 1 WHERE id <= 30",
                    "UPDATE docs SET body = " + big + " WHERE id = 2",
                    // Key changes, with and without an unchanged TOASTed body.
                    "UPDATE docs SET id = 1003 WHERE id = 3",
                    "UPDATE docs SET id = 1004 WHERE id = 4",
                    "UPDATE docs SET id = 1006, m = 'busy' WHERE id = 6",
                    "UPDATE docs SET price = 7 WHERE id = 1006",
                    // One key inserted, changed, deleted and inserted again in one transaction.
                    "BEGIN; INSERT INTO docs VALUES (5000, " + big + ", NULL, 'busy', 1, NULL, NULL, NULL, NULL, NULL); "
                            + "UPDATE docs SET price = 2 WHERE id = 5000; UPDATE docs SET tags = '{x}' WHERE id = 5000; "
                            + "DELETE FROM docs WHERE id = 5000; INSERT INTO docs VALUES (5000, 'again', '{z}', 'calm', 3, '{}', now(), "
                            + "'\\x00ff', gen_random_uuid(), point(1, 2)); COMMIT",
                    "BEGIN; UPDATE docs SET id = 2000 WHERE id = 9; UPDATE docs SET id = 9, price = 99 WHERE id = 12; "
                            + "UPDATE docs SET price = 100 WHERE id = 2000; COMMIT",
                    // A row the target does not have yet, then changed without its TOASTed body: the batch has the body.
                    "INSERT INTO docs (id, body, price) VALUES (6000, " + big + ", 1)",
                    "UPDATE docs SET price = 5 WHERE id = 6000",
                    "DELETE FROM docs WHERE id BETWEEN 20 AND 40",
                    "UPDATE docs SET meta = meta || '{\"more\": true}', tags = tags || 'b'::text WHERE id % 7 = 0",
                    "INSERT INTO audit SELECT g, 'ann', now() FROM generate_series(1, 50) g",
                    "UPDATE audit SET who = 'bob' WHERE id % 2 = 0",
                    "UPDATE audit SET id = id + 100 WHERE id % 5 = 0",
                    "DELETE FROM audit WHERE id % 3 = 0",
                    "INSERT INTO log SELECT g % 4, 'line' FROM generate_series(1, 40) g",
                    "INSERT INTO log SELECT g % 4, 'line' FROM generate_series(1, 40) g",
                    "INSERT INTO pairs SELECT g, 'k' || g, repeat('v', 5000) || g FROM generate_series(1, 20) g",
                    "UPDATE pairs SET b = 'moved' WHERE a = 1",
                    "UPDATE pairs SET a = a + 100 WHERE a BETWEEN 2 AND 4",
                    "UPDATE pairs SET v = 'small' WHERE a = 5",
                    "INSERT INTO notes SELECT 'same', 1, repeat('s', 5000), point(1, 1), '{\"a\": [1, 2]}' FROM generate_series(1, 3)",
                    "INSERT INTO notes VALUES ('x', NULL, NULL, NULL, NULL), ('x', NULL, NULL, NULL, NULL), ('x', NULL, '', NULL, NULL)",
                    // One of three equal rows changes, its TOASTed body unchanged (the old row has it).
                    "UPDATE notes SET n = 2 WHERE ctid = (SELECT ctid FROM notes WHERE who = 'same' LIMIT 1)",
                    "DELETE FROM notes WHERE ctid = (SELECT ctid FROM notes WHERE who = 'x' AND body IS NULL LIMIT 1)",
                    "UPDATE notes SET who = 'other' WHERE who = 'same' AND n = 1",
                    "UPDATE notes SET spot = point(9, 9) WHERE who = 'kept' AND n <= 2",
                    "DELETE FROM notes WHERE who = 'kept' AND n = 5",
                    "BEGIN; INSERT INTO notes VALUES ('gone', 0, 'g', NULL, NULL); UPDATE notes SET n = 1 WHERE who = 'gone'; "
                            + "DELETE FROM notes WHERE who = 'gone'; COMMIT",
                    "TRUNCATE scratch",
                    "INSERT INTO scratch VALUES (1, 'after truncate')",
                    "UPDATE ranges SET id = id + 200 WHERE id < 10", // from one partition to the other
                    "TRUNCATE ranges",
                    "INSERT INTO ranges VALUES (1, 'after truncate'), (150, 'after truncate')",
                    "UPDATE ranges SET id = 50 WHERE id = 150",
                    "UPDATE docs SET price = price * 2",
                    "INSERT INTO log VALUES (-1, 'end')");
            pumpUntilEnd(pipe, "kinds");
            pipe.commit();
            for (String table : KINDS_TABLES) {
                assertThat(checksum(target, table)).as(table).isEqualTo(checksum(source, table));
            }
            assertThat(checksum(target, "public.docs")).as("rows of docs").startsWith("281 ");
            assertThat(rows(target, "SELECT count(*) FROM docs WHERE length(body) > 9000")).as("TOASTed bodies kept").isEqualTo(
                    rows(source, "SELECT count(*) FROM docs WHERE length(body) > 9000")).isPositive();
            assertThat(rows(target, "SELECT count(*) FROM sluice.applied_position WHERE source = 'kinds'")).isEqualTo(1);
        }
    }

    /**
     * Updated rows go in by one {@code UPDATE ... FROM} the staged rows, in whatever order the
     * target's planner meets them. Here it is made to meet them in key order (no nested loop, no
     * hash join), while the source handed a unique value on from row 3 to row 2 to row 1: in key
     * order row 1 takes it while row 2 still holds it. The update must then give way to the upsert
     * in source order, and the rows of a second table updated in the same batch, and a row the
     * target does not have, must arrive as well.
     */
    @Test
    void aUniqueValueHandedOnBetweenRowsArrivesWhateverOrderTheTargetPlans() throws Exception {
        TestDatabase source = TestDatabases.create(StreamApplyIT.class);
        TestDatabase target = TestDatabases.create(StreamApplyIT.class);
        try {
            target.execute("ALTER DATABASE " + target.name() + " SET enable_nestloop = off",
                    "ALTER DATABASE " + target.name() + " SET enable_hashjoin = off");
            source.execute("CREATE TABLE handles (id int PRIMARY KEY, handle text NOT NULL UNIQUE, n int)",
                    "INSERT INTO handles SELECT g, 'h' || g, 0 FROM generate_series(1, 100) g",
                    "CREATE TABLE counts (id int PRIMARY KEY, n int)",
                    "INSERT INTO counts SELECT g, 0 FROM generate_series(1, 100) g",
                    "CREATE TABLE log (at int, line text)");
            Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(stored, sourceProps(source, "handles"),
                    Pipes.sinkProps(target, "apply.max.delay.ms", "600000"))) {
                source.execute("BEGIN; UPDATE handles SET handle = 'spare' WHERE id = 3; UPDATE handles SET handle = 'h3' WHERE id = 2; "
                                + "UPDATE handles SET handle = 'h2' WHERE id = 1; UPDATE handles SET n = 1 WHERE id > 50; COMMIT",
                        "UPDATE counts SET n = n + id",
                        "DELETE FROM counts WHERE id = 7",
                        "BEGIN; INSERT INTO counts VALUES (7, 70); UPDATE counts SET n = 71 WHERE id = 7; COMMIT",
                        "INSERT INTO log VALUES (-1, 'end')");
                pumpUntilEnd(pipe, "handles");
                pipe.commit();
                for (String table : List.of("public.handles", "public.counts", "public.log")) {
                    assertThat(checksum(target, table)).as(table).isEqualTo(checksum(source, table));
                }
                assertThat(rows(target, "SELECT n FROM counts WHERE id = 7")).isEqualTo(71);
                assertThat(rows(target, "SELECT id FROM handles WHERE handle = 'h3'")).isEqualTo(2);
            }
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /**
     * A batch's statements go to the target together, so the update of whole rows cannot learn
     * before the rest are sent that it found fewer rows than were staged. A row the target lost
     * (deleted behind Sluice's back) and then updated on the source must still arrive whole, by
     * the upsert that follows, and the rows updated beside it and in another table too.
     */
    @Test
    void anUpdatedRowTheTargetLostArrivesWhole() throws Exception {
        TestDatabase source = TestDatabases.create(StreamApplyIT.class);
        TestDatabase target = TestDatabases.create(StreamApplyIT.class);
        try {
            source.execute("CREATE TABLE handles (id int PRIMARY KEY, handle text NOT NULL, n int)",
                    "INSERT INTO handles SELECT g, 'h' || g, 0 FROM generate_series(1, 100) g",
                    "CREATE TABLE counts (id int PRIMARY KEY, n int)",
                    "INSERT INTO counts SELECT g, 0 FROM generate_series(1, 100) g",
                    "CREATE TABLE log (at int, line text)");
            Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(stored, sourceProps(source, "lost"),
                    Pipes.sinkProps(target, "apply.max.delay.ms", "600000"))) {
                source.execute("INSERT INTO log VALUES (-1, 'copied')");
                pumpUntilEnd(pipe, "lost");
                pipe.commit();
                target.execute("DELETE FROM handles WHERE id = 5");
                source.execute("UPDATE handles SET n = id WHERE id BETWEEN 4 AND 6", "UPDATE counts SET n = n + id WHERE id < 10",
                        "INSERT INTO log VALUES (-1, 'end')");
                pumpUntilEnd(pipe, "lost");
                pipe.commit();
                for (String table : List.of("public.handles", "public.counts", "public.log")) {
                    assertThat(checksum(target, table)).as(table).isEqualTo(checksum(source, table));
                }
                assertThat(rows(target, "SELECT n FROM handles WHERE id = 5")).isEqualTo(5);
            }
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    @Test
    void aLiveWorkloadAcrossCrashesEndsEqualAndAppliesNothingTwice() throws Exception {
        TestDatabase source = TestDatabases.create(StreamApplyIT.class);
        TestDatabase target = TestDatabases.create(StreamApplyIT.class);
        try {
            live(source, target);
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static void live(TestDatabase source, TestDatabase target) throws Exception {
        source.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, note text)",
                "ALTER TABLE accounts ALTER COLUMN note SET STORAGE EXTERNAL",
                "INSERT INTO accounts SELECT g, 0, CASE WHEN g % 10 = 0 THEN repeat(md5(g::text), 100) END FROM generate_series(1, 20000) g",
                "CREATE TABLE history (account bigint, delta bigint, at timestamptz DEFAULT clock_timestamp())",
                "CREATE SEQUENCE account_ids START 1000000");
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong transactions = new AtomicLong();
        AtomicReference<Throwable> workloadFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> workload(source, writing, transactions, workloadFailure), "workload");
        Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        Random random = new Random(42);
        long applyDelay = 50;
        int crashesAfterTargetCommit = 0;
        long skipped = 0;
        long confirmedWithoutWaiting = 0;
        try {
            writer.start();
            SourceToSink<PostgresSinkTask> pipe = Pipes.open(stored, sourceProps(source, "live"), sinkProps(target, applyDelay));
            // The snapshot, and the first streamed changes.
            long changes = 0;
            while (changes < 200) {
                changes += Pipes.changes(pipe.pump());
            }
            pipe.commit();
            for (int round = 0; round < 8; round++) {
                long until = System.nanoTime() + (300 + random.nextInt(900)) * 1_000_000L;
                while (System.nanoTime() < until) {
                    pipe.pump();
                    int dice = random.nextInt(20);
                    if (dice == 0) {
                        pipe.commit();
                    } else if (dice < 5) {
                        // As a Connect worker does between flushes: the sink answers from what its target transactions made durable.
                        confirmedWithoutWaiting += Pipes.confirmWithoutWaiting(pipe, target, "live");
                    }
                }
                // A slow machine pumps a handful of times a round, so the dice alone may never confirm: once a round, until something is.
                confirmedWithoutWaiting += confirmSome(pipe, target);
                if (random.nextBoolean()) {
                    // The target committed, the offsets did not: the changes come again and must be skipped.
                    pipe.flushWithoutStoring();
                    crashesAfterTargetCommit++;
                }
                skipped += pipe.sink().changesSkipped();
                pipe.close();
                pipe = Pipes.open(stored, sourceProps(source, "live"), sinkProps(target, applyDelay));
            }
            writing.set(false);
            writer.join();
            assertThat(workloadFailure.get()).isNull();
            source.execute("INSERT INTO history VALUES (-1, 0)");
            try {
                pumpUntilEnd(pipe, "live");
                pipe.commit();
                skipped += pipe.sink().changesSkipped();
            } finally {
                pipe.close();
            }
            assertThat(transactions.get()).as("workload transactions").isGreaterThan(100);
            assertThat(crashesAfterTargetCommit).isPositive();
            assertThat(confirmedWithoutWaiting).as("records confirmed while their batch could still be applying").isPositive();
            assertThat(skipped).as("changes skipped because the target had them").isPositive();
            assertThat(checksum(target, "public.accounts")).isEqualTo(checksum(source, "public.accounts"));
            assertThat(checksum(target, "public.history")).as("keyless inserts: a change applied twice would show")
                    .isEqualTo(checksum(source, "public.history"));
        } finally {
            writing.set(false);
            writer.join();
        }
    }

    /** Pumps and confirms without waiting until a record is confirmed: the sink must report its applied batches durable by itself. */
    private static long confirmSome(SourceToSink<PostgresSinkTask> pipe, TestDatabase target) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            pipe.pump();
            long confirmed = Pipes.confirmWithoutWaiting(pipe, target, "live");
            if (confirmed > 0) {
                return confirmed;
            }
        }
        throw new AssertionError("in 30 s of streaming the sink confirmed no record without being flushed");
    }

    private static Map<String, String> sinkProps(TestDatabase target, long applyDelay) {
        return Pipes.sinkProps(target, "apply.max.delay.ms", Long.toString(applyDelay), "batch.max.bytes", "65536", "batch.tuning.enabled", "false");
    }

    private static Map<String, String> sourceProps(TestDatabase db, String prefix) {
        Map<String, String> props = db.sourceConnection();
        props.put("topic.prefix", prefix);
        props.put("snapshot.mode", "initial");
        props.put("snapshot.batch.bytes", "65536");
        props.put("snapshot.max.threads", "2");
        props.put("status.update.interval.ms", "200");
        return props;
    }

    /** Pumps until the row {@code log/history (-1, ...)} that ends a test has come through. */
    private static void pumpUntilEnd(SourceToSink<PostgresSinkTask> pipe, String prefix) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (SourceRecord r : pipe.pump()) {
                if (r.topic().startsWith(prefix + ".public.") && Envelope.isEnvelope(r.valueSchema())) {
                    Struct after = ((Struct) r.value()).getStruct(Envelope.AFTER);
                    if (after != null && ((after.schema().field("at") != null && Integer.valueOf(-1).equals(after.get("at")))
                            || (after.schema().field("account") != null && Long.valueOf(-1).equals(after.get("account"))))) {
                        return;
                    }
                }
            }
        }
        throw new AssertionError("the end marker did not come through in two minutes");
    }

    /** Transfers between accounts with a history row, new accounts, closed accounts and renumbered ones. */
    static void workload(TestDatabase db, AtomicBoolean writing, AtomicLong transactions, AtomicReference<Throwable> failure) {
        Random r = new Random(7);
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            while (writing.get()) {
                long from = 1 + r.nextInt(20000);
                long to = 1 + r.nextInt(20000);
                long delta = 1 + r.nextInt(100);
                s.execute("UPDATE accounts SET balance = balance - " + delta + " WHERE id = " + from);
                s.execute("UPDATE accounts SET balance = balance + " + delta + " WHERE id = " + to);
                s.execute("INSERT INTO history (account, delta) VALUES (" + from + ", " + -delta + "), (" + to + ", " + delta + ")");
                switch (r.nextInt(10)) {
                    case 0 -> s.execute("INSERT INTO accounts VALUES (nextval('account_ids'), 0, repeat('n', 3000))");
                    case 1 -> s.execute("DELETE FROM accounts WHERE id = " + (1 + r.nextInt(20000)));
                    case 2 -> s.execute("UPDATE accounts SET id = nextval('account_ids') WHERE id = " + (1 + r.nextInt(20000)));
                    default -> {
                    }
                }
                c.commit();
                transactions.incrementAndGet();
                Thread.sleep(1);
            }
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    static String checksum(TestDatabase db, String table) throws Exception {
        return SnapshotIntoPostgresIT.checksum(db, table);
    }

    private static long rows(TestDatabase db, String sql) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
