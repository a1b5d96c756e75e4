package io.sluice.schemas.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import io.sluice.schemas.converter.BinaryConverter;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;
import org.junit.jupiter.api.Test;

/**
 * A re-synced chunk's key range survives the converters a Connect deployment uses between the
 * source and the sinks (Sluice's binary converter, Kafka's JSON converter with schemas), open
 * ends and a composite key included: a sink reads back the same ends, keys and orders.
 */
class KeyRangesTest {

    private static final Schema KEY = SchemaBuilder.struct().name("shop.public.orders.Key")
            .field("region", Schema.STRING_SCHEMA).field("id", Schema.INT64_SCHEMA).build();

    @Test
    void aRangeReadsBackTheSameThroughEachConverter() {
        Struct source = new SourceInfo("shop", "db", "public", "orders", 1_000_000L, SourceInfo.Snapshot.INCREMENTAL, 7L, 42L, null)
                .toStruct();
        Struct from = new Struct(KEY).put("region", "eu").put("id", 10L);
        List<Struct> keys = List.of(new Struct(KEY).put("region", "eu").put("id", 11L), new Struct(KEY).put("region", "us").put("id", -3L));
        for (Struct to : new Struct[] {new Struct(KEY).put("region", "us").put("id", 99L), null}) {
            Struct range = KeyRanges.value(KEY, source, Envelope.transaction(7L, 42L, 3L, 3L), from, to, keys, List.of("c:c", ""), 5L);
            range.validate();
            for (Converter converter : List.of(binary(), json())) {
                byte[] bytes = converter.fromConnectData("shop.public.orders", range.schema(), range);
                SchemaAndValue back = converter.toConnectData("shop.public.orders", bytes);
                assertThat(KeyRanges.is(back.schema())).as(converter.getClass().getSimpleName()).isTrue();
                Struct read = (Struct) back.value();
                assertThat(KeyRanges.from(read).getString("region")).isEqualTo("eu");
                assertThat(KeyRanges.from(read).getInt64("id")).isEqualTo(10L);
                if (to == null) {
                    assertThat(KeyRanges.to(read)).isNull();
                } else {
                    assertThat(KeyRanges.to(read).getInt64("id")).isEqualTo(99L);
                }
                assertThat(KeyRanges.keys(read)).extracting(k -> k.getString("region") + k.getInt64("id")).containsExactly("eu11", "us-3");
                assertThat(KeyRanges.keyOrder(read)).containsExactly("c:c", "");
                assertThat(read.getStruct(Envelope.SOURCE).getInt64("lsn")).isEqualTo(42L);
            }
        }
    }

    private static Converter binary() {
        BinaryConverter c = new BinaryConverter();
        c.configure(Map.of(), false);
        return c;
    }

    private static Converter json() {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "true"), false);
        return c;
    }
}
