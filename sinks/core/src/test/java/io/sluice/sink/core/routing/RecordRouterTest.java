package io.sluice.sink.core.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SequenceEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.barrier.BarrierStore;
import io.sluice.sink.core.barrier.ReadTopics;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.testing.kafka.RecordingSinkContext;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;

/**
 * The routing every sink shares, with a writer that records what it is asked: each kind of event
 * reaches the right call in its partition's order; what the target has is skipped (and durable
 * when below the stored offset); barriers hold and release partitions; a refused record goes to
 * the dead letters, or stops the task without them; every record handled is taken in the ledger.
 */
class RecordRouterTest {

    private static final String TOPIC = "shop.public.t";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final Schema ROW = SchemaBuilder.struct().name("shop.public.t.Value").optional().field("id", Schema.INT32_SCHEMA).build();
    private static final Schema ENVELOPE = Envelope.schema(TOPIC, ROW);

    private final OffsetLedger ledger = new OffsetLedger();
    private final ReplaySkips skips = new ReplaySkips();
    private final MemoryBarriers store = new MemoryBarriers();
    private final BarrierGate gate = new BarrierGate(store, ReadTopics.of(Map.of()));
    private final Recording writer = new Recording();
    private final RecordingSinkContext context = new RecordingSinkContext(Set.of(P0));
    private final List<SinkRecord> deadLettered = new ArrayList<>();
    private final ErrantRecordReporter reporter = (record, error) -> {
        deadLettered.add(record);
        return CompletableFuture.completedFuture(null);
    };

    private RecordRouter router(ErrantRecordReporter errors) {
        return new RecordRouter(writer, ledger, skips, gate, new DeadLetters(errors, DeadLetterConfig.MismatchAction.FAIL, e -> false,
                System::currentTimeMillis));
    }

    @Test
    void eachKindOfEventReachesItsCallInOrderAndIsTaken() throws Exception {
        List<SinkRecord> records = List.of(
                schemaEvent(0, SourceInfo.Snapshot.FIRST),
                change(1, Operation.READ, SourceInfo.Snapshot.TRUE),
                change(2, Operation.TRUNCATE, SourceInfo.Snapshot.TRUE),
                change(3, Operation.READ, SourceInfo.Snapshot.INCREMENTAL),
                change(4, Operation.UPDATE, SourceInfo.Snapshot.FALSE),
                tombstone(5),
                sequences(6),
                schemaEvent(7, SourceInfo.Snapshot.FALSE));
        router(reporter).put(records, context);
        assertThat(writer.calls).containsExactly("schema@0:0", "SNAPSHOT_ROW@0:1", "RELOAD@0:2", "CHANGE@0:3", "CHANGE@0:4", "TOMBSTONE@0:5",
                "SEQUENCES@0:6", "schema@0:7", "afterPut");
        assertThat(ledger.takenSoFar()).containsEntry(P0, 8L);
        assertThat(ledger.committable(Map.of(P0, new OffsetAndMetadata(8)))).isEmpty(); // taken is not durable
    }

    @Test
    void recordsTheTargetHasAreSkippedAndThoseBelowItsOffsetAreDurable() throws Exception {
        skips.resume(P0, 2L, new TreeMap<>(Map.of(3L, 4L)), null);
        router(reporter).put(List.of(change(0, Operation.CREATE, SourceInfo.Snapshot.FALSE), change(1, Operation.CREATE, SourceInfo.Snapshot.FALSE),
                change(2, Operation.CREATE, SourceInfo.Snapshot.FALSE), change(3, Operation.READ, SourceInfo.Snapshot.TRUE),
                change(4, Operation.READ, SourceInfo.Snapshot.TRUE), change(5, Operation.READ, SourceInfo.Snapshot.TRUE)), context);
        assertThat(writer.calls).containsExactly("CHANGE@0:2", "SNAPSHOT_ROW@0:5", "afterPut");
        assertThat(skips.count()).isEqualTo(4);
        assertThat(ledger.takenSoFar()).containsEntry(P0, 6L);
        assertThat(ledger.committable(Map.of(P0, new OffsetAndMetadata(6)))).containsEntry(P0, new OffsetAndMetadata(2));
    }

    @Test
    void aPartitionAtABarrierIsWrittenOutHeldAndGoesOnOnceTheBarrierIsReleased() throws Exception {
        RecordRouter router = router(reporter);
        router.put(List.of(change(0, Operation.CREATE, SourceInfo.Snapshot.FALSE), barrier(1, "b1"),
                change(2, Operation.CREATE, SourceInfo.Snapshot.FALSE)), context);
        assertThat(writer.calls).containsExactly("CHANGE@0:0", "writeAll", "afterPut");
        assertThat(store.arrivals).containsEntry("b1", Set.of(P0));
        assertThat(context.paused).contains(P0);
        assertThat(context.rewound).containsEntry(P0, 1L);
        assertThat(ledger.committable(Map.of(P0, new OffsetAndMetadata(3)))).containsEntry(P0, new OffsetAndMetadata(1));

        writer.calls.clear();
        router.put(List.of(change(2, Operation.CREATE, SourceInfo.Snapshot.FALSE)), context); // still held: passed over
        assertThat(writer.calls).containsExactly("afterPut");

        store.released.add("b1"); // another task applied the barrier's event
        router.put(List.of(), context);
        assertThat(context.resumed).contains(P0);
        writer.calls.clear();
        router.put(List.of(barrier(1, "b1"), change(2, Operation.CREATE, SourceInfo.Snapshot.FALSE)), context);
        assertThat(writer.calls).containsExactly("tablesChangedElsewhere", "CHANGE@0:2", "afterPut");
        assertThat(ledger.takenSoFar()).containsEntry(P0, 3L);
    }

    @Test
    void anEventWaitsForEveryPartitionOfItsBarrierAndIsSkippedOnceItsBarrierIsReleased() throws Exception {
        RecordRouter router = router(reporter);
        TopicPartition p1 = new TopicPartition(TOPIC, 1);
        Barriers.Barrier b = new Barriers.Barrier("b2", List.of(TOPIC), 2);
        SinkRecord event = withBarrier(schemaEvent(10, SourceInfo.Snapshot.FALSE), b);
        router.put(List.of(event), context);
        assertThat(writer.calls).containsExactly("afterPut");
        assertThat(context.paused).contains(P0);

        store.arrive("b2", P0, 0);
        store.arrive("b2", p1, 0);
        router.put(List.of(), context);
        assertThat(context.resumed).contains(P0);
        writer.calls.clear();
        router.put(List.of(event), context);
        assertThat(writer.calls).containsExactly("schema@0:10", "afterPut");

        store.released.add("b2");
        writer.calls.clear();
        router.put(List.of(event), context); // delivered again after a rebalance: applied already
        assertThat(writer.calls).containsExactly("afterPut");
        assertThat(skips.count()).isEqualTo(1);
    }

    @Test
    void aRefusedRecordGoesToTheDeadLettersAndIsTakenOrStopsTheTaskWithoutThem() throws Exception {
        writer.refuse = 1;
        SinkRecord notAStruct = new SinkRecord(TOPIC, 0, null, null, Schema.STRING_SCHEMA, "flattened", 2);
        router(reporter).put(List.of(change(0, Operation.CREATE, SourceInfo.Snapshot.FALSE), change(1, Operation.CREATE,
                SourceInfo.Snapshot.FALSE), notAStruct, change(3, Operation.CREATE, SourceInfo.Snapshot.FALSE)), context);
        assertThat(deadLettered).extracting(SinkRecord::kafkaOffset).containsExactly(1L, 2L);
        assertThat(writer.calls).containsExactly("CHANGE@0:0", "CHANGE@0:1", "CHANGE@0:3", "afterPut");
        assertThat(ledger.takenSoFar()).containsEntry(P0, 4L);

        assertThatThrownBy(() -> router(null).put(List.of(change(1, Operation.CREATE, SourceInfo.Snapshot.FALSE)), context))
                .isInstanceOf(ConnectException.class).hasMessageContaining("public.t").hasMessageContaining("refused");
    }

    // --- records

    private static SinkRecord change(long offset, Operation op, SourceInfo.Snapshot snapshot) {
        SourceInfo source = new SourceInfo("shop", "shop", "public", "t", 1_700_000_000_000_000L, snapshot, 100 + offset, 100 + offset, null);
        Struct row = new Struct(ROW).put("id", (int) offset);
        Struct value = Envelope.create(ENVELOPE, op, op == Operation.DELETE ? row : null, op == Operation.DELETE || op == Operation.TRUNCATE
                ? null : row, source, 1_700_000_000_000_000L);
        return new SinkRecord(TOPIC, 0, null, null, ENVELOPE, value, offset);
    }

    private static SinkRecord schemaEvent(long offset, SourceInfo.Snapshot snapshot) {
        SourceInfo source = new SourceInfo("shop", "shop", "public", "t", 1_700_000_000_000_000L, snapshot, 100 + offset, 100 + offset, null);
        Struct value = SchemaChangeEvents.value(source, "public", "ALTER TABLE t ADD c int", List.of(), 1_700_000_000_000L);
        return new SinkRecord(TOPIC, 0, null, null, value.schema(), value, offset);
    }

    private static SinkRecord sequences(long offset) {
        Struct value = SequenceEvents.value("shop", "shop", 1_700_000_000_000L, List.of(new SequenceEvents.Value("public", "t_id_seq", 9)));
        return new SinkRecord(TOPIC, 0, null, null, value.schema(), value, offset);
    }

    private static SinkRecord tombstone(long offset) {
        return new SinkRecord(TOPIC, 0, null, null, ENVELOPE, null, offset);
    }

    private static SinkRecord barrier(long offset, String id) {
        Struct value = Barriers.value(id, "shop", 1);
        return new SinkRecord(TOPIC, 0, null, null, value.schema(), value, offset);
    }

    private static SinkRecord withBarrier(SinkRecord record, Barriers.Barrier barrier) {
        ConnectHeaders headers = new ConnectHeaders();
        Barriers.mark(headers, barrier);
        return new SinkRecord(record.topic(), record.kafkaPartition(), record.keySchema(), record.key(), record.valueSchema(),
                record.value(), record.kafkaOffset(), null, null, headers);
    }

    // --- what the router talks to

    /** A writer that records each call, and refuses the record at one offset. */
    private static final class Recording implements SinkWriter {
        final List<String> calls = new ArrayList<>();
        long refuse = -1;

        @Override
        public void write(SinkEvent event) {
            calls.add(event.kind() + "@" + event.partition().partition() + ":" + event.offset());
            if (event.offset() == refuse) {
                throw new DataException("refused");
            }
        }

        @Override
        public void applySchemaEvent(SinkEvent event) {
            calls.add("schema@" + event.partition().partition() + ":" + event.offset());
        }

        @Override
        public void durableNow() {
            calls.add("durableNow");
        }

        @Override
        public void writeAll() {
            calls.add("writeAll");
        }

        @Override
        public void afterPut(SinkTaskContext context) {
            calls.add("afterPut");
        }

        @Override
        public void tablesChangedElsewhere() {
            calls.add("tablesChangedElsewhere");
        }
    }

    /** Barrier arrivals and releases in memory: one task here, so nothing needs sharing. */
    private static final class MemoryBarriers implements BarrierStore {
        final Map<String, Set<TopicPartition>> arrivals = new HashMap<>();
        final Set<String> released = new HashSet<>();

        @Override
        public void arrive(String barrier, TopicPartition partition, long offset) {
            arrivals.computeIfAbsent(barrier, b -> new HashSet<>()).add(partition);
        }

        @Override
        public Set<TopicPartition> arrived(String barrier, Collection<String> topics) {
            Set<TopicPartition> arrived = new HashSet<>(arrivals.getOrDefault(barrier, Set.of()));
            arrived.removeIf(tp -> !topics.contains(tp.topic()));
            return arrived;
        }

        @Override
        public Set<String> released(Collection<String> barriers) {
            Set<String> out = new HashSet<>(barriers);
            out.retainAll(released);
            return out;
        }

        @Override
        public void release(String barrier) {
            released.add(barrier);
        }

        @Override
        public void releaseElsewhere(String barrier) {
            released.add(barrier);
        }

        @Override
        public void reset() {
        }

        @Override
        public void close() {
        }
    }
}
