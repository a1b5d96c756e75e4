package io.sluice.sink.opensearch.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.opensearch.client.ClusterAddress;
import io.sluice.sink.opensearch.client.ClusterClient;
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
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * {@link BulkQueue} against a real OpenSearch node, with a model of what each document must be.
 * Invariant: however writes (indexes, deletes, replays of older writes, writes OpenSearch refuses
 * for good) are cut into requests (by size, by count, by time, several in flight at once, which
 * may finish in any order), every offset the ledger lets Connect commit is one whose write
 * OpenSearch has, each write is counted once as written, as older than the stored version or as
 * dead-lettered, and in the end every document is its newest write.
 */
class BulkQueueIT {

    private static final TopicPartition P = new TopicPartition("src.app.k", 0);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final AtomicInteger TRIES = new AtomicInteger();
    private static final int IDS = 8;

    enum Kind { INDEX, DELETE, REPLAY, REFUSED, DUE, CONFIRM }

    record Step(Kind kind, int id, int back) {
    }

    record Shape(int inFlight, int maxDocuments, long batchBytes, long delayMillis) {
    }

    /** A write sent: its offset, document, version, and what it leaves (null: deleted). */
    private record Sent(long offset, int id, long version, Long value) {
    }

    @Property(tries = 30)
    void everyDocumentEndsAtItsNewestWriteAndNothingIsConfirmedBeforeOpenSearchHasIt(@ForAll("shapes") Shape shape,
                                                                                      @ForAll("steps") List<Step> steps) throws Exception {
        OpenSearchNode node = OpenSearchNode.shared();
        String index = "bulk-queue-" + TRIES.incrementAndGet();
        send(node, "PUT", "/" + index, "{\"mappings\":{\"properties\":{\"n\":{\"type\":\"long\"}}}}");
        OffsetLedger ledger = new OffsetLedger();
        List<SinkRecord> deadLettered = new ArrayList<>();
        ErrantRecordReporter reporter = (record, error) -> {
            synchronized (deadLettered) {
                deadLettered.add(record);
            }
            return CompletableFuture.completedFuture(null);
        };
        DeadLetters deadLetters = new DeadLetters(reporter, DeadLetterConfig.MismatchAction.FAIL, e -> false, System::currentTimeMillis);
        ClusterClient client = new ClusterClient(ClusterAddress.parse(node.httpUrl(), null, null, null, null, true, 30_000), 4, 30_000);
        List<Sent> sent = new ArrayList<>();
        long refused = 0;
        long lsn = 1_000;
        long offset = 0;
        try (BulkQueue queue = new BulkQueue(new BulkSender(client, 30_000, new io.sluice.sink.opensearch.metrics.OpenSearchMeters("bulk-queue-it")), ledger, deadLetters,
                new TunedBatchSize("bulk test", Optional.empty(), shape.batchBytes()), shape.inFlight(), shape.maxDocuments(),
                shape.delayMillis())) {
            for (Step step : steps) {
                switch (step.kind()) {
                    case INDEX, DELETE, REFUSED -> {
                        lsn += 16;
                        long version = ExternalVersion.of(new SourcePosition(lsn, 1)).value();
                        SinkRecord record = new SinkRecord(P.topic(), 0, null, null, null, null, offset);
                        ledger.taken(P, offset);
                        write(queue.batch(), record, index, step.id(), lsn, step.kind(), offset);
                        if (step.kind() == Kind.REFUSED) {
                            refused++;
                        } else {
                            sent.add(new Sent(offset, step.id(), version, step.kind() == Kind.INDEX ? offset : null));
                        }
                        offset++;
                        queue.sendIfFull();
                    }
                    case REPLAY -> {
                        // A write sent again (a task that restarted from an older committed offset): same version, new offset.
                        if (!sent.isEmpty()) {
                            Sent again = sent.get(Math.max(0, sent.size() - 1 - step.back() % sent.size()));
                            SinkRecord record = new SinkRecord(P.topic(), 0, null, null, null, null, offset);
                            ledger.taken(P, offset);
                            long againLsn = again.version() >> ExternalVersion.EVENT_BITS;
                            write(queue.batch(), record, index, again.id(), againLsn, again.value() == null ? Kind.DELETE : Kind.INDEX,
                                    again.value() == null ? 0 : again.value());
                            sent.add(new Sent(offset, again.id(), again.version(), again.value()));
                            offset++;
                            queue.sendIfFull();
                        }
                    }
                    case DUE -> queue.sendIfDue();
                    case CONFIRM -> {
                        queue.confirmDurable();
                        OffsetAndMetadata upTo = ledger.committable(Map.of(P, new OffsetAndMetadata(offset))).get(P);
                        if (upTo != null) {
                            assertHas(node, index, sent, upTo.offset());
                        }
                    }
                }
            }
            queue.writeAll();
            queue.confirmDurable();
            assertThat(ledger.committable(Map.of(P, new OffsetAndMetadata(offset))).get(P))
                    .as("everything taken is durable once written").isEqualTo(offset == 0 ? null : new OffsetAndMetadata(offset));
            assertHas(node, index, sent, offset);
            assertThat(queue.written() + queue.olderThanStored()).as("writes settled as written or older").isEqualTo(sent.size());
            assertThat(deadLettered).as("dead letters").hasSize((int) refused);
            Map<Integer, Long> expected = new HashMap<>();
            Map<Integer, Long> newest = new HashMap<>();
            for (Sent s : sent) {
                if (s.version() >= newest.getOrDefault(s.id(), 0L)) {
                    newest.put(s.id(), s.version());
                    expected.put(s.id(), s.value());
                }
            }
            for (int id = 0; id < IDS; id++) {
                assertThat(value(node, index, id)).as("document " + id + " after " + steps).isEqualTo(expected.get(id));
            }
        } finally {
            client.close();
            send(node, "DELETE", "/" + index, null);
        }
    }

    @Provide
    Arbitrary<Shape> shapes() {
        return Combinators.combine(Arbitraries.integers().between(1, 4), Arbitraries.integers().between(1, 12),
                Arbitraries.longs().between(1, 4_000), Arbitraries.of(0L, 1L, 60_000L)).as(Shape::new);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Integer> id = Arbitraries.integers().between(0, IDS - 1);
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(8, id.map(i -> new Step(Kind.INDEX, i, 0))),
                Tuple.of(2, id.map(i -> new Step(Kind.DELETE, i, 0))),
                Tuple.of(2, Arbitraries.integers().between(0, 30).map(b -> new Step(Kind.REPLAY, 0, b))),
                Tuple.of(1, id.map(i -> new Step(Kind.REFUSED, i, 0))),
                Tuple.of(2, Arbitraries.just(new Step(Kind.DUE, 0, 0))),
                Tuple.of(2, Arbitraries.just(new Step(Kind.CONFIRM, 0, 0))));
        return step.list().ofMinSize(1).ofMaxSize(60);
    }

    /** An index of {@code {"n": value}}, a delete, or an index OpenSearch refuses for good ({@code n} is mapped as a number). */
    private static void write(BulkBatch batch, SinkRecord record, String index, int id, long lsn, Kind kind, long value) {
        SourcePosition position = new SourcePosition(lsn, 1);
        ExternalVersion version = ExternalVersion.of(position);
        switch (kind) {
            case DELETE -> batch.delete(record, "app.k", index, Integer.toString(id), position, version);
            case REFUSED -> batch.index(record, "app.k", index, Integer.toString(id), position, version, out -> {
                out.writeStartObject();
                out.writeStringField("n", "not a number");
                out.writeEndObject();
            });
            default -> batch.index(record, "app.k", index, Integer.toString(id), position, version, out -> {
                out.writeStartObject();
                out.writeNumberField("n", value);
                out.writeEndObject();
            });
        }
    }

    /** Checks that OpenSearch holds, for every document, the newest write below {@code upTo} or a newer one. */
    private static void assertHas(OpenSearchNode node, String index, List<Sent> sent, long upTo) throws Exception {
        Map<Integer, Sent> newest = new HashMap<>();
        for (Sent s : sent) {
            if (s.offset() < upTo && (newest.get(s.id()) == null || s.version() >= newest.get(s.id()).version())) {
                newest.put(s.id(), s);
            }
        }
        for (Sent s : newest.values()) {
            JsonNode doc = JSON.readTree(send(node, "GET", "/" + index + "/_doc/" + s.id(), null));
            boolean found = doc.path("found").asBoolean();
            long version = doc.path("_version").asLong();
            if (s.value() != null) {
                // Not found only when a newer delete, sent after upTo, may have gone first.
                boolean deletedSince = sent.stream().anyMatch(d -> d.id() == s.id() && d.value() == null && d.version() > s.version());
                assertThat(found ? version >= s.version() : deletedSince).as("offset " + s.offset() + " committable: document " + s.id()
                        + " at version " + s.version() + " or newer, found " + doc).isTrue();
            } else {
                assertThat(!found || version > s.version()).as("offset " + s.offset() + " committable: document " + s.id()
                        + " deleted at version " + s.version() + ", found " + doc).isTrue();
            }
        }
    }

    private static Long value(OpenSearchNode node, String index, int id) throws Exception {
        JsonNode doc = JSON.readTree(send(node, "GET", "/" + index + "/_doc/" + id, null));
        return doc.path("found").asBoolean() ? doc.path("_source").path("n").asLong() : null;
    }

    private static String send(OpenSearchNode node, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.httpUrl() + path)).header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
