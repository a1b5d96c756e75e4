package io.sluice.schemas.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.codec.BoundedArray;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;

/**
 * A row that went through Kafka's JSON converter (value and headers, as a Connect worker sends
 * them) and had its notes restored is the row that left: floats bit for bit (NaN, ±Infinity and
 * -0 included, which the converter alone turns into 0.0), and arrays with their lower bounds,
 * at the top of a column, inside composites and inside arrays of composites.
 */
class ValueNotesProperties {

    private static final Schema PAIR = SchemaBuilder.struct().name("pair").optional()
            .field("ratio", Schema.OPTIONAL_FLOAT32_SCHEMA)
            .field("slots", SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).optional().build())
            .build();
    private static final Schema ROW = SchemaBuilder.struct().name("t.Value").optional()
            .field("id", Schema.INT32_SCHEMA)
            .field("d", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("f", Schema.OPTIONAL_FLOAT32_SCHEMA)
            .field("ds", SchemaBuilder.array(Schema.OPTIONAL_FLOAT64_SCHEMA).optional().build())
            .field("grid", SchemaBuilder.array(SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).optional().build()).optional().build())
            .field("p", PAIR)
            .field("ps", SchemaBuilder.array(PAIR).optional().build())
            .build();
    private static final Schema ENVELOPE = Envelope.schema("t", ROW);

    @Provide
    Arbitrary<Double> doubles() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0, Double.MIN_VALUE,
                        -Double.MAX_VALUE, Double.MAX_VALUE)),
                Tuple.of(2, Arbitraries.longs().map(Double::longBitsToDouble)),
                Tuple.of(1, Arbitraries.doubles()));
    }

    private Arbitrary<Float> floats() {
        return doubles().map(Double::floatValue);
    }

    /** Lower bounds drawn at PostgreSQL's extremes and near 1. */
    private Arbitrary<Integer> lowerBound() {
        return Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just(1)), Tuple.of(2, Arbitraries.integers().between(-5, 5)),
                Tuple.of(1, Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE - 4)));
    }

    private Arbitrary<List<Integer>> ints() {
        return Arbitraries.integers().injectNull(0.2).list().ofMaxSize(4);
    }

    private Arbitrary<List<?>> bounded(Arbitrary<? extends List<?>> list, int depth) {
        return Combinators.combine(list, lowerBound().list().ofSize(depth))
                .as((l, lb) -> l.isEmpty() || lb.stream().allMatch(b -> b == 1) ? l
                        : new BoundedArray(l, lb.stream().mapToInt(Integer::intValue).toArray()));
    }

    private Arbitrary<Struct> pairs() {
        return Combinators.combine(floats().injectNull(0.3), bounded(ints(), 1).injectNull(0.3))
                .as((ratio, slots) -> new Struct(PAIR).put("ratio", ratio).put("slots", slots));
    }

    @Provide
    Arbitrary<Struct> rows() {
        Arbitrary<List<List<Integer>>> grid = Arbitraries.integers().between(1, 3).flatMap(width ->
                Arbitraries.integers().injectNull(0.2).list().ofSize(width).list().ofMinSize(1).ofMaxSize(3));
        return Combinators.combine(doubles().injectNull(0.2), floats().injectNull(0.2),
                bounded(doubles().injectNull(0.2).list().ofMaxSize(5), 1).injectNull(0.2), bounded(grid, 2).injectNull(0.2),
                pairs().injectNull(0.2), pairs().injectNull(0.2).list().ofMaxSize(3).injectNull(0.2))
                .as((d, f, ds, g, p, ps) -> new Struct(ROW).put("id", 1).put("d", d).put("f", f).put("ds", ds).put("grid", g)
                        .put("p", p).put("ps", ps));
    }

    @Property(tries = 500)
    void whatTheJsonConverterLosesComesBack(@ForAll("rows") Struct before, @ForAll("rows") Struct after) {
        Struct envelope = Envelope.create(ENVELOPE, Operation.UPDATE, before, after,
                new SourceInfo("t", "db", "public", "t", 0, SourceInfo.Snapshot.FALSE, 1L, 1L, null), 0);
        Headers headers = new ConnectHeaders();
        ValueNotes.describe(before, after, headers);

        JsonConverter values = new JsonConverter();
        values.configure(Map.of("schemas.enable", "true"), false);
        byte[] bytes = values.fromConnectData("t", ENVELOPE, envelope);
        Struct received = (Struct) values.toConnectData("t", bytes).value();
        Headers receivedHeaders = new ConnectHeaders();
        try (SimpleHeaderConverter header = new SimpleHeaderConverter()) {
            headers.forEach(h -> {
                byte[] raw = header.fromConnectHeader("t", h.key(), h.schema(), h.value());
                SchemaAndValue back = header.toConnectHeader("t", h.key(), raw);
                receivedHeaders.add(h.key(), back);
            });
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }

        ValueNotes.restore(received, receivedHeaders);
        assertThat(same(received.getStruct(Envelope.BEFORE), before)).as("before: %s vs %s", received.get(Envelope.BEFORE), before).isTrue();
        assertThat(same(received.getStruct(Envelope.AFTER), after)).as("after: %s vs %s", received.get(Envelope.AFTER), after).isTrue();
    }

    @Example
    void rowsWithNothingToNoteGetNoHeader() {
        Struct row = new Struct(ROW).put("id", 1).put("d", 1.5).put("ds", Arrays.asList(2.0, null));
        Headers headers = new ConnectHeaders();
        ValueNotes.describe(null, row, headers);
        assertThat(headers.isEmpty()).isTrue();
    }

    /** Equal values, floats by their bits and arrays with their bounds. */
    private static boolean same(Object a, Object b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (a instanceof Double x && b instanceof Double y) {
            return Double.doubleToLongBits(x) == Double.doubleToLongBits(y);
        }
        if (a instanceof Float x && b instanceof Float y) {
            return Float.floatToIntBits(x) == Float.floatToIntBits(y);
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (!Arrays.equals(bounds(x), bounds(y)) || x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!same(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Struct x && b instanceof Struct y) {
            return x.schema().fields().stream().allMatch(f -> same(x.get(f), y.get(f.name())));
        }
        return a.equals(b);
    }

    private static int[] bounds(List<?> list) {
        return list instanceof BoundedArray b ? b.lowerBounds() : new int[0];
    }
}
