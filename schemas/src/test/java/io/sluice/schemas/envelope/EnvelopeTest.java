package io.sluice.schemas.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.debezium.transforms.ExtractNewRecordState;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.MappingOptions;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.types.Oids;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class EnvelopeTest {

    private static final PgType INT4 = builtin(Oids.INT4, "int4");
    private static final PgType TEXT = builtin(Oids.TEXT, "text");
    private static final PgType TIMESTAMPTZ = builtin(Oids.TIMESTAMPTZ, "timestamptz");

    private static PgType builtin(int oid, String name) {
        return new PgType(oid, "pg_catalog", name, PgType.Kind.BASE, name + "recv", ',', -1, null, null, null);
    }

    private static TableSchema customers() {
        TypeMapper mapper = new TypeMapper(MappingOptions.DEFAULTS);
        List<ColumnMapping> columns = List.of(
                mapper.map(new PgColumn("shop.customers", "id", INT4, -1, 0, false, "integer", false)),
                mapper.map(new PgColumn("shop.customers", "name", TEXT, -1, 0, true, "text", false)),
                mapper.map(new PgColumn("shop.customers", "seen", TIMESTAMPTZ, -1, 0, true, "timestamp with time zone", false)));
        return TableSchema.of("sluice", "shop", "customers", columns, List.of("id"));
    }

    private static SourceInfo source(long lsn) {
        return new SourceInfo("sluice", "app", "shop", "customers", 1_700_000_000_123_456L, SourceInfo.Snapshot.FALSE, 42L, lsn,
                "[\"100\",\"" + lsn + "\"]");
    }

    @Test
    void namesFollowTopicConventions() {
        TableSchema table = customers();
        assertThat(table.topic()).isEqualTo("sluice.shop.customers");
        assertThat(table.valueSchema().name()).isEqualTo("sluice.shop.customers.Value");
        assertThat(table.keySchema().name()).isEqualTo("sluice.shop.customers.Key");
        assertThat(table.envelopeSchema().name()).isEqualTo("sluice.shop.customers.Envelope");
        assertThat(table.keySchema().fields()).extracting(f -> f.name()).containsExactly("id");
        assertThat(table.valueSchema().field("id").schema().isOptional()).isFalse();
        assertThat(table.valueSchema().field("name").schema().isOptional()).isTrue();
    }

    @Test
    void eventsValidateAgainstTheirSchemaAndCarryDebeziumFields() {
        TableSchema table = customers();
        Struct after = table.row(Arrays.asList(7, "Ada", "2024-05-01T10:15:30Z"));
        Struct event = table.envelope(Operation.CREATE, null, after, source(200), 1_700_000_001_000_000L);
        event.validate();
        assertThat(event.getString("op")).isEqualTo("c");
        assertThat(event.getInt64("ts_ms")).isEqualTo(1_700_000_001_000L);
        Struct source = event.getStruct("source");
        assertThat(source.getString("connector")).isEqualTo("postgresql");
        assertThat(source.getInt64("ts_ms")).isEqualTo(1_700_000_000_123L);
        assertThat(source.getInt64("ts_us")).isEqualTo(1_700_000_000_123_456L);
        assertThat(source.getInt64("lsn")).isEqualTo(200L);
        assertThat(source.getString("snapshot")).isEqualTo("false");
        assertThat(source.getString("version")).isNotBlank().isNotEqualTo("unknown");
        assertThat(table.key(after)).isEqualTo(new Struct(table.keySchema()).put("id", 7));
    }

    @Test
    void eventsSurviveTheJsonConverter() {
        TableSchema table = customers();
        Struct before = table.row(Arrays.asList(7, "Ada", null));
        Struct after = table.row(Arrays.asList(7, "Ada L.", "2024-05-01T10:15:30.000001Z"));
        Struct event = table.envelope(Operation.UPDATE, before, after, source(300), 1_700_000_002_000_000L);

        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "true"), false);
        byte[] json = converter.fromConnectData(table.topic(), table.envelopeSchema(), event);
        SchemaAndValue back = converter.toConnectData(table.topic(), json);
        assertThat(((Struct) back.value()).getStruct("after").getString("seen")).isEqualTo("2024-05-01T10:15:30.000001Z");
        assertThat(((Struct) back.value()).getStruct("before").get("seen")).isNull();
        assertThat(((Struct) back.value()).getString("op")).isEqualTo("u");
    }

    @Test
    void debeziumsExtractNewRecordStateReadsSluiceEvents() {
        TableSchema table = customers();
        Struct after = table.row(Arrays.asList(7, "Ada", null));
        SourceRecord record = new SourceRecord(Map.of("server", "sluice"), Map.of("lsn", 300L), table.topic(), null,
                table.keySchema(), table.key(after), table.envelopeSchema(),
                table.envelope(Operation.CREATE, null, after, source(300), 1_700_000_002_000_000L));
        assertThat(io.debezium.data.Envelope.isEnvelopeSchema(record.valueSchema())).isTrue();

        try (ExtractNewRecordState<SourceRecord> unwrap = new ExtractNewRecordState<>()) {
            unwrap.configure(Map.of("add.fields", "op,lsn"));
            SourceRecord flat = unwrap.apply(record);
            Struct value = (Struct) flat.value();
            assertThat(value.getInt32("id")).isEqualTo(7);
            assertThat(value.getString("name")).isEqualTo("Ada");
            assertThat(value.getString("__op")).isEqualTo("c");
            assertThat(value.getInt64("__lsn")).isEqualTo(300L);
        }
    }

    @Test
    void rowSchemasInsideAnEnvelopeMustBeOptional() {
        assertThatThrownBy(() -> Envelope.schema("t", Schema.INT32_SCHEMA)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keyColumnsMustExist() {
        TypeMapper mapper = new TypeMapper(MappingOptions.DEFAULTS);
        List<ColumnMapping> columns = List.of(mapper.map(new PgColumn("s.t", "id", INT4, -1, 0, false, "integer", false)));
        assertThatThrownBy(() -> TableSchema.of("p", "s", "t", columns, List.of("missing")))
                .hasMessageContaining("missing").hasMessageContaining("s.t");
    }

    @Test
    void tableWithoutKeyHasNoKeySchema() {
        TypeMapper mapper = new TypeMapper(MappingOptions.DEFAULTS);
        TableSchema table = TableSchema.of("p", "s", "t", List.of(mapper.map(new PgColumn("s.t", "v", TEXT, -1, 0, true, "text", false))), List.of());
        assertThat(table.keySchema()).isNull();
        assertThat(table.key(table.row(Arrays.asList("x")))).isNull();
    }

    @Test
    void schemaChangeEventsValidate() {
        SchemaChangeEvents.ColumnDefinition id = new SchemaChangeEvents.ColumnDefinition("id", "int4", "integer", 1, false, null, false, null, null);
        Struct event = SchemaChangeEvents.value(source(400), "shop", "ALTER TABLE shop.customers ADD COLUMN x int",
                List.of(new SchemaChangeEvents.TableChange(SchemaChangeEvents.ChangeType.ALTER, "\"shop\".\"customers\"", List.of("id"),
                        List.of(id), null),
                        new SchemaChangeEvents.TableChange(SchemaChangeEvents.ChangeType.DROP, "\"shop\".\"old\"", null, null, null)),
                1_700_000_000_000L);
        event.validate();
        assertThat(SchemaChangeEvents.key("app").getString("databaseName")).isEqualTo("app");
    }

    @Test
    void streamedSchemaChangesReadBackWhole() {
        SchemaChangeEvents.ColumnDefinition id = new SchemaChangeEvents.ColumnDefinition("id", "int4", "integer", 1, false, null, false, null,
                null, "old_id");
        SchemaChangeEvents.TableChange change = new SchemaChangeEvents.TableChange(SchemaChangeEvents.ChangeType.ALTER, "\"shop\".\"stock\"",
                List.of("id"), List.of(id), null, "\"shop\".\"old_stock\"",
                List.of(new SchemaChangeEvents.IndexDefinition("stock_pkey", true, "USING btree (id)", "stock_pkey", "PRIMARY KEY (id)", null)),
                List.of("gone"), List.of("gone_idx"), "\"shop\".\"all_stock\"", "FOR VALUES IN (1)", null,
                List.of(new SchemaChangeEvents.ConstraintDefinition("positive", SchemaChangeEvents.ConstraintType.CHECK, "CHECK ((id > 0))", null),
                        new SchemaChangeEvents.ConstraintDefinition("shop", SchemaChangeEvents.ConstraintType.FOREIGN_KEY,
                                "FOREIGN KEY (id) REFERENCES \"shop\".\"shops\"(id)", "\"shop\".\"shops\"")),
                List.of("old_check"), true);
        Struct event = SchemaChangeEvents.value(source(400), "shop", "ALTER TABLE ...", List.of(change), 1L);
        event.validate();
        assertThat(SchemaChangeEvents.tableChanges(event)).containsExactly(change);
    }
}
