package io.sluice.connector.postgres.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import io.sluice.schemas.envelope.SourceInfo;

class BarrierWriterTest {

    private static final Map<String, ?> PARTITION = Map.of("server", "shop");
    private static final Schema ROW = SchemaBuilder.struct().name("shop.public.items.Value").optional()
            .field("id", Schema.INT32_SCHEMA).build();
    private final BarrierWriter writer = new BarrierWriter("shop", 3);

    @Test
    void rowsPassUntouched() {
        List<SourceRecord> rows = List.of(row(1), row(2));
        assertThat(writer.withBarriers(rows)).isSameAs(rows);
    }

    @Test
    void anEventGoesToPartitionZeroOfTheSchemaTopicFollowedByABarrierInEveryPartitionOfItsTables() {
        TableChange renamed = new TableChange(ChangeType.ALTER, "\"public\".\"articles\"", List.of("id"), List.of(), null,
                "\"public\".\"items\"", null, List.of(), List.of(), null, null, null);
        SourceRecord event = schemaEvent(SourceInfo.Snapshot.FALSE, 4242L, "ALTER TABLE items RENAME TO articles", List.of(renamed));
        List<SourceRecord> out = writer.withBarriers(List.of(row(1), event, row(2)));

        assertThat(out).hasSize(3 + 2 * 3);
        assertThat(out.get(0).value()).isEqualTo(row(1).value());
        SourceRecord sent = out.get(1);
        assertThat(sent.topic()).isEqualTo("shop.schema-changes");
        assertThat(sent.kafkaPartition()).isZero();
        assertThat(sent.value()).isSameAs(event.value());
        Barriers.Barrier barrier = Barriers.of(sent.headers());
        assertThat(barrier.topics()).containsExactly("shop.public.articles", "shop.public.items");
        assertThat(barrier.partitions()).isEqualTo(3);
        List<SourceRecord> barriers = out.subList(2, 8);
        assertThat(barriers).extracting(r -> r.topic() + "-" + r.kafkaPartition()).containsExactly(
                "shop.public.articles-0", "shop.public.articles-1", "shop.public.articles-2",
                "shop.public.items-0", "shop.public.items-1", "shop.public.items-2");
        assertThat(barriers).allSatisfy(r -> {
            assertThat(Barriers.is(r.valueSchema())).isTrue();
            assertThat(((Struct) r.value()).getString("id")).isEqualTo(barrier.id());
            assertThat(r.sourceOffset()).isEqualTo(event.sourceOffset());
        });
        assertThat(out.get(8).value()).isEqualTo(row(2).value());
    }

    @Test
    void idsAreTheSameWhenSentAgainAndDifferForDifferentEvents() {
        TableChange items = new TableChange(ChangeType.CREATE, "\"public\".\"items\"", List.of("id"), List.of(), null);
        String first = idOf(schemaEvent(SourceInfo.Snapshot.FIRST, null, "CREATE ...", List.of(items)));
        assertThat(idOf(schemaEvent(SourceInfo.Snapshot.FIRST, null, "CREATE ...", List.of(items)))).isEqualTo(first);
        assertThat(idOf(schemaEvent(SourceInfo.Snapshot.LAST, null, "ALTER ...", List.of(items)))).isNotEqualTo(first);
        assertThat(idOf(schemaEvent(SourceInfo.Snapshot.FALSE, 100L, "ALTER ...", List.of(items))))
                .isNotEqualTo(idOf(schemaEvent(SourceInfo.Snapshot.FALSE, 200L, "ALTER ...", List.of(items))));
    }

    @Test
    void everyTruncationIsAnEventWithBarriersInItsTopic() {
        // Before a reload, streamed (with its log position), and at the start of a table's copy into the stream.
        for (SourceInfo.Snapshot marker : new SourceInfo.Snapshot[] {SourceInfo.Snapshot.TRUE, SourceInfo.Snapshot.FALSE,
                SourceInfo.Snapshot.INCREMENTAL}) {
            Schema envelope = Envelope.schema("shop.public.log", ROW);
            Long lsn = marker == SourceInfo.Snapshot.TRUE ? null : 10L;
            SourceInfo source = new SourceInfo("shop", "shop", "public", "log", 1_000L, marker, lsn == null ? null : 1L, lsn, null);
            SourceRecord truncation = new SourceRecord(PARTITION, Map.of("n", 1), "shop.public.log", null, null, null, envelope,
                    Envelope.create(envelope, Operation.TRUNCATE, null, null, source, 1_000L));
            List<SourceRecord> out = writer.withBarriers(List.of(truncation, row(1)));
            assertThat(out).as("%s", marker).hasSize(5);
            assertThat(out.get(0).topic()).isEqualTo("shop.schema-changes");
            assertThat(out.get(0).kafkaPartition()).isZero();
            assertThat(Barriers.of(out.get(0).headers()).topics()).containsExactly("shop.public.log");
            assertThat(out.subList(1, 4)).extracting(SourceRecord::topic).containsOnly("shop.public.log");
            assertThat(out.subList(1, 4)).extracting(SourceRecord::kafkaPartition).containsExactly(0, 1, 2);
            assertThat(out.get(4).value()).as("the rows after it stay after it").isEqualTo(row(1).value());
        }
    }

    @Test
    void aKeyChangeKeepingUnchangedToastedValuesWaitsAtABarrierAndOtherKeyChangesDoNot() {
        SourceRecord keepsStored = row(1);
        keepsStored.headers().addBoolean(EventHeaders.KEY_CHANGED, true).addString(EventHeaders.UNCHANGED_TOAST, "body");
        SourceRecord whole = row(2);
        whole.headers().addBoolean(EventHeaders.KEY_CHANGED, true);
        SourceRecord movedAway = row(3);
        movedAway.headers().addBoolean(EventHeaders.KEY_MOVED_AWAY, true);
        SourceRecord toastOnly = row(4);
        toastOnly.headers().addString(EventHeaders.UNCHANGED_TOAST, "body");

        List<SourceRecord> out = writer.withBarriers(List.of(whole, movedAway, toastOnly, keepsStored, row(5)));

        assertThat(out).hasSize(5 + 3);
        assertThat(out.subList(0, 3)).extracting(SourceRecord::topic).containsOnly("shop.public.items");
        SourceRecord waiting = out.get(3);
        assertThat(waiting.topic()).isEqualTo("shop.schema-changes");
        assertThat(waiting.value()).isSameAs(keepsStored.value());
        assertThat(waiting.headers().lastWithName(EventHeaders.UNCHANGED_TOAST).value()).as("its own headers kept").isEqualTo("body");
        assertThat(Barriers.of(waiting.headers()).topics()).containsExactly("shop.public.items");
        assertThat(out.subList(4, 7)).extracting(r -> r.topic() + "-" + r.kafkaPartition())
                .containsExactly("shop.public.items-0", "shop.public.items-1", "shop.public.items-2");
        assertThat(out.get(7).value()).isEqualTo(row(5).value());
    }

    private String idOf(SourceRecord event) {
        return Barriers.of(writer.withBarriers(List.of(event)).get(0).headers()).id();
    }

    private static SourceRecord row(int id) {
        Schema envelope = Envelope.schema("shop.public.items", ROW);
        SourceInfo source = new SourceInfo("shop", "shop", "public", "items", 1_000L, SourceInfo.Snapshot.FALSE, 1L, 10L, null);
        return new SourceRecord(PARTITION, Map.of("lsn", 10L), "shop.public.items", null, null, null, envelope,
                Envelope.create(envelope, Operation.CREATE, null, new Struct(ROW).put("id", id), source, 1_000L));
    }

    private static SourceRecord schemaEvent(SourceInfo.Snapshot marker, Long lsn, String ddl, List<TableChange> changes) {
        SourceInfo source = new SourceInfo("shop", "shop", "", "", 1_000L, marker, null, lsn, null);
        return new SourceRecord(PARTITION, Map.of("lsn", lsn == null ? 0L : lsn), "shop.schema-changes", null,
                SchemaChangeEvents.KEY_SCHEMA, SchemaChangeEvents.key("shop"), SchemaChangeEvents.VALUE_SCHEMA,
                SchemaChangeEvents.value(source, null, ddl, changes, 1_000L));
    }
}
