package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.postgres.Lsn;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A snapshot stopped midway and started again while a workload writes: the changes the slot
 * replays from its own older position must not add to the target what the rows read again
 * already hold. A keyless table shows it at once: its rows carry a unique number, so a row
 * sent twice is an error of the model, not a harmless upsert.
 */
@ExtendWith(PostgresExtension.class)
class InterruptedSnapshotIT {

    @Test
    void aSnapshotStoppedBeforeAnyOfItWasStoredStartsOverOnANewSlot() throws Exception {
        TestDatabase db = TestDatabases.create(InterruptedSnapshotIT.class);
        try {
            tables(db);
            Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            try (Workload workload = new Workload(db, "restart")) {
                PostgresSourceTask task = start(db, stored, "restart");
                Model model = new Model();
                while (model.events.size() + model.accounts.size() < 100) {
                    model.applyAll(poll(task));
                }
                long firstSlot = slotConfirmed(db, "sluice_restart");
                task.stop();
                workload.awaitMore(200);

                // Nothing was stored: the target starts over, and so does the slot.
                model = new Model();
                task = start(db, stored, "restart");
                try {
                    assertThat(Long.compareUnsigned(slotConfirmed(db, "sluice_restart"), firstSlot)).as("slot made again").isPositive();
                    finish(db, task, model, workload, "restart");
                } finally {
                    task.stop();
                }
            }
        } finally {
            TestDatabases.drop(db);
        }
    }

    @Test
    void aSnapshotResumedUnderASnapshotOfItsOwnSendsNoChangeTwice() throws Exception {
        TestDatabase db = TestDatabases.create(InterruptedSnapshotIT.class);
        try {
            tables(db);
            Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            try (Workload workload = new Workload(db, "resume")) {
                PostgresSourceTask task = start(db, stored, "resume");
                Model model = new Model();
                List<SourceRecord> received = new java.util.ArrayList<>();
                while (model.events.size() + model.accounts.size() < 12_000) {
                    List<SourceRecord> batch = poll(task);
                    received.addAll(batch);
                    model.applyAll(batch);
                }
                // The runtime stored the offsets of what the target made durable: the first two thirds, a table partly.
                Model durable = new Model();
                List<SourceRecord> kept = received.subList(0, received.size() * 2 / 3);
                durable.applyAll(kept);
                for (SourceRecord r : kept) {
                    stored.put(cast(r.sourcePartition()), new HashMap<>(cast(r.sourceOffset())));
                }
                task.stop();
                workload.awaitMore(200);

                task = start(db, stored, "resume");
                try {
                    finish(db, task, durable, workload, "resume");
                    assertThat(durable.truncatedEvents).as("the keyless table, partly copied, was emptied and copied again").isTrue();
                } finally {
                    task.stop();
                }
            }
        } finally {
            TestDatabases.drop(db);
        }
    }

    /** Polls until the snapshot is in and the stream carried the workload's changes, then stops the workload and compares. */
    private static void finish(TestDatabase db, PostgresSourceTask task, Model model, Workload workload, String name) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (model.streamed < 500) {
            model.applyAll(poll(task));
            assertThat(System.nanoTime()).as("500 streamed changes within 120 s").isLessThan(deadline);
        }
        workload.close();
        db.execute("INSERT INTO events VALUES (-1, 'end')");
        while (!model.events.contains(-1L)) {
            model.applyAll(poll(task));
            assertThat(System.nanoTime()).as("the last insert within 120 s").isLessThan(deadline);
        }
        assertThat(model.events).as("events (no key): every row once").isEqualTo(events(db));
        assertThat(model.accounts).as("accounts").isEqualTo(accounts(db));
    }

    private static void tables(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE events (n bigint NOT NULL, note text)",
                "INSERT INTO events SELECT g, repeat('e', 200) FROM generate_series(1, 20000) g",
                "CREATE SEQUENCE event_numbers START 1000000",
                "CREATE TABLE accounts (id bigint PRIMARY KEY, version int NOT NULL, note text)",
                "INSERT INTO accounts SELECT g, 1, repeat('a', 200) FROM generate_series(1, 10000) g");
    }

    /** Inserts events and updates accounts, a transaction every few milliseconds. */
    private static final class Workload implements AutoCloseable {
        private final AtomicBoolean writing = new AtomicBoolean(true);
        private final java.util.concurrent.atomic.AtomicLong transactions = new java.util.concurrent.atomic.AtomicLong();
        private final AtomicReference<Exception> failure = new AtomicReference<>();
        private final Thread thread;

        Workload(TestDatabase db, String name) {
            thread = new Thread(() -> {
                try (Connection c = db.connect(); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    while (writing.get()) {
                        ThreadLocalRandom r = ThreadLocalRandom.current();
                        s.execute("INSERT INTO events VALUES (nextval('event_numbers'), 'new')");
                        s.execute("UPDATE accounts SET version = version + 1 WHERE id = " + r.nextLong(1, 10001));
                        c.commit();
                        transactions.incrementAndGet();
                        Thread.sleep(1);
                    }
                } catch (Exception e) {
                    failure.set(e);
                }
            }, "workload-" + name);
            thread.start();
        }

        void awaitMore(long count) throws InterruptedException {
            long until = transactions.get() + count;
            while (transactions.get() < until && failure.get() == null) {
                Thread.sleep(5);
            }
        }

        @Override
        public void close() throws Exception {
            writing.set(false);
            thread.join();
            if (failure.get() != null) {
                throw failure.get();
            }
        }
    }

    /**
     * The target as the events would make it: keyless events as a set of their unique numbers
     * (a row sent twice fails), accounts by key (a resumed snapshot and the replay after it
     * upsert, so repeats of a keyed row are allowed; only the end state counts).
     */
    private static final class Model {
        final Set<Long> events = new HashSet<>();
        final Map<Long, Integer> accounts = new HashMap<>();
        boolean truncatedEvents;
        int streamed;

        void applyAll(List<SourceRecord> records) {
            for (SourceRecord r : records) {
                if (!(r.value() instanceof Struct value) || !Envelope.isEnvelope(r.valueSchema())) {
                    continue;
                }
                String op = value.getString(Envelope.OP);
                String table = value.getStruct(Envelope.SOURCE).getString("table");
                Struct after = value.getStruct(Envelope.AFTER);
                Struct before = value.getStruct(Envelope.BEFORE);
                boolean snapshot = !"false".equals(value.getStruct(Envelope.SOURCE).getString("snapshot"));
                if (!snapshot) {
                    streamed++;
                }
                if (table.equals("events")) {
                    switch (op) {
                        case "r", "c" -> assertThat(events.add(after.getInt64("n"))).as("event %s sent twice (%s)", after.getInt64("n"),
                                snapshot ? "snapshot" : "stream").isTrue();
                        case "t" -> {
                            events.clear();
                            truncatedEvents = true;
                        }
                        default -> throw new AssertionError("unexpected op " + op + " on events");
                    }
                } else {
                    switch (op) {
                        case "r", "c", "u" -> accounts.put(after.getInt64("id"), after.getInt32("version"));
                        case "d" -> accounts.remove(before.getInt64("id"));
                        case "t" -> accounts.clear();
                        default -> throw new AssertionError("unexpected op " + op);
                    }
                }
            }
        }
    }

    private static Set<Long> events(TestDatabase db) throws Exception {
        Set<Long> rows = new HashSet<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT n FROM events")) {
            while (rs.next()) {
                rows.add(rs.getLong(1));
            }
        }
        return rows;
    }

    private static Map<Long, Integer> accounts(TestDatabase db) throws Exception {
        Map<Long, Integer> rows = new HashMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, version FROM accounts")) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getInt(2));
            }
        }
        return rows;
    }

    private static long slotConfirmed(TestDatabase db, String slot) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
            return rs.next() ? Lsn.parse(rs.getString(1)) : 0;
        }
    }

    private static PostgresSourceTask start(TestDatabase db, Map<Map<String, String>, Map<String, Object>> stored, String name) {
        return SourceTasks.start(db, stored, "topic.prefix", name, "snapshot.mode", "initial", "snapshot.schema", "none",
                "snapshot.batch.bytes", "65536", "snapshot.max.threads", "2", "snapshot.queue.bytes", "1048576");
    }

    private static List<SourceRecord> poll(PostgresSourceTask task) throws InterruptedException {
        return SourceTasks.poll(task);
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Map<K, V> cast(Map<String, ?> map) {
        return (Map<K, V>) map;
    }
}
