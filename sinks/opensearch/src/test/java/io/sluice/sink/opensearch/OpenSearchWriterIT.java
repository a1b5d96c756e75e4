package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchNode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The OpenSearch sink's writer (through its task, the writer's only door) against a real node and
 * a model of the source's table. Invariant: whatever changes the source makes — inserts, updates
 * (of the key too, with unchanged TOASTed values that PostgreSQL does not send and the writer
 * takes from the stored document), deletes, truncates — however requests are cut (by bytes,
 * documents, time, several in flight), and however often the task crashes and Kafka hands out
 * again what was not committed, the index ends with exactly the table's rows.
 */
class OpenSearchWriterIT {

    private static final AtomicInteger TRIES = new AtomicInteger();

    enum Kind { INSERT, UPDATE, UPDATE_KEY, UPDATE_KEEPING_TOAST, MOVE_KEEPING_TOAST, DELETE, TRUNCATE, COMMIT, PUT, OFFSETS, CRASH }

    /** A step; {@code key}, {@code other} and {@code text} are read against the model's state. */
    record Step(Kind kind, int key, int other, String text) {
    }

    /** How the writer cuts requests: bytes, documents, delay, requests in flight. */
    record Requests(long bytes, int documents, long delayMillis, int inFlight) {
    }

    @Property(tries = 30)
    void theIndexEndsWithTheTablesRows(@ForAll("requests") Requests requests, @ForAll("steps") List<Step> steps) throws Exception {
        OpenSearchNode node = OpenSearchNode.shared();
        String table = "k" + TRIES.incrementAndGet();
        Source source = new Source(table);
        Map<String, String> props = Pipes.sinkProps(node, "bulk.max.bytes", Long.toString(requests.bytes()), "bulk.max.documents",
                Integer.toString(requests.documents()), "bulk.max.delay.ms", Long.toString(requests.delayMillis()),
                "bulk.in.flight", Integer.toString(requests.inFlight()));
        TreeMap<Integer, String[]> rows = new TreeMap<>(); // id -> {v, big}
        OpenSearchSinkTask task = started(props);
        try {
            for (Step step : steps) {
                switch (step.kind()) {
                    case PUT -> source.putNew(task);
                    case OFFSETS -> source.committed(task);
                    case CRASH -> {
                        // Stopped without a flush, as a worker that died: Kafka hands out again what was not committed.
                        task.stop();
                        task = started(props);
                        source.handOutAgain(task);
                    }
                    default -> source.apply(step, rows);
                }
            }
            source.putNew(task);
            task.flush(Map.of(source.partition, new OffsetAndMetadata(source.log.size())));
        } finally {
            task.stop();
        }
        Map<String, JsonNode> docs = IndexDocuments.all(node, "app." + table);
        Map<String, String> actual = new TreeMap<>();
        docs.forEach((id, doc) -> actual.put(id, doc.path("id").asInt() + "|" + text(doc.get("v")) + "|" + text(doc.get("big"))));
        Map<String, String> expected = new TreeMap<>();
        rows.forEach((id, r) -> expected.put(Integer.toString(id), id + "|" + r[0] + "|" + r[1]));
        assertThat(actual).as("app.%s after %s", table, steps).isEqualTo(expected);
    }

    @Provide
    Arbitrary<Requests> requests() {
        return Combinators.combine(Arbitraries.of(1_024L, 65_536L), Arbitraries.of(1, 3, 1_000), Arbitraries.of(0L, 1L, 60_000L),
                Arbitraries.of(1, 2, 4)).as(Requests::new);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Kind> kinds = Arbitraries.frequency(Tuple.of(6, Kind.INSERT), Tuple.of(5, Kind.UPDATE), Tuple.of(2, Kind.UPDATE_KEY),
                Tuple.of(2, Kind.UPDATE_KEEPING_TOAST), Tuple.of(1, Kind.MOVE_KEEPING_TOAST), Tuple.of(3, Kind.DELETE),
                Tuple.of(1, Kind.TRUNCATE), Tuple.of(3, Kind.COMMIT), Tuple.of(4, Kind.PUT), Tuple.of(2, Kind.OFFSETS),
                Tuple.of(1, Kind.CRASH));
        Arbitrary<String> texts = Arbitraries.oneOf(Arbitraries.strings().alpha().ofMaxLength(6),
                Arbitraries.strings().withChars("x\"'\\ ,ä").ofMinLength(0).ofMaxLength(3), Arbitraries.just(""));
        return Combinators.combine(kinds, Arbitraries.integers().between(0, 5), Arbitraries.integers().between(0, 5), texts)
                .as(Step::new).list().ofMaxSize(50);
    }

    private static OpenSearchSinkTask started(Map<String, String> props) {
        OpenSearchSinkTask task = new OpenSearchSinkTask();
        task.start(props);
        return task;
    }

    private static String text(JsonNode value) {
        return value == null || value.isNull() ? "null" : value.asText();
    }

    /** The source and the Kafka topic between it and the sink: change events as pgoutput makes them, kept in a log. */
    private static final class Source {
        private final Schema key;
        private final Schema row;
        private final Schema envelope;
        private final String topic;
        private final String table;
        final TopicPartition partition;
        final List<SinkRecord> log = new ArrayList<>();
        private int handedOut;
        private long committed;
        private long lsn = 100;
        private long event;

        Source(String table) {
            this.table = table;
            this.topic = "src.app." + table;
            this.partition = new TopicPartition(topic, 0);
            this.key = SchemaBuilder.struct().name(topic + ".Key").field("id", Schema.INT32_SCHEMA).build();
            this.row = SchemaBuilder.struct().name(topic + ".Value").optional().field("id", Schema.INT32_SCHEMA)
                    .field("v", Schema.OPTIONAL_STRING_SCHEMA).field("big", Schema.OPTIONAL_STRING_SCHEMA).build();
            this.envelope = Envelope.schema(topic, row);
        }

        void apply(Step step, TreeMap<Integer, String[]> rows) {
            int k = step.key();
            String t = step.text();
            switch (step.kind()) {
                case COMMIT -> {
                    lsn += 10;
                    event = 0;
                }
                case INSERT -> {
                    if (rows.containsKey(k)) {
                        update(rows, k, k, t, false);
                    } else {
                        rows.put(k, new String[] {t, "big" + t});
                        send(k, Operation.CREATE, null, image(k, t, "big" + t), new ConnectHeaders());
                    }
                }
                case UPDATE -> update(rows, k, k, t, false);
                case UPDATE_KEEPING_TOAST -> update(rows, k, k, t, true);
                case UPDATE_KEY -> update(rows, k, step.other(), t, false);
                case MOVE_KEEPING_TOAST -> update(rows, k, step.other(), t, true);
                case DELETE -> {
                    if (rows.remove(k) != null) {
                        send(k, Operation.DELETE, image(k, null, null), null, keyOnly());
                    }
                }
                case TRUNCATE -> {
                    rows.clear();
                    send(null, Operation.TRUNCATE, null, null, new ConnectHeaders());
                }
                default -> throw new IllegalArgumentException(step.kind().toString());
            }
        }

        /** An update of row {@code from} (absent: nothing happens) to key {@code to} (taken by another row: the key stays). */
        private void update(TreeMap<Integer, String[]> rows, int from, int to, String v, boolean keepBig) {
            String[] old = rows.get(from);
            if (old == null) {
                return;
            }
            if (to != from && rows.containsKey(to)) {
                to = from;
            }
            String big = keepBig ? old[1] : "big" + v + "!";
            rows.remove(from);
            rows.put(to, new String[] {v, big});
            ConnectHeaders headers = keyOnly();
            if (keepBig) {
                headers.addString(EventHeaders.UNCHANGED_TOAST, "big");
            }
            if (to != from) {
                headers.addString(EventHeaders.KEY_CHANGED, "true");
            }
            send(to, Operation.UPDATE, image(from, null, null), image(to, v, keepBig ? null : big), headers);
        }

        private void send(Integer id, Operation op, Struct before, Struct after, ConnectHeaders headers) {
            event++;
            SourceInfo info = new SourceInfo("src", "app", "app", table, 1_700_000_000_000_000L, SourceInfo.Snapshot.FALSE, lsn, lsn, null);
            Struct value = Envelope.create(envelope, op, before, after, info, 1_700_000_000_000_000L);
            value.put(Envelope.TRANSACTION, Envelope.transaction(lsn, lsn, event, event));
            Struct k = id == null ? null : new Struct(key).put("id", id);
            log.add(new SinkRecord(topic, 0, id == null ? null : key, k, envelope, value, log.size(), null, null, headers));
        }

        /** Puts what the source made since the last put. */
        void putNew(OpenSearchSinkTask task) {
            task.put(List.copyOf(log.subList(handedOut, log.size())));
            handedOut = log.size();
        }

        /** Asks the task what it confirms, as a worker does; that is where a new task starts reading. */
        void committed(OpenSearchSinkTask task) {
            OffsetAndMetadata upTo = task.preCommit(Map.of(partition, new OffsetAndMetadata(handedOut))).get(partition);
            if (upTo != null) {
                assertThat(upTo.offset()).as("confirmed past what was put").isLessThanOrEqualTo(handedOut);
                committed = Math.max(committed, upTo.offset());
            }
        }

        private Struct image(int id, String v, String big) {
            return new Struct(row).put("id", id).put("v", v).put("big", big);
        }

        void handOutAgain(OpenSearchSinkTask task) {
            handedOut = (int) committed;
            putNew(task);
        }
    }

    private static ConnectHeaders keyOnly() {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString(EventHeaders.KEY_ONLY_BEFORE, "true");
        return headers;
    }
}
