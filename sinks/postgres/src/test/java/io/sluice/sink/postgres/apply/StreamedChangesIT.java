package io.sluice.sink.postgres.apply;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Heartbeats;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.postgres.connections.ReplicaRole;
import io.sluice.sink.postgres.schema.MissingColumns;
import io.sluice.sink.postgres.schema.TargetTables;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.testing.network.TcpProxy;
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
 * Streamed changes against a real target: the changes of a batch coalesce per row and go in one
 * transaction that moves the stored position with them; the ledger reports them only once that
 * transaction committed; after a restart, changes at or below the stored position are skipped.
 */
@ExtendWith(PostgresExtension.class)
class StreamedChangesIT {

    private static final String TOPIC = "src.app.t";
    private static final TopicPartition P = new TopicPartition(TOPIC, 0);
    private static final TopicPartition HEARTBEATS = new TopicPartition("src.heartbeats", 0);
    private static final Schema ROW = SchemaBuilder.struct().name("src.app.t.Value").optional()
            .field("id", Schema.INT32_SCHEMA).field("v", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema ENVELOPE = Envelope.schema(TOPIC, ROW);

    private TestDatabase target;
    private PgEndpoint endpoint;
    private TargetTables tables;
    private final OffsetLedger ledger = new OffsetLedger();
    private final ReplaySkips skips = new ReplaySkips();
    private StreamedChanges changes;
    private long offset;

    @BeforeEach
    void start() throws Exception {
        target = TestDatabases.create(StreamedChangesIT.class);
        target.execute("CREATE SCHEMA app", "CREATE TABLE app.t (id int PRIMARY KEY, v text)");
        endpoint = PgEndpoint.parse(target.url());
        tables = new TargetTables(endpoint, "${schema}.${table}", "table.name.format");
        open();
    }

    /** A task's changes, as after a (re)start: nothing known but what the target stores. */
    private void open() {
        TunedBatchSize size = new TunedBatchSize("test", Optional.empty(), 1 << 20);
        AppliedPositions positions = new AppliedPositions("sluice.applied_position");
        ChangeWriter writer = new ChangeWriter(endpoint, positions, null, new ReplicaRole(endpoint, false), 10_000,
                "apply.retry.timeout.ms", size, ledger);
        changes = new StreamedChanges(writer, new TargetHolds(writer, positions, null), new SealPolicy(100), tables, size, ledger, skips,
                new MissingColumns(tables, false, (sql, what) -> { }, () -> { }), false, () -> true);
    }

    @AfterEach
    void stop() throws Exception {
        changes.close();
        tables.close();
        TestDatabases.drop(target);
    }

    @Test
    void aBatchCoalescesPerRowAndCommitsWithItsPositionAndOnlyThenIsReported() throws Exception {
        change(Operation.CREATE, null, row(1, "a"), 100, 1);
        change(Operation.UPDATE, row(1, "a"), row(1, "b"), 100, 2);
        change(Operation.CREATE, null, row(2, "x"), 100, 3);
        change(Operation.DELETE, row(2, "x"), null, 100, 4);
        change(Operation.CREATE, null, row(3, "c"), 200, 1);
        assertThat(ledger.committable(offered())).as("nothing committed yet").isEmpty();
        assertThat(target.queryLong("SELECT count(*) FROM app.t")).isZero();

        Thread.sleep(150);
        changes.durableNow(); // the oldest waited the apply delay: applied in the background, reported once committed
        awaitReported(5);
        assertThat(target.queryText("SELECT string_agg(id || '=' || v, ',' ORDER BY id) FROM app.t")).isEqualTo("1=b,3=c");
        assertThat(target.queryText("SELECT lsn_commit::text || '#' || event FROM sluice.applied_position WHERE source = 'src'"))
                .isEqualTo(new SourcePosition(200, 1).toString());
        assertThat(changes.applied()).isEqualTo(5);
    }

    /**
     * A batch may end inside a source transaction (the apply delay ran out while the rest was on
     * its way): the stored position says whether the target holds its transaction whole, which
     * {@code sluice verify} waits for before it reads the target.
     */
    @Test
    void theStoredPositionSaysWhetherItsTransactionIsWhole() throws Exception {
        change(Operation.CREATE, null, row(1, "a"), 100, 1);
        change(Operation.CREATE, null, row(2, "b"), 100, 2, true);
        Thread.sleep(150);
        awaitReported(2);
        assertThat(target.queryText("SELECT lsn_commit::text || '#' || event || ' ' || whole FROM sluice.applied_position "
                + "WHERE source = 'src'")).isEqualTo(new SourcePosition(100, 2) + " true");

        change(Operation.CREATE, null, row(3, "c"), 200, 1);
        Thread.sleep(150);
        awaitReported(3);
        assertThat(target.queryText("SELECT whole::text FROM sluice.applied_position WHERE source = 'src'")).as("200 goes on").isEqualTo("false");

        change(Operation.CREATE, null, row(4, "d"), 200, 2, true);
        Thread.sleep(150);
        awaitReported(4);
        assertThat(target.queryText("SELECT whole::text FROM sluice.applied_position WHERE source = 'src'")).isEqualTo("true");
    }

    @Test
    void afterARestartChangesAtOrBelowTheStoredPositionAreSkipped() throws Exception {
        change(Operation.CREATE, null, row(1, "a"), 100, 1);
        change(Operation.CREATE, null, row(2, "b"), 100, 2);
        changes.writeAll();
        changes.close();
        open();
        assertThat(changes.appliedAlready("src", new SourcePosition(100, 2))).isTrue();
        assertThat(changes.appliedAlready("src", new SourcePosition(100, 1))).isTrue();
        assertThat(changes.appliedAlready("src", new SourcePosition(100, 3))).isFalse();
        assertThat(changes.appliedAlready("src", new SourcePosition(101, 1))).isFalse();
        assertThat(skips.count()).isEqualTo(2);
    }

    /**
     * A heartbeat on an idle stream is written alone, in a transaction of its own: it is reported
     * durable only once the target holds it, so while the target is away nothing is, however
     * long the sink waits, and once it is back the heartbeat goes in and is reported.
     */
    @Test
    void aHeartbeatIsDurableOnlyOnceTheTargetHoldsIt() throws Exception {
        changes.close();
        try (TcpProxy proxy = new TcpProxy(target.host(), target.port())) {
            endpoint = PgEndpoint.parse(target.url().replace(target.host() + ":" + target.port(), proxy.host() + ":" + proxy.port()));
            open();
            change(Operation.CREATE, null, row(1, "a"), 100, 1);
            changes.writeAll();
            awaitReported(1);

            proxy.cut();
            long committed = 1_700_000_123_456L;
            SinkRecord beat = new SinkRecord("src.heartbeats", 0, null, null, Heartbeats.VALUE_SCHEMA, Heartbeats.value("src", committed, 0x100),
                    0);
            changes.heartbeat(SinkEvent.of(beat));
            ledger.taken(HEARTBEATS, 0);
            Thread.sleep(150);
            for (int i = 0; i < 20; i++) {
                changes.durableNow();
                assertThat(ledger.committable(Map.of(HEARTBEATS, new OffsetAndMetadata(1)))).as("a heartbeat the target does not hold")
                        .isEmpty();
                Thread.sleep(50);
            }
            assertThat(target.queryLong("SELECT count(*) FROM sluice.heartbeats")).isZero();

            proxy.restore();
            long deadline = System.currentTimeMillis() + 30_000;
            while (ledger.committable(Map.of(HEARTBEATS, new OffsetAndMetadata(1))).get(HEARTBEATS) == null) {
                assertThat(System.currentTimeMillis()).as("the heartbeat reported once the target is back").isLessThan(deadline);
                changes.durableNow();
                Thread.sleep(20);
            }
            assertThat(target.queryText("SELECT source || '@' || (extract(epoch FROM committed_at) * 1000)::bigint FROM sluice.heartbeats"))
                    .isEqualTo("src@" + committed);
            // An older heartbeat (sent again after a restart) never moves it back.
            changes.heartbeat(SinkEvent.of(new SinkRecord("src.heartbeats", 0, null, null, Heartbeats.VALUE_SCHEMA,
                    Heartbeats.value("src", committed - 5_000, 0x80), 1)));
            changes.writeAll();
            assertThat(target.queryText("SELECT (extract(epoch FROM committed_at) * 1000)::bigint::text FROM sluice.heartbeats"))
                    .isEqualTo(Long.toString(committed));
        }
    }

    private void change(Operation op, Struct before, Struct after, long lsn, long event) {
        change(op, before, after, lsn, event, false);
    }

    /** @param ends the change is its transaction's last (the source's header says so) */
    private void change(Operation op, Struct before, Struct after, long lsn, long event, boolean ends) {
        SourceInfo source = new SourceInfo("src", "src", "app", "t", 1_700_000_000_000_000L, SourceInfo.Snapshot.FALSE, lsn, lsn, null);
        Struct value = Envelope.create(ENVELOPE, op, before, after, source, 1_700_000_000_000_000L);
        value.put(Envelope.TRANSACTION, Envelope.transaction(lsn, lsn, event, event));
        SinkRecord record = new SinkRecord(TOPIC, 0, null, null, ENVELOPE, value, offset);
        if (ends) {
            record.headers().addBoolean(EventHeaders.TRANSACTION_END, true);
        }
        changes.change(record, record.topic(), value, op, value.getStruct(Envelope.SOURCE), SourcePosition.of(value));
        ledger.taken(P, offset++);
    }

    private static Struct row(int id, String v) {
        return new Struct(ROW).put("id", id).put("v", v);
    }

    private Map<TopicPartition, OffsetAndMetadata> offered() {
        return Map.of(P, new OffsetAndMetadata(offset));
    }

    private void awaitReported(long upTo) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            changes.durableNow();
            OffsetAndMetadata reported = ledger.committable(offered()).get(P);
            if (reported != null && reported.offset() == upTo) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("not reported durable: " + ledger.committable(offered()));
    }
}
