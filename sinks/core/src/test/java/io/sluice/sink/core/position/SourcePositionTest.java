package io.sluice.sink.core.position;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class SourcePositionTest {

    private static final Schema ROW = SchemaBuilder.struct().name("db.public.t.Value").optional().field("id", Schema.INT32_SCHEMA).build();

    private static Struct source(long lsn) {
        return new SourceInfo("db", "db", "public", "t", 1_764_158_400_000_000L, SourceInfo.Snapshot.FALSE, 901L, lsn, null).toStruct();
    }

    private static Struct change(String topic, long lsn, long order) {
        Schema envelope = Envelope.schema(topic, ROW);
        return Envelope.create(envelope, Operation.CREATE, null, new Struct(ROW).put("id", 1), source(lsn),
                Envelope.transaction(901L, lsn, order, order), 0);
    }

    @Test
    void readsTheCommitPositionAndThePlaceInTheTransaction() {
        assertThat(SourcePosition.of(change("db.public.t", 0x16B3748L, 3))).isEqualTo(new SourcePosition(0x16B3748L, 3));
    }

    /** Envelopes of several tables in turn, each schema its own object: each is read from its own fields. */
    @Test
    void readsChangesOfManyTablesInTurn() {
        for (int round = 0; round < 3; round++) {
            for (int table = 0; table < 12; table++) {
                Struct value = change("db.public.t" + table, 1000L * table + round, table + 1L);
                assertThat(SourcePosition.of(value)).isEqualTo(new SourcePosition(1000L * table + round, table + 1L));
            }
        }
    }

    @Test
    void isNullWithoutATransactionBlock() {
        Schema envelope = Envelope.schema("db.public.t", ROW);
        assertThat(SourcePosition.of(Envelope.create(envelope, Operation.CREATE, null, new Struct(ROW).put("id", 1), source(5), 0))).isNull();
        Schema noBlock = SchemaBuilder.struct().name("other.Envelope").field("after", ROW).field("source", SourceInfo.SCHEMA)
                .field("op", Schema.STRING_SCHEMA).build();
        assertThat(SourcePosition.of(new Struct(noBlock).put("source", source(5)).put("op", "c"))).isNull();
    }

    @Test
    void isNullForASnapshotRowWithoutLsn() {
        Struct snapshotSource = new SourceInfo("db", "db", "public", "t", 0L, SourceInfo.Snapshot.TRUE, null, null, null).toStruct();
        Schema envelope = Envelope.schema("db.public.t", ROW);
        Struct value = Envelope.create(envelope, Operation.READ, null, new Struct(ROW).put("id", 1), snapshotSource,
                Envelope.transaction(1L, 0L, 1L, 1L), 0);
        assertThat(SourcePosition.of(value)).isNull();
    }

    /** A block whose struct has an equal schema of its own (as a converter may hand it): read by that schema's fields. */
    @Test
    void readsABlockWhoseStructHasAnotherEqualSchemaObject() {
        Schema copyOfSource = SchemaBuilder.struct().name(SourceInfo.SCHEMA.name());
        SourceInfo.SCHEMA.fields().forEach(f -> ((SchemaBuilder) copyOfSource).field(f.name(), f.schema()));
        Schema built = ((SchemaBuilder) copyOfSource).build();
        Struct block = new Struct(built);
        source(77L).schema().fields().forEach(f -> block.put(f.name(), source(77L).get(f)));
        Schema envelope = Envelope.schema("db.public.t", ROW);
        Struct value = new Struct(envelope).put(Envelope.AFTER, new Struct(ROW).put("id", 1)).put(Envelope.SOURCE, block)
                .put(Envelope.TRANSACTION, Envelope.transaction(1L, 77L, 9L, 9L)).put(Envelope.OP, "c");
        assertThat(SourcePosition.of(value)).isEqualTo(new SourcePosition(77L, 9L));
    }

    @Test
    void namesAnLsnThatIsNoNumber() {
        Schema oddSource = SchemaBuilder.struct().name("odd.Source").field("lsn", Schema.STRING_SCHEMA).build();
        Schema envelope = SchemaBuilder.struct().name("odd.Envelope").field("source", oddSource)
                .field("transaction", Envelope.TRANSACTION_SCHEMA).field("op", Schema.STRING_SCHEMA).build();
        Struct value = new Struct(envelope).put("source", new Struct(oddSource).put("lsn", "0/16B3748"))
                .put("transaction", Envelope.transaction(1L, 5L, 1L, 1L)).put("op", "c");
        assertThatThrownBy(() -> SourcePosition.of(value)).isInstanceOf(DataException.class)
                .hasMessageContaining("lsn").hasMessageContaining("odd.Source").hasMessageContaining("STRING");
    }
}
