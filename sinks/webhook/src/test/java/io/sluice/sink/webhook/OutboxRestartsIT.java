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
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
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
 * state database, with a model of a Kafka topic and of the source. Invariant: however puts,
 * Connect's offset commits (which do not wait), flushes, crashes of the task (Kafka hands out
 * again what was not committed, with the same offsets) and restarts of the source (it sends again
 * what follows its last stored offset, under new Kafka offsets) interleave, every offset the
 * sink confirms is one whose change the outbox already holds, and in the end the outbox holds
 * every change exactly once, in the source's order.
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

    /** What happens next: changes put, offset commits (as many as {@code count}), a flush, a crash of the task, a restart of the source, an empty put. */
    enum Kind { PUT, COMMIT_OFFSETS, FLUSH, CRASH, SOURCE_RESTART, IDLE }

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
                                                                                  @ForAll("steps") List<Step> steps) throws Exception {
        state.execute("DROP SCHEMA IF EXISTS sluice CASCADE");
        Map<String, String> props = Pipes.sinkProps(state, "name", "outbox-restarts", "outbox.batch.max.bytes",
                Long.toString(gathering.batchBytes()), "outbox.max.delay.ms", Long.toString(gathering.delayMillis()));
        /* The topic: each record is the number of the change it carries (changes are numbered from 0 in the source's order). */
        List<Integer> log = new ArrayList<>();
        long committed = 0; // the consumer group's offset: where a new task starts reading
        int nextChange = 0; // the next change the source makes
        int putUpTo = 0; // the task has been handed log[0, putUpTo)
        WebhookSinkTask task = started(props);
        try {
            for (Step step : steps) {
                switch (step.kind()) {
                    case PUT -> {
                        for (int i = 0; i < step.count(); i++) {
                            log.add(nextChange++);
                        }
                        putUpTo = put(task, log, putUpTo);
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
                    case CRASH -> {
                        task.stop();
                        task = started(props);
                        putUpTo = put(task, log, (int) committed);
                    }
                    case SOURCE_RESTART -> {
                        // The source's stored offset is that of the last change whose record was committed: it sends what follows.
                        int resumeAt = committed == 0 ? 0 : log.get((int) committed - 1) + 1;
                        for (int change = resumeAt; change < nextChange; change++) {
                            log.add(change);
                        }
                        putUpTo = put(task, log, putUpTo);
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
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Step(Kind.CRASH, 0))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Step(Kind.SOURCE_RESTART, 0))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Step(Kind.IDLE, 0))));
        return step.list().ofMinSize(1).ofMaxSize(25);
    }

    private static WebhookSinkTask started(Map<String, String> props) {
        WebhookSinkTask task = new WebhookSinkTask();
        task.start(props);
        return task;
    }

    /** Puts the log's records from {@code from} on, in puts of up to seven; returns the end of the log. */
    private static int put(WebhookSinkTask task, List<Integer> log, int from) {
        List<SinkRecord> batch = new ArrayList<>();
        for (int offset = from; offset < log.size(); offset++) {
            batch.add(record(log.get(offset), offset));
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
