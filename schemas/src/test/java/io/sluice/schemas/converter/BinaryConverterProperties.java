package io.sluice.schemas.converter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.SourceInfo;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Whatever schema and value a connector hands the binary converter comes back from it equal:
 * the same schema (type, optional flag, name, version, doc, parameters, default) and the same
 * value, floats to the bit. Schemas are drawn nested (structs, arrays and maps of each other),
 * values with weight on the edges: NaN with any payload, infinities, -0, the extreme integers,
 * empty and megabyte strings and bytes, NULL inside arrays and maps, decimals of hundreds of
 * digits with negative scales, dates millions of years away.
 */
class BinaryConverterProperties {

    private static final double ODD_NAN = Double.longBitsToDouble(0x7FF0_0000_0000_0001L);
    private static final float ODD_FLOAT_NAN = Float.intBitsToFloat(0xFFC0_0001);
    private static final Map<Schema.Type, Object> DEFAULTS = Map.of(Schema.Type.INT8, (byte) -1, Schema.Type.INT16, Short.MIN_VALUE,
            Schema.Type.INT32, 42, Schema.Type.INT64, Long.MIN_VALUE, Schema.Type.FLOAT32, Float.NaN, Schema.Type.FLOAT64, -0.0,
            Schema.Type.BOOLEAN, true, Schema.Type.STRING, "dé", Schema.Type.BYTES, new byte[] {1, 2});

    @Property(tries = 1500)
    void everyValueComesBackAsItWasSent(@ForAll("schemaAndValue") Tuple2<Schema, Object> sent, @ForAll("formats") int format) {
        BinaryConverter converter = converter(1000, format);
        byte[] bytes = converter.fromConnectData("t", sent.get1(), sent.get2());
        assertThat(bytes[1]).isEqualTo((byte) format);
        // The reader reads every format whatever it writes.
        SchemaAndValue back = converter(1000, 3 - format).toConnectData("t", bytes);
        assertThat(back.schema()).isEqualTo(sent.get1());
        // Schema.equals takes every NaN default for another: their bytes tell them apart.
        assertThat(SchemaRefs.exactly(back.schema()).array()).isEqualTo(SchemaRefs.exactly(sent.get1()).array());
        assertSame(sent.get2(), back.value(), "value");
        // Structs are read without put's checks: what comes back must pass them all the same.
        ConnectSchema.validateValue(back.schema(), back.value());
    }

    @Property(tries = 300)
    void aConverterKeepsManySchemasApartThroughItsCaches(@ForAll("someSchemasAndValues") List<Tuple2<Schema, Object>> sent) {
        // A cache of two makes every message after the second likely to evict a schema it will need again. Every message is
        // written in its writer's one scratch buffer, grown by any megabyte value and let go after it. The first round is
        // written in format 1 and the second in format 2, as a topic reads across an upgrade: the same schema's bytes in
        // both formats, side by side in the reader's cache.
        List<BinaryConverter> writers = List.of(converter(2, 1), converter(2, 2));
        BinaryConverter reader = converter(2);
        List<byte[]> messages = new ArrayList<>();
        for (BinaryConverter writer : writers) {
            for (Tuple2<Schema, Object> s : sent) {
                messages.add(writer.fromConnectData("t", s.get1(), s.get2()));
            }
        }
        for (int i = 0; i < messages.size(); i++) {
            Tuple2<Schema, Object> s = sent.get(i % sent.size());
            SchemaAndValue back = reader.toConnectData("t", messages.get(i));
            assertThat(back.schema()).isEqualTo(s.get1());
            assertThat(SchemaRefs.exactly(back.schema()).array()).isEqualTo(SchemaRefs.exactly(s.get1()).array());
            assertSame(s.get2(), back.value(), "value");
        }
    }

    @Property(tries = 500)
    void aCutMessageIsRefusedNeverMisread(@ForAll("schemaAndValue") Tuple2<Schema, Object> sent, @ForAll("fractions") double cut) {
        byte[] bytes = converter(10).fromConnectData("t", sent.get1(), sent.get2());
        int length = (int) (cut * (bytes.length - 1)); // always at least one byte short
        byte[] prefix = Arrays.copyOf(bytes, length);
        assertThatThrownBy(() -> converter(10).toConnectData("orders", prefix))
                .isInstanceOf(DataException.class).hasMessageContaining("topic orders");
    }

    @Provide
    Arbitrary<Integer> formats() {
        return Arbitraries.of(1, 2);
    }

    @Provide
    Arbitrary<Double> fractions() {
        return Arbitraries.doubles().between(0, 1).withSpecialValue(0.0).withSpecialValue(1.0);
    }

    @Provide
    Arbitrary<List<Tuple2<Schema, Object>>> someSchemasAndValues() {
        return schemaAndValue().list().ofMinSize(1).ofMaxSize(12);
    }

    @Provide
    Arbitrary<Tuple2<Schema, Object>> schemaAndValue() {
        return schemas(3).flatMap(s -> values(s).map(v -> Tuple.of(s, v)));
    }

    static BinaryConverter converter(int cacheSize) {
        return converter(cacheSize, BinaryConverter.FORMAT_VERSION_DEFAULT);
    }

    static BinaryConverter converter(int cacheSize, int format) {
        BinaryConverter converter = new BinaryConverter();
        converter.configure(Map.of(BinaryConverter.SCHEMAS_CACHE_SIZE_CONFIG, cacheSize, BinaryConverter.FORMAT_VERSION_CONFIG, format,
                "converter.type", "value"), false);
        return converter;
    }

    // ---- schemas

    private static Arbitrary<Schema> schemas(int depth) {
        if (depth == 0) {
            return leaves();
        }
        Arbitrary<Schema> inner = schemas(depth - 1);
        Arbitrary<Schema> array = Combinators.combine(inner, decorations()).as((v, d) -> d.apply(SchemaBuilder.array(v)));
        Arbitrary<Schema> map = Combinators.combine(leaves(), inner, decorations()).as((k, v, d) -> d.apply(SchemaBuilder.map(k, v)));
        // Fields repeat earlier ones (as an envelope's before and after do), which format 2 writes as references.
        Arbitrary<Schema> struct = Combinators.combine(inner.list().ofMaxSize(6), Arbitraries.integers().between(0, 3), decorations())
                .as((drawn, repeats, d) -> {
                    List<Schema> fields = new ArrayList<>(drawn);
                    for (int r = 0; r < repeats && !drawn.isEmpty(); r++) {
                        fields.add(drawn.get((r * 7) % drawn.size()));
                    }
                    SchemaBuilder b = SchemaBuilder.struct();
                    for (int i = 0; i < fields.size(); i++) {
                        b.field(i % 3 == 1 ? "é字🎉" + i : "f" + i, fields.get(i));
                    }
                    return d.apply(b);
                });
        return Arbitraries.frequencyOf(Tuple.of(3, leaves()), Tuple.of(1, array), Tuple.of(1, map), Tuple.of(2, struct),
                Tuple.of(1, blocks()));
    }

    /**
     * Sluice's own blocks, which format 2 writes by number, and schemas that differ from them only
     * a little (one field's optional flag, a version, a default), which it must write out.
     */
    private static Arbitrary<Schema> blocks() {
        SchemaBuilder source = SchemaBuilder.struct().name(SourceInfo.SCHEMA.name());
        SourceInfo.SCHEMA.fields().forEach(f -> source.field(f.name(), f.name().equals("xmin") ? Schema.INT64_SCHEMA : f.schema()));
        Schema otherTransaction = SchemaBuilder.struct().optional().name(Envelope.TRANSACTION_SCHEMA.name()).version(2)
                .field("id", Schema.STRING_SCHEMA).field("total_order", Schema.INT64_SCHEMA)
                .field("data_collection_order", Schema.INT64_SCHEMA).build();
        Schema row = SchemaBuilder.struct().optional().name("t.Value").field("id", Schema.INT32_SCHEMA)
                .field("f", SchemaBuilder.float32().optional().defaultValue(ODD_FLOAT_NAN).build()).build();
        Schema rowCanonicalNan = SchemaBuilder.struct().optional().name("t.Value").field("id", Schema.INT32_SCHEMA)
                .field("f", SchemaBuilder.float32().optional().defaultValue(Float.NaN).build()).build();
        Schema bothNans = SchemaBuilder.struct().name("t.Both").field("a", row).field("b", rowCanonicalNan).field("c", row).build();
        return Arbitraries.of(SourceInfo.SCHEMA, Envelope.TRANSACTION_SCHEMA, source.build(), otherTransaction,
                Envelope.schema("t", row), Envelope.schema("t", rowCanonicalNan), bothNans);
    }

    private static Arbitrary<Schema> leaves() {
        Arbitrary<Schema> plain = Combinators.combine(Arbitraries.of(Schema.Type.INT8, Schema.Type.INT16, Schema.Type.INT32, Schema.Type.INT64,
                Schema.Type.FLOAT32, Schema.Type.FLOAT64, Schema.Type.BOOLEAN, Schema.Type.STRING, Schema.Type.BYTES), decorations(),
                Arbitraries.of(true, false, false, false)).as((type, d, withDefault) -> {
                    SchemaBuilder b = SchemaBuilder.type(type);
                    if (withDefault) {
                        b.defaultValue(DEFAULTS.get(type));
                    }
                    return d.apply(b);
                });
        Arbitrary<Schema> decimal = Combinators.combine(Arbitraries.integers().between(-5, 60), Arbitraries.of(true, false))
                .as((scale, optional) -> optional ? Decimal.builder(scale).optional().build() : Decimal.schema(scale));
        Arbitrary<Schema> logical = Arbitraries.of(Date.SCHEMA, Time.SCHEMA, Timestamp.SCHEMA, Date.builder().optional().build(),
                Timestamp.builder().optional().build(), SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).build());
        return Arbitraries.frequencyOf(Tuple.of(6, plain), Tuple.of(1, decimal), Tuple.of(1, logical));
    }

    /** Optional or not, and sometimes a name, version, doc and parameters. */
    private static Arbitrary<java.util.function.Function<SchemaBuilder, Schema>> decorations() {
        return Combinators.combine(Arbitraries.of(true, false), Arbitraries.of(0, 0, 1, 2)).as((optional, extras) -> b -> {
            if (optional) {
                b.optional();
            }
            if (extras >= 1) {
                b.name("io.sluice.test.N" + extras).doc("a doc, é");
            }
            if (extras >= 2) {
                b.version(-extras).parameters(Map.of("scale", "2", "", "empty key"));
            }
            return b.build();
        });
    }

    // ---- values

    private static Arbitrary<Object> values(Schema s) {
        Arbitrary<Object> value = nonNull(s);
        return s.isOptional() ? value.injectNull(0.2) : value;
    }

    private static Arbitrary<Object> nonNull(Schema s) {
        String name = s.name();
        if (Decimal.LOGICAL_NAME.equals(name)) {
            int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
            return Arbitraries.oneOf(Arbitraries.bigIntegers().between(BigInteger.TEN.pow(40).negate(), BigInteger.TEN.pow(40)),
                    Arbitraries.of(BigInteger.ZERO, BigInteger.TEN.pow(300), BigInteger.TEN.pow(300).negate().subtract(BigInteger.ONE)))
                    .map(unscaled -> new BigDecimal(unscaled, scale));
        }
        if (Date.LOGICAL_NAME.equals(name)) {
            return Arbitraries.integers().between(-1_000_000_000, 1_000_000_000).map(days -> new java.util.Date(days * 86_400_000L));
        }
        if (Time.LOGICAL_NAME.equals(name)) {
            return Arbitraries.integers().between(0, 86_399_999).map(ms -> new java.util.Date(ms));
        }
        if (Timestamp.LOGICAL_NAME.equals(name)) {
            return Arbitraries.longs().map(ms -> new java.util.Date(ms));
        }
        return switch (s.type()) {
            case INT8 -> Arbitraries.bytes().map(b -> (Object) b);
            case INT16 -> Arbitraries.shorts().map(v -> (Object) v);
            case INT32 -> Arbitraries.integers().map(v -> (Object) v);
            case INT64 -> Arbitraries.longs().map(v -> (Object) v);
            case FLOAT32 -> Arbitraries.oneOf(Arbitraries.floats(), Arbitraries.of(Float.NaN, ODD_FLOAT_NAN, Float.POSITIVE_INFINITY,
                    Float.NEGATIVE_INFINITY, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE)).map(v -> (Object) v);
            case FLOAT64 -> Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.of(Double.NaN, ODD_NAN, Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY, -0.0, Double.MIN_VALUE, Double.MAX_VALUE)).map(v -> (Object) v);
            case BOOLEAN -> Arbitraries.of(true, false).map(v -> (Object) v);
            case STRING -> Arbitraries.frequencyOf(Tuple.of(20, unicode()), Tuple.of(5, unicode().map(v -> "𝄞" + v + "🎉")),
                    Tuple.of(3, Arbitraries.just("")), Tuple.of(1, Arbitraries.just("x".repeat(1 << 20) + "€"))).map(v -> (Object) v);
            case BYTES -> Arbitraries.frequencyOf(Tuple.of(20, Arbitraries.bytes().array(byte[].class).ofMaxSize(40)),
                    Tuple.of(3, Arbitraries.just(new byte[0])), Tuple.of(1, Arbitraries.just(new byte[1 << 20])))
                    .flatMap(bytes -> Arbitraries.of(true, false).map(wrap -> wrap ? (Object) ByteBuffer.wrap(bytes) : bytes));
            case ARRAY -> values(s.valueSchema()).list().ofMaxSize(5).map(v -> (Object) v);
            case MAP -> Combinators.combine(values(s.keySchema()), values(s.valueSchema())).as(java.util.AbstractMap.SimpleEntry::new).list().ofMaxSize(4)
                    .map(entries -> {
                        Map<Object, Object> map = new LinkedHashMap<>();
                        entries.forEach(e -> map.putIfAbsent(keyOf(e.getKey()), e.getValue()));
                        return (Object) map;
                    });
            case STRUCT -> {
                List<Arbitrary<Object>> fields = s.fields().stream().map(f -> values(f.schema())).toList();
                yield fields.isEmpty() ? Arbitraries.just((Object) new Struct(s)) : Combinators.combine(fields).as(vs -> {
                    Struct struct = new Struct(s);
                    for (int i = 0; i < vs.size(); i++) {
                        if (vs.get(i) != null) {
                            struct.put(s.fields().get(i), vs.get(i));
                        }
                    }
                    return (Object) struct;
                });
            }
        };
    }

    /** Strings of whole code points (PostgreSQL's text holds no lone surrogates), supplementary planes included. */
    private static net.jqwik.api.arbitraries.StringArbitrary unicode() {
        return Arbitraries.strings().withCharRange('\u0000', '\uD7FF').withCharRange('\uE000', '\uFFFF').ofMaxLength(40);
    }

    /** Byte arrays are no map keys by content: a map keyed by bytes gets them as buffers, which compare by content. */
    private static Object keyOf(Object key) {
        return key instanceof byte[] b ? ByteBuffer.wrap(b) : key;
    }

    // ---- comparison: floats by their bits, bytes by content, whatever holds them

    static void assertSame(Object sent, Object back, String path) {
        if (sent instanceof ByteBuffer buffer) {
            sent = bytesOf(buffer);
        }
        if (back instanceof ByteBuffer buffer) {
            back = bytesOf(buffer);
        }
        if (sent instanceof Float f) {
            assertThat(back).as(path).isInstanceOf(Float.class);
            assertThat(Float.floatToRawIntBits((Float) back)).as(path).isEqualTo(Float.floatToRawIntBits(f));
        } else if (sent instanceof Double d) {
            assertThat(back).as(path).isInstanceOf(Double.class);
            assertThat(Double.doubleToRawLongBits((Double) back)).as(path).isEqualTo(Double.doubleToRawLongBits(d));
        } else if (sent instanceof byte[] bytes) {
            assertThat(back).as(path).isInstanceOf(byte[].class);
            assertThat((byte[]) back).as(path).isEqualTo(bytes);
        } else if (sent instanceof Struct struct) {
            assertThat(back).as(path).isInstanceOf(Struct.class);
            Struct other = (Struct) back;
            assertThat(other.schema()).as(path).isEqualTo(struct.schema());
            for (Field f : struct.schema().fields()) {
                Object expected = f.schema().defaultValue() == null ? struct.get(f) : struct.getWithoutDefault(f.name());
                if (expected == null && !f.schema().isOptional()) {
                    expected = f.schema().defaultValue(); // a required field left unset goes as its default
                }
                Object actual = f.schema().defaultValue() == null ? other.get(f) : other.getWithoutDefault(f.name());
                assertSame(expected, actual, path + "." + f.name());
            }
        } else if (sent instanceof Collection<?> items) {
            assertThat(back).as(path).isInstanceOf(List.class);
            assertThat(((List<?>) back)).as(path).hasSize(items.size());
            Iterator<?> b = ((List<?>) back).iterator();
            int i = 0;
            for (Object item : items) {
                assertSame(item, b.next(), path + "[" + i++ + "]");
            }
        } else if (sent instanceof Map<?, ?> map) {
            assertThat(back).as(path).isInstanceOf(Map.class);
            Map<?, ?> other = (Map<?, ?>) back;
            assertThat(other).as(path).hasSize(map.size());
            Iterator<? extends Map.Entry<?, ?>> b = other.entrySet().iterator();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                Map.Entry<?, ?> o = b.next(); // in the order sent
                assertSame(e.getKey(), o.getKey(), path + " key");
                assertSame(e.getValue(), o.getValue(), path + "{" + e.getKey() + "}");
            }
        } else {
            assertThat(back).as(path).isEqualTo(sent);
        }
    }

    private static byte[] bytesOf(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
