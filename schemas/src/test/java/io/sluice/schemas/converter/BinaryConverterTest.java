package io.sluice.schemas.converter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.mapping.MappingOptions;
import io.sluice.schemas.mapping.PortableColumn;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

class BinaryConverterTest {

    private final BinaryConverter converter = BinaryConverterProperties.converter(100);

    @Test
    void aTombstoneStaysNull() {
        assertThat(converter.fromConnectData("t", null, null)).isNull();
        assertThat(converter.toConnectData("t", null)).isEqualTo(SchemaAndValue.NULL);
    }

    @Test
    void jsonOnTheTopicIsNamedWithWhatToSet() {
        byte[] json = "{\"schema\":null,\"payload\":1}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> converter.toConnectData("shop.public.orders", json))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("topic shop.public.orders")
                .hasMessageContaining("looks like JSON")
                .hasMessageContaining("value.converter");
    }

    @Test
    void aNewerFormatIsRefusedWithTheUpgradeToMake() {
        byte[] bytes = converter.fromConnectData("t", Schema.INT32_SCHEMA, 7);
        bytes[1] = 3;
        assertThatThrownBy(() -> converter.toConnectData("t", bytes)).isInstanceOf(DataException.class)
                .hasMessageContaining("version 3").hasMessageContaining("Upgrade");
    }

    @Test
    void aBuiltInSchemaOfANewerSluiceIsRefusedWithTheUpgradeToMake() {
        // 'S', format 2, a 2-byte schema: built-in schema number 99; then a null (the optional struct's value).
        byte[] bytes = {'S', 2, 2, SchemaRefs.KNOWN, 99, 0};
        assertThatThrownBy(() -> converter.toConnectData("orders", bytes)).isInstanceOf(DataException.class)
                .hasMessageContaining("topic orders").hasMessageContaining("built-in schema number 99").hasMessageContaining("Upgrade");
    }

    @Test
    void aReferenceToNoEarlierSchemaIsRefused() {
        byte[] bytes = {'S', 2, 2, SchemaRefs.EARLIER, 0, 0};
        assertThatThrownBy(() -> converter.toConnectData("orders", bytes)).isInstanceOf(DataException.class)
                .hasMessageContaining("Malformed message").hasMessageContaining("sub-schema 0 of 0");
    }

    @Test
    void formatOneHasNoReferences() {
        byte[] bytes = {'S', 1, 2, SchemaRefs.KNOWN, 1, 0};
        assertThatThrownBy(() -> converter.toConnectData("orders", bytes)).isInstanceOf(DataException.class)
                .hasMessageContaining("unknown schema type code 14");
    }

    /** A block's number must keep its meaning: a changed block needs a new entry, never an edited one. */
    @Test
    void sluicesOwnBlocksHaveTheirNumbers() {
        assertThat(KnownSchemas.numberOf(SchemaRefs.exactly(SourceInfo.SCHEMA))).as("SourceInfo.SCHEMA changed: append it to KnownSchemas").isEqualTo(1);
        assertThat(KnownSchemas.numberOf(SchemaRefs.exactly(Envelope.TRANSACTION_SCHEMA))).as("TRANSACTION_SCHEMA changed: append it to KnownSchemas")
                .isEqualTo(2);
        assertThat(KnownSchemas.byNumber(1)).isEqualTo(SourceInfo.SCHEMA);
        assertThat(KnownSchemas.byNumber(2)).isEqualTo(Envelope.TRANSACTION_SCHEMA);
        assertThat(KnownSchemas.size()).isEqualTo(2);
    }

    @Test
    void schemalessRecordsAreRefusedNamingTheConverterForThem() {
        assertThatThrownBy(() -> converter.fromConnectData("t", null, Map.of("a", 1))).isInstanceOf(DataException.class)
                .hasMessageContaining("has no schema").hasMessageContaining("schemas.enable=false");
    }

    @Test
    void aValueThatDoesNotMatchItsSchemaIsNamed() {
        Schema schema = SchemaBuilder.struct().name("row").field("id", Schema.INT64_SCHEMA).build();
        Struct wrong = new Struct(SchemaBuilder.struct().name("row").field("id", Schema.STRING_SCHEMA).build()).put("id", "x");
        assertThatThrownBy(() -> converter.fromConnectData("orders", schema, wrong)).isInstanceOf(DataException.class)
                .hasMessageContaining("topic orders").hasMessageContaining("differs");
        assertThatThrownBy(() -> converter.fromConnectData("orders", Schema.INT64_SCHEMA, "7")).isInstanceOf(DataException.class)
                .hasMessageContaining("topic orders").hasMessageContaining("INT64");
    }

    /** A raw record's description of its columns, nulls among them, crosses Kafka whole, with either converter. */
    @Test
    void rawTuplesKeepHowTheirColumnsDecode() {
        PgType int4 = new PgType(23, "pg_catalog", "int4", PgType.Kind.BASE,
                "int4recv", ',', -1, null, null, null);
        PgType range = new PgType(3904, "pg_catalog", "int4range",
                PgType.Kind.RANGE, "range_recv", ',', -1, int4, null, null);
        TypeMapper mapper = new TypeMapper(MappingOptions.DEFAULTS);
        var columns = List.of(
                mapper.map(new PgColumn("public.t", "id", int4, -1, 0, false, "integer", false)),
                mapper.map(new PgColumn("public.t", "span", range, -1, 0, true, "int4range", false)));
        Struct raw = RawTuples.of(
                new SourceInfo("x", "db", "public", "t", 0L, SourceInfo.Snapshot.TRUE, null, null, null).toStruct(),
                List.of("id", "span"), List.of("integer", "int4range"), List.of("id"), 0, new byte[0],
                PortableColumn.describe(columns, List.of("total")));
        Schema schema = RawTuples.SCHEMA;
        assertThat(converter.toConnectData("t", converter.fromConnectData("t", schema, raw)).value()).isEqualTo(raw);
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "true", "converter.type", "value"));
        Struct back = (Struct) json.toConnectData("t", json.fromConnectData("t", schema, raw)).value();
        assertThat(PortableColumn.read(back.getStruct("decoding")))
                .isEqualTo(PortableColumn.read(raw.getStruct("decoding")));
    }

    /** Measured, not assumed: a change event of a pgbench_accounts-like row, in bytes, against Kafka's JSON converter with schemas. */
    @Test
    void aChangeEventTakesAFractionOfItsJsonSize() {
        Schema row = SchemaBuilder.struct().name("bench.public.pgbench_accounts.Value").optional()
                .field("aid", Schema.INT32_SCHEMA).field("bid", Schema.OPTIONAL_INT32_SCHEMA)
                .field("abalance", Schema.OPTIONAL_INT32_SCHEMA).field("filler", Schema.OPTIONAL_STRING_SCHEMA).build();
        Schema envelope = Envelope.schema("bench.public.pgbench_accounts", row);
        Struct after = new Struct(row).put("aid", 123456).put("bid", 2).put("abalance", -4711).put("filler", " ".repeat(84));
        Struct event = Envelope.create(envelope, Operation.UPDATE, after, after,
                new SourceInfo("bench", "bench", "public", "pgbench_accounts", 1_764_158_400_000_000L, SourceInfo.Snapshot.FALSE, 901L,
                        12_345_678L, "[\"12345600\",\"12345678\"]"), 0);
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "true", "converter.type", "value"));
        int jsonBytes = json.fromConnectData("t", envelope, event).length;
        int formatOneBytes = BinaryConverterProperties.converter(100, 1).fromConnectData("t", envelope, event).length;
        int binaryBytes = converter.fromConnectData("t", envelope, event).length;
        assertThat(converter.toConnectData("t", converter.fromConnectData("t", envelope, event)).value()).isEqualTo(event);
        assertThat(formatOneBytes).as("format 1 %d bytes, JSON %d bytes", formatOneBytes, jsonBytes).isLessThan(jsonBytes / 2);
        // Format 2 writes the source and transaction blocks by number and the after row as the before row's.
        assertThat(binaryBytes).as("format 2 %d bytes, format 1 %d", binaryBytes, formatOneBytes).isLessThan(formatOneBytes * 6 / 10);
        System.out.printf("change event: binary %d bytes (format 1: %d), JSON with schemas %d bytes%n", binaryBytes, formatOneBytes,
                jsonBytes);
    }
}
