package io.sluice.transforms.predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;

class OperationIsTest {

    private static final Schema ROW = SchemaBuilder.struct().optional().field("id", Schema.INT64_SCHEMA).build();
    private static final Schema ENVELOPE = Envelope.schema("shop.public.t", ROW);

    @Test
    void matchesTheListedOperationsOnlyAndNeverSchemaChangesOrTombstones() {
        OperationIs<SourceRecord> deletes = new OperationIs<>();
        deletes.configure(Map.of("operations", "delete"));
        assertThat(deletes.test(event(Operation.DELETE))).isTrue();
        assertThat(deletes.test(event(Operation.CREATE))).isFalse();
        assertThat(deletes.test(event(Operation.UPDATE))).isFalse();
        SourceRecord ddl = new SourceRecord(Map.of(), Map.of(), "shop", SchemaChangeEvents.VALUE_SCHEMA,
                SchemaChangeEvents.value(source(), "public", "DROP TABLE t", java.util.List.of(), 0L));
        assertThat(deletes.test(ddl)).as("schema changes never match").isFalse();
        assertThat(deletes.test(new SourceRecord(Map.of(), Map.of(), "shop.public.t", null, null))).as("tombstones").isFalse();
    }

    @Test
    void codesAndNamesAreAcceptedAndAnythingElseIsNamed() {
        OperationIs<SourceRecord> writes = new OperationIs<>();
        writes.configure(Map.of("operations", "c, u,snapshot"));
        assertThat(writes.test(event(Operation.READ))).isTrue();
        assertThat(writes.test(event(Operation.DELETE))).isFalse();
        assertThatThrownBy(() -> new OperationIs<SourceRecord>().configure(Map.of("operations", "c,upsert")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("upsert").hasMessageContaining("use c, u, d, r or t");
    }

    private static SourceInfo source() {
        return new SourceInfo("shop", "shop", "public", "t", 0L, SourceInfo.Snapshot.FALSE, null, null, null);
    }

    private static SourceRecord event(Operation op) {
        Struct row = new Struct(ROW).put("id", 1L);
        Struct value = Envelope.create(ENVELOPE, op, op == Operation.CREATE || op == Operation.READ ? null : row,
                op == Operation.DELETE ? null : row, source(), 0L);
        return new SourceRecord(Map.of(), Map.of(), "shop.public.t", ENVELOPE, value);
    }
}
