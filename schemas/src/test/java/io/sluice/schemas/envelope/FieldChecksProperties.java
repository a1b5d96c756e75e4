package io.sluice.schemas.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Invariant: whatever the sequence of values, {@link FieldChecks} refuses a value exactly when
 * Kafka's own check ({@code ConnectSchema.validateValue}) does; remembering the classes that
 * passed lets no wrong value through. Values mix every class a field may meet, wrong ones and
 * NULL among them, and arrays, maps and structs whose contents vary.
 */
class FieldChecksProperties {

    private static final Schema INNER = SchemaBuilder.struct().name("inner").field("a", Schema.INT32_SCHEMA).optional().build();
    private static final Schema OTHER = SchemaBuilder.struct().name("other").field("a", Schema.INT32_SCHEMA).optional().build();

    private static final Schema ROW = SchemaBuilder.struct().name("row")
            .field("i32", Schema.INT32_SCHEMA)
            .field("i64", Schema.OPTIONAL_INT64_SCHEMA)
            .field("text", Schema.STRING_SCHEMA)
            .field("decimal", Decimal.builder(2).optional().build())
            .field("ts", Timestamp.builder().build())
            .field("bytes", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("list", SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).optional().build())
            .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).optional().build())
            .field("inner", INNER)
            .build();

    @Provide
    Arbitrary<List<Tuple.Tuple2<Integer, Object>>> sequences() {
        Arbitrary<Object> values = Arbitraries.of(
                null, 7, 7L, (short) 7, "x", "", new BigDecimal("1.50"), new java.util.Date(0), new byte[] {1},
                java.nio.ByteBuffer.wrap(new byte[] {2}), List.of("a"), java.util.Arrays.asList("a", null), List.of(1), List.of(),
                Map.of("k", 1), Map.of("k", "v"), Map.of(1, 1), new Struct(INNER).put("a", 1), new Struct(OTHER).put("a", 1),
                1.5d, true, new Object());
        Arbitrary<Integer> fields = Arbitraries.integers().between(0, ROW.fields().size() - 1);
        return net.jqwik.api.Combinators.combine(fields, values).as(Tuple::of).list().ofMaxSize(60);
    }

    @Property(tries = 500)
    void refusesExactlyWhatKafkaRefuses(@ForAll("sequences") List<Tuple.Tuple2<Integer, Object>> sequence) {
        FieldChecks checks = new FieldChecks(ROW);
        for (Tuple.Tuple2<Integer, Object> step : sequence) {
            Schema schema = ROW.fields().get(step.get1()).schema();
            boolean kafka = passes(() -> ConnectSchema.validateValue(schema, step.get2()));
            boolean ours = passes(() -> checks.check(step.get1(), step.get2()));
            assertThat(ours).as("field %s, value %s", ROW.fields().get(step.get1()).name(), step.get2()).isEqualTo(kafka);
        }
    }

    private static boolean passes(Runnable check) {
        try {
            check.run();
            return true;
        } catch (DataException e) {
            return false;
        }
    }
}
