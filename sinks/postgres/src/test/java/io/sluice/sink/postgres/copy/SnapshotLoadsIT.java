package io.sluice.sink.postgres.copy;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.BatchSizeTuner;
import io.sluice.sink.core.batch.RememberedSizes;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.batch.TunerSettings;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.postgres.schema.MissingColumns;
import io.sluice.sink.postgres.schema.TargetTables;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The snapshot's load state against a real target: rows wait in their table's batch until it is
 * full or sent, and the ledger reports none of them until the COPY holding them has committed
 * (epochs); batches that fill go on their own; a table created for the load goes in frozen, in
 * one transaction that the ledger's hold keeps unreported until it commits with the table's last
 * rows; settled only once nothing is gathered, loading or held.
 */
@ExtendWith(PostgresExtension.class)
class SnapshotLoadsIT {

    private static final String TOPIC = "src.app.t";
    private static final TopicPartition P = new TopicPartition(TOPIC, 0);
    private static final Schema ROW = SchemaBuilder.struct().name("src.app.t.Value").optional()
            .field("id", Schema.INT32_SCHEMA).field("v", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema ENVELOPE = Envelope.schema(TOPIC, ROW);

    private TestDatabase target;
    private TargetTables tables;
    private CopyLoader loader;
    private final OffsetLedger ledger = new OffsetLedger();
    private SnapshotLoads loads;

    @BeforeEach
    void start() throws Exception {
        target = TestDatabases.create(SnapshotLoadsIT.class);
        target.execute("CREATE SCHEMA app", "CREATE TABLE app.t (id int, v text)");
        tables = new TargetTables(PgEndpoint.parse(target.url()), "${schema}.${table}", "table.name.format");
        open(new TunedBatchSize("test", Optional.empty(), 16 * 1024), 2, 1 << 20);
    }

    @AfterEach
    void stop() throws Exception {
        loads.close();
        tables.close();
        TestDatabases.drop(target);
    }

    @Test
    void rowsAreReportedOnlyOnceTheCopyHoldingThemHasCommitted() throws Exception {
        for (int i = 0; i < 10; i++) {
            load(i, "small");
        }
        loads.confirmEpochs();
        assertThat(committable()).as("rows still in their batch").isEmpty();
        assertThat(loads.settled()).isFalse();
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).isZero();

        loads.sendAll();
        loads.awaitSent();
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).isEqualTo(10);
        loads.confirmEpochs();
        assertThat(committable()).containsEntry(P, new OffsetAndMetadata(10));
        assertThat(loads.settled()).isTrue();
        assertThat(loads.rowsLoaded()).isEqualTo(10);
    }

    @Test
    void fullBatchesGoOnTheirOwnAndAPartialOneKeepsItsEpochUnconfirmed() throws Exception {
        String wide = "x".repeat(1_000);
        for (int i = 0; i < 100; i++) {
            load(i, wide); // about 100 kB: several batches of 16 kB fill and go
        }
        loads.awaitSent();
        long copied = target.queryLong("SELECT count(*) FROM app.t");
        assertThat(copied).isBetween(1L, 99L);
        loads.confirmEpochs();
        // Everything was taken in one epoch, and its last rows wait in a partial batch: nothing may be reported.
        assertThat(committable()).isEmpty();
        load(100, wide); // taken in the next epoch
        loads.sendAll();
        loads.awaitSent();
        loads.confirmEpochs();
        assertThat(committable()).containsEntry(P, new OffsetAndMetadata(101));
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).isEqualTo(101);
    }

    @Test
    void aTableCreatedForTheLoadGoesInFrozenAndIsHeldUntilItCommits() throws Exception {
        loads.freezeCreatedTables(true);
        for (int i = 0; i < 5; i++) {
            load(i, "frozen");
        }
        String[] t = tables.resolve(TOPIC, "app", "t");
        loads.sendAll();
        loads.awaitSent();
        assertThat(loader.isFrozen("app.t")).isTrue();
        loads.confirmEpochs();
        // Its COPY is done but its transaction is open: the hold keeps the partition at its first row.
        assertThat(committable()).containsEntry(P, new OffsetAndMetadata(0));
        assertThat(loads.settled()).isFalse();
        // One open transaction emptied the table and copied into it: it holds the table's lock until it commits.
        assertThat(target.queryLong("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                + "WHERE c.relname = 't' AND l.mode = 'AccessExclusiveLock' AND l.granted")).isEqualTo(1);

        loads.tableDone(t).join();
        long deadline = System.currentTimeMillis() + 10_000;
        while (!ledger.holdsNothing() && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        assertThat(ledger.holdsNothing()).isTrue();
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).isEqualTo(5);
        assertThat(committable()).containsEntry(P, new OffsetAndMetadata(5));
    }

    @Test
    void batchesOfTheBuffersShareAllGoAtOnceThoughEachPassesItsSizeByARow() throws Exception {
        // Two streams and a buffer of two 16 kB batches; each batch closes a row past 16 kB. Counted
        // at their own bytes, the second would wait for the first (the buffer's share of a stream
        // then left one stream idle: four 32 MB batches went three at a time).
        loads.close();
        TunedBatchSize size = new TunedBatchSize("test", Optional.empty(), 16 * 1024);
        open(size, 2, 2 * 16 * 1024);
        String wide = "x".repeat(1_000);
        try (Connection lock = lockTable()) { // both COPYs wait here, holding their batches
            CompletableFuture<Void> loading = loadInBackground(34, wide, new AtomicInteger());
            assertThat(copiesWaitingForTheLock(2)).as("COPYs under way at once").isEqualTo(2);
            assertThat(loading).as("two full batches taken without waiting").succeedsWithin(Duration.ofSeconds(10));
            lock.rollback();
        }
        loads.sendAll();
        loads.awaitSent();
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).isEqualTo(34);
    }

    @Test
    void aFullBatchWaitingForAStreamGrowsToASizeTheTunerMovesTo() throws Exception {
        loads.close();
        TunedBatchSize size = new TunedBatchSize("test", Optional.of(TunerSettings.between(16 * 1024, 64 * 1024,
                16 * 1024)), 16 * 1024);
        open(size, 1, 1 << 20);
        String wide = "x".repeat(1_000);
        AtomicInteger loaded = new AtomicInteger();
        try (Connection lock = lockTable()) { // the first batch's COPY waits here, holding the one stream
            CompletableFuture<Void> loading = loadInBackground(40, wide, loaded);
            long deadline = System.currentTimeMillis() + 10_000;
            while (loaded.get() < 33 && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(300);
            assertThat(loaded.get()).as("rows taken before the second full batch waits for the stream").isEqualTo(33);
            // The tuner moves on meanwhile (a warm-up batch and one counted at 16 kB): its climb goes to 64 kB.
            size.record(16 * 1024, 16 * 1024, 1_000_000, TunedBatchSize.Closing.FULL);
            size.record(16 * 1024, 16 * 1024, 1_000_000, TunedBatchSize.Closing.FULL);
            assertThat(size.bytes()).isEqualTo(64 * 1024);
            lock.rollback();
            assertThat(loading).succeedsWithin(Duration.ofSeconds(10));
        }
        loads.awaitSent();
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).as("only the first batch went; the second grows towards 64 kB").isEqualTo(17);
        loads.sendAll();
        loads.awaitSent();
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).isEqualTo(40);
    }

    @Test
    void theStreamsFirstBatchesAreTheClimbsSizesSideBySide() throws Exception {
        // Four streams, a climb from 16 kB: the first four batches are 16, 64, 256 kB and 1 MB (the
        // largest), all under way at once; the fifth fills to the largest and waits for a stream.
        loads.close();
        TunedBatchSize size = new TunedBatchSize("test", Optional.of(TunerSettings.between(16 * 1024, 1 << 20, 16 * 1024)), 16 * 1024,
                RememberedSizes.NONE, null, 4);
        open(size, 4, 8 << 20);
        String wide = "x".repeat(1_000);
        int rows = 4_000;
        AtomicInteger loaded = new AtomicInteger();
        try (Connection lock = lockTable()) { // every COPY waits here, holding its stream
            CompletableFuture<Void> loading = loadInBackground(rows, wide, loaded);
            assertThat(copiesWaitingForTheLock(4)).as("COPYs under way at once").isEqualTo(4);
            int before = -1;
            while (loaded.get() != before) {
                before = loaded.get();
                Thread.sleep(300);
            }
            // Each row is about 1 kB: 16 + 64 + 256 + 1024 rows went, and about 1024 more wait for a stream.
            assertThat(loaded.get()).as("rows taken while every stream is busy").isBetween(2_300, 2_500);
            assertThat(loading).isNotDone();
            lock.rollback();
            assertThat(loading).succeedsWithin(Duration.ofSeconds(30));
        }
        loads.sendAll();
        loads.awaitSent();
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).isEqualTo(rows);
        assertThat(size.path()).as("the climb took the round's sizes in order").extracting(BatchSizeTuner.Step::bytes)
                .startsWith(16L * 1024, 64L * 1024);
    }

    /** A loader of {@code streams} COPY streams and a load buffer of {@code buffer} bytes, batches sized by {@code size}. */
    private void open(TunedBatchSize size, int streams, long buffer) {
        loader = new CopyLoader(PgEndpoint.parse(target.url()), streams, false, buffer, size, null);
        loads = new SnapshotLoads(tables, loader, size, ledger, new MissingColumns(tables, false, loader::execute, () -> { }), false);
    }

    /** A transaction holding the table's strongest lock: every COPY into it waits, holding its stream, until it ends. */
    private Connection lockTable() throws Exception {
        Connection lock = target.connect();
        lock.setAutoCommit(false);
        try (Statement s = lock.createStatement()) {
            s.execute("LOCK TABLE app.t IN ACCESS EXCLUSIVE MODE");
        }
        return lock;
    }

    /** Loads rows {@code 0..count-1} on another thread, counting each once it is taken. */
    private CompletableFuture<Void> loadInBackground(int count, String v, AtomicInteger loaded) {
        return CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < count; i++) {
                    load(i, v);
                    loaded.incrementAndGet();
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** How many COPYs wait for a lock on the target, once that many do (or 10 s passed). */
    private long copiesWaitingForTheLock(int expected) throws Exception {
        long deadline = System.currentTimeMillis() + 10_000;
        long copying = 0;
        while (copying < expected && System.currentTimeMillis() < deadline) {
            copying = target.queryLong("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY %' AND wait_event_type = 'Lock'");
            Thread.sleep(20);
        }
        return copying;
    }

    private void load(int offset, String v) throws InterruptedException {
        SourceInfo source = new SourceInfo("src", "src", "app", "t", 1_700_000_000_000_000L, SourceInfo.Snapshot.TRUE, 1L, 1L, null);
        Struct value = Envelope.create(ENVELOPE, Operation.READ, null, new Struct(ROW).put("id", offset).put("v", v), source,
                1_700_000_000_000_000L);
        SinkRecord record = new SinkRecord(TOPIC, 0, null, null, ENVELOPE, value, offset);
        loads.row(record, value, value.getStruct(Envelope.SOURCE));
        ledger.taken(P, offset);
    }

    private Map<TopicPartition, OffsetAndMetadata> committable() {
        return ledger.committable(Map.of(P, new OffsetAndMetadata(Long.MAX_VALUE)));
    }
}
