package io.sluice.sink.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.testing.kafka.RecordingSinkContext;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The webhook sink's outbox writer and its ledger, driven through the sink task against a real
 * state database, with a model of a Kafka topic and of the source. The topic begins with a
 * snapshot's rows (which carry no source position), then streamed changes. Invariant: however
 * puts, Connect's offset commits (which do not wait), flushes, crashes of the task and
 * rebalances (Kafka hands out again what was not committed, with the same offsets, unless the
 * task asked to go on from further), and restarts of the source (it sends again what follows its
 * last stored offset, under new Kafka offsets) interleave, every offset the sink confirms is one
 * whose change the outbox already holds, and in the end the outbox holds every snapshot row and
 * change exactly once, in the source's order. A row written twice would reach subscribers again
 * after the newer changes of its row.
 */
class OutboxRestartsIT {

    private static final String TOPIC = "src.app.k";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Schema KEY = SchemaBuilder.struct().name("src.app.k.Key").field("id", Schema.INT32_SCHEMA).build();
    private static final Schema ROW = SchemaBuilder.struct().name("src.app.k.Value").optional()
            .field("id", Schema.INT32_SCHEMA).field("n", Schema.INT32_SCHEMA).build();
    private static final Schema ENVELOPE = Envelope.schema(TOPIC, ROW);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static TestDatabase state;

    /**
     * What happens next: changes put, offset commits (as many as {@code count}), a flush, a crash
     * of the task, a rebalance (the partition closed on one task and opened on a new one), a
     * restart of the source, an empty put. After a crash or a rebalance the consumer goes on from
     * where the new task asked when {@code count} is 1, from the committed offset when it is 0
     * (as if it had fetched before the task asked).
     */
    enum Kind { PUT, COMMIT_OFFSETS, FLUSH, CRASH, REBALANCE, SOURCE_RESTART, IDLE }

    record Step(Kind kind, int count) {
    }

    @BeforeContainer
    static void start() throws Exception {
        state = TestDatabases.create(OutboxRestartsIT.class);
    }

    @AfterContainer
    static void stop() throws Exception {
        if (state != null) {
            TestDatabases.drop(state);
        }
    }

    /**
     * How the writer gathers: its batch size in bytes and how long a batch may wait. A long wait
     * keeps changes gathering in memory while a batch is written, where confirming them too early would show.
     */
    record Gathering(long batchBytes, long delayMillis) {
    }

    @Property(tries = 40)
    void theOutboxHoldsEveryChangeOnceInOrderAndNothingIsConfirmedBeforeItIsThere(@ForAll("gatherings") Gathering gathering,
                                                                                  @ForAll("steps") List<Step> steps,
                                                                                  @ForAll @IntRange(min = 0, max = 60) int snapshotRows)
            throws Exception {
        state.execute("DROP SCHEMA IF EXISTS sluice CASCADE");
        Map<String, String> props = Pipes.sinkProps(state, "name", "outbox-restarts", "outbox.batch.max.bytes",
                Long.toString(gathering.batchBytes()), "outbox.max.delay.ms", Long.toString(gathering.delayMillis()));
        /* The topic: each record is the number of the change it carries (changes are numbered from 0 in the source's order). */
        List<Integer> log = new ArrayList<>();
        long committed = 0; // the consumer group's offset: where a new task starts reading
        int nextChange = 0; // the next change the source makes
        int putUpTo = 0; // the task has been handed log[0, putUpTo)
        RecordingSinkContext seeks = new RecordingSinkContext(java.util.Set.of(PARTITION));
        WebhookSinkTask task = started(props, seeks);
        try {
            for (Step step : steps) {
                switch (step.kind()) {
                    case PUT -> {
                        for (int i = 0; i < step.count(); i++) {
                            log.add(nextChange++);
                        }
                        putUpTo = put(task, log, putUpTo, snapshotRows);
                    }
                    case IDLE -> task.put(List.of());
                    case COMMIT_OFFSETS -> {
                        // A worker asks again and again between puts; a batch written meanwhile settles what was marked.
                        for (int i = 0; i < step.count(); i++) {
                            committed = confirmed(task, log, putUpTo, committed);
                            Thread.sleep(2);
                        }
                    }
                    case FLUSH -> {
                        task.flush(Map.of(PARTITION, new OffsetAndMetadata(putUpTo)));
                        committed = confirmed(task, log, putUpTo, committed);
                    }
                    case CRASH, REBALANCE -> {
                        if (step.kind() == Kind.REBALANCE) {
                            // The worker commits what the task confirms, then closes the partition on it.
                            committed = confirmed(task, log, putUpTo, committed);
                            task.close(List.of(PARTITION));
                        }
                        task.stop();
                        seeks.rewound.clear();
                        task = started(props, seeks);
                        Long asked = seeks.rewound.get(PARTITION);
                        int from = step.count() == 1 && asked != null ? (int) (long) asked : (int) committed;
                        // It may be below the committed offset (records after it that needed no row, or were sent again by the
                        // source, are not written down): those are skipped again.
                        assertThat(asked == null ? 0 : asked).as("the offset the new task goes on from").isLessThanOrEqualTo(putUpTo);
                        putUpTo = put(task, log, from, snapshotRows);
                    }
                    case SOURCE_RESTART -> {
                        // The source's stored offset is that of the last change whose record was committed: it sends what follows.
                        // Within its snapshot it goes on streaming only once the snapshot is done (not modelled here).
                        int resumeAt = committed == 0 ? 0 : log.get((int) committed - 1) + 1;
                        if (resumeAt < snapshotRows) {
                            break;
                        }
                        for (int change = resumeAt; change < nextChange; change++) {
                            log.add(change);
                        }
                        putUpTo = put(task, log, putUpTo, snapshotRows);
                    }
                }
            }
            task.flush(Map.of(PARTITION, new OffsetAndMetadata(putUpTo)));
            assertThat(confirmed(task, log, putUpTo, committed)).as("everything put is confirmed after a flush").isEqualTo(putUpTo);
        } finally {
            task.stop();
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < nextChange; i++) {
            expected.add(i);
        }
        assertThat(outbox()).as("the outbox after " + steps).isEqualTo(expected);
    }

    @Provide
    Arbitrary<Gathering> gatherings() {
        return net.jqwik.api.Combinators.combine(Arbitraries.of(1_024L, 2_048L, 1L << 20), Arbitraries.of(0L, 5L, 60_000L))
                .as(Gathering::new);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(1, 40).map(n -> new Step(Kind.PUT, n))),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(1, 3).map(n -> new Step(Kind.COMMIT_OFFSETS, n))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Step(Kind.FLUSH, 0))),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 1).map(n -> new Step(Kind.CRASH, n))),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 1).map(n -> new Step(Kind.REBALANCE, n))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Step(Kind.SOURCE_RESTART, 0))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Step(Kind.IDLE, 0))));
        return step.list().ofMinSize(1).ofMaxSize(25);
    }

    /** A task as a worker starts one: initialized, started, given the partition. */
    private static WebhookSinkTask started(Map<String, String> props, RecordingSinkContext seeks) {
        WebhookSinkTask task = new WebhookSinkTask();
        task.initialize(seeks);
        task.start(props);
        task.open(List.of(PARTITION));
        return task;
    }

    /** Puts the log's records from {@code from} on, in puts of up to seven; returns the end of the log. */
    private static int put(WebhookSinkTask task, List<Integer> log, int from, int snapshotRows) {
        List<SinkRecord> batch = new ArrayList<>();
        for (int offset = from; offset < log.size(); offset++) {
            int change = log.get(offset);
            batch.add(change < snapshotRows ? snapshotRow(change, offset) : record(change, offset));
            if (batch.size() == 7) {
                task.put(batch);
                batch = new ArrayList<>();
            }
        }
        task.put(batch);
        return log.size();
    }

    /**
     * Asks the task what it confirms (as a worker does between flushes, without waiting), checks
     * that the outbox holds every change of the records below it, and returns the new committed offset.
     */
    private static long confirmed(WebhookSinkTask task, List<Integer> log, int putUpTo, long committed) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> answer = task.preCommit(Map.of(PARTITION, new OffsetAndMetadata(putUpTo)));
        OffsetAndMetadata upTo = answer.get(PARTITION);
        if (upTo == null || upTo.offset() <= committed) {
            return committed;
        }
        assertThat(upTo.offset()).as("confirmed past what was put").isLessThanOrEqualTo(putUpTo);
        List<Integer> held = outbox();
        for (long offset = 0; offset < upTo.offset(); offset++) {
            assertThat(held).as("offset %d confirmed: the outbox holds its change %d", offset, log.get((int) offset))
                    .contains(log.get((int) offset));
        }
        return upTo.offset();
    }

    /** The change numbers in the outbox, in its order. */
    private static List<Integer> outbox() throws Exception {
        List<Integer> changes = new ArrayList<>();
        try (Connection c = state.connect(); Statement s = c.createStatement()) {
            if (!s.executeQuery("SELECT 1 FROM pg_tables WHERE schemaname = 'sluice' AND tablename = 'webhook_outbox'").next()) {
                return changes;
            }
            try (ResultSet rs = s.executeQuery("SELECT body FROM sluice.webhook_outbox ORDER BY seq")) {
                while (rs.next()) {
                    changes.add(JSON.readTree(rs.getString(1)).path("after").path("n").asInt());
                }
            }
        }
        return changes;
    }

    /** Change {@code n} of the snapshot: the read of row {@code 100 + n}, without a source position. */
    private static SinkRecord snapshotRow(int n, long offset) {
        SourceInfo info = new SourceInfo("src", "app", "app", "k", 1_700_000_000_000_000L, SourceInfo.Snapshot.TRUE, null, null, null);
        Struct key = new Struct(KEY).put("id", 100 + n);
        Struct after = new Struct(ROW).put("id", 100 + n).put("n", n);
        return new SinkRecord(TOPIC, 0, KEY, key, ENVELOPE, Envelope.create(ENVELOPE, Operation.READ, null, after, info,
                1_700_000_000_000_000L), offset);
    }

    /** Change {@code n}: an update of row {@code n % 5}, alone in its source transaction, committed at a growing LSN. */
    private static SinkRecord record(int n, long offset) {
        long lsn = 1_000 + 16L * n;
        SourceInfo info = new SourceInfo("src", "app", "app", "k", 1_700_000_000_000_000L + n, SourceInfo.Snapshot.FALSE, 500L + n, lsn, null);
        Struct key = new Struct(KEY).put("id", n % 5);
        Struct after = new Struct(ROW).put("id", n % 5).put("n", n);
        Struct value = Envelope.create(ENVELOPE, Operation.UPDATE, null, after, info, 1_700_000_000_000_000L + n);
        value.put(Envelope.TRANSACTION, Envelope.transaction(500L + n, lsn, 1, 1));
        return new SinkRecord(TOPIC, 0, KEY, key, ENVELOPE, value, offset);
    }
}
