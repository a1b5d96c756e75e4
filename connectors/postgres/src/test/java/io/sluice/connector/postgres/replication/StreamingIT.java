package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import io.sluice.connector.postgres.offsets.ServerPartition;
import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Snapshot then stream, through the task as Connect drives it, while a workload writes all the
 * time. Every row carries a version bumped by each update, so a model replaying the events can
 * tell a missed change (a version skipped) from a change sent twice (a version repeated, an
 * insert of a present row): it must end equal to the source, across the hand-off and across a
 * restart from committed offsets.
 */
@ExtendWith(PostgresExtension.class)
class StreamingIT {

    private static final Map<String, String> PARTITION = ServerPartition.of("live");

    @Test
    void snapshotThenStreamHasNoGapAndNoDuplicateAcrossTheHandOffAndARestart(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, version int NOT NULL, note text)",
                "INSERT INTO accounts SELECT g, 1, repeat('n', 200) FROM generate_series(1, 30000) g",
                "CREATE SEQUENCE account_ids START 1000000");
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong transactions = new AtomicLong();
        Thread writer = new Thread(() -> write(db, writing, transactions), "workload");
        writer.start();

        Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        Model model = new Model();
        PostgresSourceTask task = start(db, stored);
        try {
            // Snapshot, then at least 300 streamed changes.
            while (model.streamed < 300) {
                model.applyAll(poll(task));
            }
            // Commit at a record in the middle of what was received; the rest is lost with the task.
            List<SourceRecord> received = model.received;
            SourceRecord durable = received.get(received.size() * 3 / 5);
            stored.put(PARTITION, new HashMap<>(cast(durable.sourceOffset())));
            task.commit();
            task.stop();
            model.rewindTo(durable);

            task = start(db, stored);
            while (model.streamed < 900) {
                model.applyAll(poll(task));
            }
            writing.set(false);
            writer.join();
            db.execute("INSERT INTO accounts VALUES (-1, 1, 'end')");
            while (!model.versions.containsKey(-1L)) {
                model.applyAll(poll(task));
            }
            assertThat(model.versions).isEqualTo(source(db));
            assertThat(transactions.get()).isPositive();

            SourceRecord last = model.received.get(model.received.size() - 1);
            stored.put(PARTITION, new HashMap<>(cast(last.sourceOffset())));
            long commitLsn = ((Number) last.sourceOffset().get(ChangeRecords.COMMIT_LSN)).longValue();
            long deadline = System.nanoTime() + 30_000_000_000L;
            long confirmed = 0;
            while (Long.compareUnsigned(confirmed, commitLsn) < 0 && System.nanoTime() < deadline) {
                task.commit();
                poll(task);
                confirmed = slotConfirmed(db);
            }
            assertThat(Long.compareUnsigned(confirmed, commitLsn)).as("slot confirmed %s, last commit %s", Lsn.format(confirmed),
                    Lsn.format(commitLsn)).isGreaterThanOrEqualTo(0);
        } finally {
            writing.set(false);
            writer.join();
            task.stop();
        }
    }

    @Test
    void streamOnlyDecodesEveryKindOfChangeAndLeavesUnchangedToastOut(TestDatabase db) throws Exception {
        db.execute("CREATE TYPE mood AS ENUM ('calm', 'busy')",
                "CREATE TABLE docs (id int PRIMARY KEY, body text NOT NULL, tags text[], m mood, price numeric(8,2))",
                "ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL",
                "CREATE TABLE audit (at timestamptz, who text)",
                "ALTER TABLE audit REPLICA IDENTITY FULL");
        PostgresSourceTask task = start(db, new ConcurrentHashMap<>(), "topic.prefix", "kinds", "snapshot.mode", "never");
        try {
            String big = "x".repeat(10_000);
            db.execute("INSERT INTO docs VALUES (1, '" + big + "', '{a,b}', 'calm', 12.5)",
                    "UPDATE docs SET price = 13.75 WHERE id = 1",
                    "INSERT INTO audit VALUES ('2024-05-01 10:00+00', 'ann')",
                    "UPDATE audit SET who = 'bob'",
                    "DELETE FROM audit",
                    "DELETE FROM docs WHERE id = 1",
                    "TRUNCATE docs, audit");
            List<SourceRecord> records = pollUntil(task, r -> r.size() >= 8);
            assertThat(records).extracting(r -> r.topic() + ":" + ((Struct) r.value()).getString(Envelope.OP)).containsExactly(
                    "kinds.public.docs:c", "kinds.public.docs:u", "kinds.public.audit:c", "kinds.public.audit:u",
                    "kinds.public.audit:d", "kinds.public.docs:d", "kinds.public.docs:t", "kinds.public.audit:t");
            Struct inserted = ((Struct) records.get(0).value()).getStruct(Envelope.AFTER);
            assertThat(inserted.getString("body")).isEqualTo(big);
            assertThat(inserted.getArray("tags")).containsExactly("a", "b");
            assertThat(inserted.get("m")).isEqualTo("calm");

            SourceRecord update = records.get(1);
            assertThat(update.headers().lastWithName(io.sluice.schemas.envelope.EventHeaders.UNCHANGED_TOAST).value()).isEqualTo("body");
            assertThat(((Struct) update.value()).getStruct(Envelope.AFTER).getString("body")).as("not data: a placeholder").isEmpty();
            assertThat(((Struct) update.value()).getStruct(Envelope.BEFORE)).as("default identity sends no old row on update").isNull();

            Struct fullBefore = ((Struct) records.get(3).value()).getStruct(Envelope.BEFORE);
            assertThat(fullBefore.getString("who")).as("REPLICA IDENTITY FULL sends the old row").isEqualTo("ann");
            SourceRecord keyOnlyDelete = records.get(5);
            assertThat(keyOnlyDelete.headers().lastWithName(io.sluice.schemas.envelope.EventHeaders.KEY_ONLY_BEFORE)).isNotNull();
            assertThat(((Struct) keyOnlyDelete.key()).getInt32("id")).isEqualTo(1);
            assertThat(records).allSatisfy(r -> assertThat(r.sourceOffset()).containsKeys(ChangeRecords.COMMIT_LSN, ChangeRecords.EVENT));
        } finally {
            task.stop();
        }
    }

    @Test
    void eachTableOfATransactionCountsItsOwnEventsAndNamesItselfInTheSourceBlock(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE ta (id int PRIMARY KEY)", "CREATE TABLE tb (id int PRIMARY KEY)");
        PostgresSourceTask task = start(db, new ConcurrentHashMap<>(), "topic.prefix", "order", "snapshot.mode", "never",
                "table.include.list", "public.ta,public.tb,public.tc");
        try {
            // A rename inside the transaction sends tb's relation again, by the same oid with a new name.
            db.execute("BEGIN; INSERT INTO ta VALUES (1); INSERT INTO tb VALUES (1); INSERT INTO ta VALUES (2); "
                    + "ALTER TABLE tb RENAME TO tc; INSERT INTO tc VALUES (2); INSERT INTO ta VALUES (3); COMMIT",
                    "INSERT INTO ta VALUES (4)");
            List<SourceRecord> records = pollUntil(task, r -> r.stream().filter(c -> Envelope.isEnvelope(c.valueSchema())).count() >= 6);
            assertThat(records.stream().filter(r -> Envelope.isEnvelope(r.valueSchema())).map(r -> {
                Struct value = (Struct) r.value();
                Struct transaction = value.getStruct(Envelope.TRANSACTION);
                return value.getStruct(Envelope.SOURCE).getString("table") + value.getStruct(Envelope.AFTER).getInt32("id") + " "
                        + transaction.getInt64("total_order") + "/" + transaction.getInt64("data_collection_order");
            })).as("table, row, place in the transaction / among the table's changes in it").containsExactly(
                    "ta1 1/1", "tb1 2/1", "ta2 3/2", "tc2 5/2", "ta3 6/3", "ta4 1/1"); // 4: the rename's schema-change event
        } finally {
            task.stop();
        }
    }

    @Test
    void aKeyChangeIsPrecededByADeleteOfTheOldKeyUnlessItKeepsToastedValues(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE moving (id int PRIMARY KEY, body text NOT NULL)", "ALTER TABLE moving ALTER COLUMN body SET STORAGE EXTERNAL",
                "INSERT INTO moving VALUES (10, 'small'), (20, '" + "x".repeat(10_000) + "')");
        PostgresSourceTask task = start(db, new ConcurrentHashMap<>(), "topic.prefix", "moves", "snapshot.mode", "never",
                "table.include.list", "public.moving");
        try {
            db.execute("BEGIN; UPDATE moving SET id = 11 WHERE id = 10; UPDATE moving SET id = 21 WHERE id = 20; "
                    + "UPDATE moving SET body = 'b' WHERE id = 11; COMMIT");
            List<SourceRecord> records = pollUntil(task, r -> r.size() >= 4);
            assertThat(records).extracting(r -> ((Struct) r.value()).getString(Envelope.OP) + ((Struct) r.key()).getInt32("id")
                    + (r.headers().lastWithName(EventHeaders.KEY_MOVED_AWAY) != null ? " moved away" : "")
                    + (r.headers().lastWithName(EventHeaders.KEY_CHANGED) != null ? " key changed" : ""))
                    .containsExactly("d10 moved away", "u11 key changed", "u21 key changed", "u11");
            assertThat(records.get(2).headers().lastWithName(EventHeaders.UNCHANGED_TOAST).value()).isEqualTo("body");
            assertThat(((Struct) records.get(0).value()).getStruct(Envelope.BEFORE).getInt32("id")).isEqualTo(10);
            assertThat(records).extracting(r -> (Object) r.sourceOffset().get(ChangeRecords.EVENT)).as("each its own place in the transaction")
                    .containsExactly(1L, 2L, 3L, 4L);
            assertThat(records).extracting(r -> ((Struct) r.value()).getStruct(Envelope.TRANSACTION).getInt64("total_order"))
                    .containsExactly(1L, 2L, 3L, 4L);
        } finally {
            task.stop();
            db.execute("DROP TABLE moving");
        }
    }

    @Test
    void theSlotMovesOnWhileTheSelectedTablesAreIdleAndOthersAreBusy(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE quiet (id int PRIMARY KEY)", "CREATE TABLE noisy (id int, filler text)");
        PostgresSourceTask task = start(db, new ConcurrentHashMap<>(), "topic.prefix", "idle", "snapshot.mode", "never",
                "table.include.list", "public.quiet");
        try {
            long start = slotConfirmed(db, "sluice_idle");
            db.execute("INSERT INTO noisy SELECT g, repeat('w', 500) FROM generate_series(1, 20000) g");
            long written;
            try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text")) {
                rs.next();
                written = Lsn.parse(rs.getString(1));
            }
            long confirmed = start;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (Long.compareUnsigned(confirmed, written) < 0 && System.nanoTime() < deadline) {
                assertThat(poll(task)).as("no change of a selected table").isEmpty();
                task.commit();
                confirmed = slotConfirmed(db, "sluice_idle");
            }
            assertThat(Long.compareUnsigned(confirmed, written)).as("slot confirmed %s, WAL written up to %s (started at %s)",
                    Lsn.format(confirmed), Lsn.format(written), Lsn.format(start)).isGreaterThanOrEqualTo(0);
        } finally {
            task.stop();
        }
    }

    @Test
    void aSlotDroppedUnderAFinishedSnapshotStopsThePipelineInsteadOfLeavingAGap(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE gone (id int PRIMARY KEY)", "INSERT INTO gone VALUES (1)");
        Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        Map<String, String> partition = ServerPartition.of("gone");
        PostgresSourceTask task = start(db, stored, "topic.prefix", "gone", "table.include.list", "public.gone", "snapshot.schema", "none");
        try {
            db.execute("INSERT INTO gone VALUES (2)");
            SourceRecord streamed = null;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (streamed == null && System.nanoTime() < deadline) {
                for (SourceRecord r : poll(task)) {
                    if (r.sourceOffset().containsKey(ChangeRecords.COMMIT_LSN)) {
                        streamed = r;
                    }
                }
            }
            assertThat(streamed).as("a streamed change").isNotNull();
            stored.put(partition, new HashMap<>(cast(streamed.sourceOffset())));
            task.commit();
        } finally {
            task.stop();
        }
        dropSlot(db, "sluice_gone");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> start(db, stored, "topic.prefix", "gone", "table.include.list", "public.gone",
                        "snapshot.schema", "none").stop())
                .hasMessageContaining("Replication slot sluice_gone").hasMessageContaining("is gone")
                .hasMessageContaining("sluice run --fresh");

        // A snapshot taken without a slot cannot be followed by a stream either.
        Map<Map<String, String>, Map<String, Object>> snapshotOnly = new ConcurrentHashMap<>();
        PostgresSourceTask copy = start(db, snapshotOnly, "topic.prefix", "gone", "table.include.list", "public.gone",
                "snapshot.schema", "none", "snapshot.mode", "initial_only");
        try {
            SourceRecord end = null;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (end == null && System.nanoTime() < deadline) {
                for (SourceRecord r : poll(copy)) {
                    if (Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED))) {
                        end = r;
                    }
                }
            }
            assertThat(end).isNotNull();
            snapshotOnly.put(partition, new HashMap<>(cast(end.sourceOffset())));
        } finally {
            copy.stop();
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> start(db, snapshotOnly, "topic.prefix", "gone", "table.include.list",
                        "public.gone", "snapshot.schema", "none").stop())
                .hasMessageContaining("finished without a replication slot").hasMessageContaining("snapshot.mode=never");
    }

    @Test
    void aPublicationDroppedWhileStreamingStopsThePipelineSayingHowToRecover(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE pubgone (id int PRIMARY KEY)", "INSERT INTO pubgone VALUES (1)");
        Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        PostgresSourceTask task = start(db, stored, "topic.prefix", "pubgone", "table.include.list", "public.pubgone", "snapshot.schema",
                "none", "ddl.capture", "false");
        try {
            db.execute("INSERT INTO pubgone VALUES (2)");
            boolean streamed = false;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!streamed && System.nanoTime() < deadline) {
                streamed = poll(task).stream().anyMatch(r -> r.sourceOffset().containsKey(ChangeRecords.COMMIT_LSN));
            }
            assertThat(streamed).as("a streamed change").isTrue();
            db.execute("DROP PUBLICATION sluice_pubgone", "INSERT INTO pubgone VALUES (3)");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> {
                long until = System.nanoTime() + 30_000_000_000L;
                while (System.nanoTime() < until) {
                    poll(task);
                }
            }).hasMessageContaining("Publication sluice_pubgone is gone").hasMessageContaining("sluice run --fresh");
        } finally {
            task.stop();
        }
    }

    /** Polls the task until the records so far are {@code enough}, for up to 30 s (the assertions after say what is missing). */
    private static List<SourceRecord> pollUntil(PostgresSourceTask task, Predicate<List<SourceRecord>> enough) throws InterruptedException {
        List<SourceRecord> records = new ArrayList<>();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!enough.test(records) && System.nanoTime() < deadline) {
            records.addAll(poll(task));
        }
        return records;
    }

    private static void dropSlot(TestDatabase db, String slot) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (Connection c = db.connect(); Statement s = c.createStatement()) {
                s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
                return;
            } catch (java.sql.SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100); // the stopped task's wal sender may hold the slot a moment longer
            }
        }
    }

    private static PostgresSourceTask start(TestDatabase db, Map<Map<String, String>, Map<String, Object>> stored) {
        return start(db, stored, "topic.prefix", "live", "snapshot.mode", "initial", "snapshot.schema", "none",
                "snapshot.batch.bytes", "65536", "snapshot.max.threads", "2");
    }

    private static PostgresSourceTask start(TestDatabase db, Map<Map<String, String>, Map<String, Object>> stored, String... settings) {
        return SourceTasks.start(db, stored, settings);
    }

    private static List<SourceRecord> poll(PostgresSourceTask task) throws InterruptedException {
        return SourceTasks.poll(task);
    }

    /** Transactions of an update, an insert and a delete, until told to stop. */
    private static void write(TestDatabase db, AtomicBoolean writing, AtomicLong transactions) {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            while (writing.get()) {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                s.execute("UPDATE accounts SET version = version + 1 WHERE id = " + r.nextLong(1, 30000));
                s.execute("INSERT INTO accounts VALUES (nextval('account_ids'), 1, 'new')");
                s.execute("DELETE FROM accounts WHERE id = " + r.nextLong(1, 30000));
                c.commit();
                transactions.incrementAndGet();
                Thread.sleep(2);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<Long, Integer> source(TestDatabase db) throws Exception {
        Map<Long, Integer> rows = new HashMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, version FROM accounts")) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getInt(2));
            }
        }
        return rows;
    }

    private static long slotConfirmed(TestDatabase db) throws Exception {
        return slotConfirmed(db, "sluice_live");
    }

    private static long slotConfirmed(TestDatabase db, String slot) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
            return rs.next() ? Lsn.parse(rs.getString(1)) : 0;
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Map<String, ?> offset) {
        return (Map<String, Object>) offset;
    }

    /** Replays events onto id → version, failing on any event that does not follow from the state before it. */
    private static final class Model {
        final Map<Long, Integer> versions = new HashMap<>();
        final List<SourceRecord> received = new ArrayList<>();
        Map<Long, Integer> afterSnapshot;
        int streamed;

        void applyAll(List<SourceRecord> records) {
            for (SourceRecord r : records) {
                if (!(r.value() instanceof Struct value) || !Envelope.isEnvelope(r.valueSchema())) {
                    continue;
                }
                if (!value.getString(Envelope.OP).equals("r")) {
                    if (afterSnapshot == null) {
                        afterSnapshot = new HashMap<>(versions);
                    }
                    received.add(r);
                    streamed++;
                }
                apply(value);
            }
        }

        private void apply(Struct value) {
            String op = value.getString(Envelope.OP);
            Struct after = value.getStruct(Envelope.AFTER);
            Struct old = value.getStruct(Envelope.BEFORE);
            switch (op) {
                case "r" -> assertThat(versions.put(after.getInt64("id"), after.getInt32("version"))).as("snapshot row twice").isNull();
                case "c" -> {
                    assertThat(versions.containsKey(after.getInt64("id"))).as("insert of present row %s", after).isFalse();
                    versions.put(after.getInt64("id"), after.getInt32("version"));
                }
                case "u" -> {
                    Integer was = versions.get(after.getInt64("id"));
                    assertThat(was).as("update of absent row %s", after).isNotNull();
                    assertThat(after.getInt32("version")).as("version after update of %s", after).isEqualTo(was + 1);
                    versions.put(after.getInt64("id"), was + 1);
                }
                case "d" -> assertThat(versions.remove(old.getInt64("id"))).as("delete of absent row %s", old).isNotNull();
                default -> throw new AssertionError("unexpected op " + op);
            }
        }

        /** Forgets every streamed event after {@code durable}, as a restarted pipeline would never have seen them. */
        void rewindTo(SourceRecord durable) {
            int index = received.indexOf(durable);
            List<SourceRecord> kept = new ArrayList<>(received.subList(0, index + 1));
            received.clear();
            received.addAll(kept);
            versions.clear();
            versions.putAll(afterSnapshot);
            kept.forEach(r -> apply((Struct) r.value()));
            streamed = received.size();
        }
    }
}
