package io.sluice.sink.postgres.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.postgres.connections.ReplicaRole;
import io.sluice.sink.postgres.schema.MissingColumns;
import io.sluice.sink.postgres.schema.TargetTables;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.postgres.state.KafkaOffsets;
import io.sluice.testing.network.TcpProxy;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A commit whose reply never comes: the target committed the batch, the connection died before
 * the sink heard so. Trying the batch again would apply it twice (a keyless table gets its rows
 * twice); the sink reads its position (or Kafka offsets) on the new connection first and finds
 * the batch there. A proxy in front of the target lets the COMMIT through and loses the reply.
 */
@ExtendWith(PostgresExtension.class)
class CommitInDoubtIT {

    private static final String TOPIC = "src.app.k";
    private static final Schema ROW = SchemaBuilder.struct().name("src.app.k.Value").optional()
            .field("id", Schema.INT32_SCHEMA).field("v", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema ENVELOPE = Envelope.schema(TOPIC, ROW);
    /** The extended protocol's Parse of the statement pgjdbc commits with, named or not. */
    private static final byte[] COMMIT = "\0COMMIT\0".getBytes(StandardCharsets.US_ASCII);

    private TestDatabase target;
    private TcpProxy proxy;
    private TargetTables tables;
    private StreamedChanges changes;
    private long offset;

    @BeforeEach
    void start() throws Exception {
        target = TestDatabases.create(CommitInDoubtIT.class);
        target.execute("CREATE SCHEMA app", "CREATE TABLE app.k (id int, v text)");
        proxy = new TcpProxy(target.host(), target.port());
    }

    private void open(boolean byKafkaOffset) {
        PgEndpoint endpoint = PgEndpoint.parse("postgresql://" + target.user() + ":" + target.password() + "@" + proxy.host() + ":"
                + proxy.port() + "/" + target.name());
        tables = new TargetTables(endpoint, "${schema}.${table}", "table.name.format");
        TunedBatchSize size = new TunedBatchSize("test", Optional.empty(), 1 << 20);
        AppliedPositions positions = new AppliedPositions("sluice.applied_position");
        KafkaOffsets offsets = byKafkaOffset ? new KafkaOffsets("sluice", "doubt") : null;
        OffsetLedger ledger = new OffsetLedger();
        ChangeWriter writer = new ChangeWriter(endpoint, positions, offsets, new ReplicaRole(endpoint, false), 30_000,
                "apply.retry.timeout.ms", size, ledger);
        changes = new StreamedChanges(writer, new TargetHolds(writer, positions, offsets), new SealPolicy(100), tables, size, ledger,
                new ReplaySkips(), new MissingColumns(tables, false, (sql, what) -> { }, () -> { }), byKafkaOffset, () -> true);
    }

    @AfterEach
    void stop() throws Exception {
        if (changes != null) {
            changes.close();
            tables.close();
        }
        proxy.close();
        TestDatabases.drop(target);
    }

    @ParameterizedTest(name = "kept by Kafka offset: {0}")
    @ValueSource(booleans = {false, true})
    void aBatchWhoseCommitReplyWasLostIsNotAppliedAgain(boolean byKafkaOffset) throws Exception {
        open(byKafkaOffset);
        insert(1, 100, 1);
        changes.writeAll(); // opens the apply connection; the next COMMIT is the batch's
        CountDownLatch lost = proxy.loseReplyTo(COMMIT, 300);
        insert(2, 200, 1);
        insert(3, 200, 2);
        changes.writeAll();
        assertThat(lost.await(0, TimeUnit.SECONDS)).as("the reply to the batch's COMMIT was lost").isTrue();
        insert(4, 300, 1);
        changes.writeAll();

        assertThat(target.queryText("SELECT string_agg(id::text, ',' ORDER BY id) FROM app.k")).isEqualTo("1,2,3,4");
        if (!byKafkaOffset) {
            assertThat(target.queryText("SELECT lsn_commit::text || '#' || event FROM sluice.applied_position WHERE source = 'src'"))
                    .isEqualTo(new SourcePosition(300, 1).toString());
        }
    }

    @ParameterizedTest(name = "kept by Kafka offset: {0}")
    @ValueSource(booleans = {false, true})
    void aBatchLostOnAConnectionTheTargetStillHoldsIsAppliedOnce(boolean byKafkaOffset) throws Exception {
        open(byKafkaOffset);
        insert(1, 100, 1);
        changes.writeAll();
        // The batch's statements reach the target, its session stays open in the transaction (a partition the
        // target has not noticed), holding the position row (or the offsets' rows): the sink ends that session before it
        // looks, and takes no lock on its own tables that the session would hold up.
        CountDownLatch lost = proxy.loseReplyTo((byKafkaOffset ? "kafka_offsets" : "applied_position").getBytes(StandardCharsets.US_ASCII),
                300, true);
        insert(2, 200, 1);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> changes.writeAll());
        assertThat(lost.await(0, TimeUnit.SECONDS)).as("the batch's reply was lost").isTrue();
        insert(3, 300, 1);
        changes.writeAll();

        assertThat(target.queryText("SELECT string_agg(id::text, ',' ORDER BY id) FROM app.k")).isEqualTo("1,2,3");
        assertThat(target.queryLong("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in%'"))
                .as("the lost session was ended").isZero();
    }

    @Test
    void aSchemaChangeWhoseCommitReplyWasLostIsNotRunAgain() throws Exception {
        open(false);
        insert(1, 100, 1);
        changes.writeAll();
        CountDownLatch lost = proxy.loseReplyTo(COMMIT, 300);
        // Run again, this fails: the column exists.
        changes.alone("src", new SourcePosition(200, 1), Map.of(), "adding column w to app.k", c -> {
            try (var s = c.createStatement()) {
                s.execute("ALTER TABLE app.k ADD COLUMN w int");
            }
        });
        assertThat(lost.await(0, TimeUnit.SECONDS)).as("the reply to the schema change's COMMIT was lost").isTrue();
        assertThat(target.queryLong("SELECT count(*) FROM information_schema.columns WHERE table_name = 'k' AND column_name = 'w'"))
                .isEqualTo(1);
        assertThat(changes.appliedAlready("src", new SourcePosition(200, 1))).isTrue();
    }

    private void insert(int id, long lsn, long event) {
        SourceInfo source = new SourceInfo("src", "src", "app", "k", 1_700_000_000_000_000L, SourceInfo.Snapshot.FALSE, lsn, lsn, null);
        Struct value = Envelope.create(ENVELOPE, Operation.CREATE, null, new Struct(ROW).put("id", id).put("v", "r" + id), source,
                1_700_000_000_000_000L);
        value.put(Envelope.TRANSACTION, Envelope.transaction(lsn, lsn, event, event));
        SinkRecord record = new SinkRecord(TOPIC, 0, null, null, ENVELOPE, value, offset++);
        changes.change(record, record.topic(), value, Operation.CREATE, value.getStruct(Envelope.SOURCE), SourcePosition.of(value));
    }
}
