package io.sluice.sink.opensearch.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.sink.opensearch.bulk.DocumentIds;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The query of a re-synced chunk's key range, read by a small interpreter of the query clauses it
 * uses (bool filter/should/must_not, term, range, ids): a document matches exactly when its key
 * is after the range's start and not after its end, compared column by column as the source
 * orders a composite key, and is none of the kept keys. Keys of one to three integer columns,
 * the smallest and largest values drawn; open ends.
 */
class KeyRangeQueryProperties {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Provide
    Arbitrary<long[]> keys() {
        return Arbitraries.longs().between(-3, 3).injectDuplicates(0.3)
                .edgeCases(e -> e.add(Long.MIN_VALUE).add(Long.MAX_VALUE)).array(long[].class).ofSize(3);
    }

    @Property(tries = 3000)
    void aDocumentMatchesExactlyWhenItsKeyIsInTheRangeAndNotKept(@ForAll @IntRange(min = 1, max = 3) int width,
                                                                   @ForAll("keys") long[] from, @ForAll("keys") long[] to,
                                                                   @ForAll boolean openStart, @ForAll boolean openEnd,
                                                                   @ForAll("keys") long[] doc, @ForAll("keys") long[] kept) throws Exception {
        Schema schema = schema(width);
        Struct fromKey = openStart ? null : key(schema, from);
        Struct toKey = openEnd ? null : key(schema, to);
        List<Struct> keep = List.of(key(schema, kept));
        String query = KeyRangeQuery.of(fromKey, toKey, keep, schema).orElseThrow();
        Struct document = key(schema, doc);
        boolean expected = (openStart || compare(doc, from, width) > 0) && (openEnd || compare(doc, to, width) <= 0)
                && compare(doc, kept, width) != 0;
        assertThat(matches(JSON.readTree(query), document)).as(query).isEqualTo(expected);
    }

    @Property(tries = 50)
    void aKeyOfAnythingButIntegersIsNotRanged(@ForAll boolean text) {
        Schema schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA)
                .field("other", text ? Schema.STRING_SCHEMA : org.apache.kafka.connect.data.Timestamp.SCHEMA).build();
        assertThat(KeyRangeQuery.of(null, null, List.of(), schema)).isEmpty();
    }

    private static int compare(long[] a, long[] b, int width) {
        for (int i = 0; i < width; i++) {
            int c = Long.compare(a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static Schema schema(int width) {
        SchemaBuilder b = SchemaBuilder.struct().name("k");
        for (int i = 0; i < width; i++) {
            b.field("c" + i, i == 1 ? Schema.INT32_SCHEMA : Schema.INT64_SCHEMA);
        }
        return b.build();
    }

    private static Struct key(Schema schema, long[] values) {
        Struct s = new Struct(schema);
        for (int i = 0; i < schema.fields().size(); i++) {
            s.put("c" + i, i == 1 ? (Object) (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, values[i])) : values[i]);
            values[i] = ((Number) s.get("c" + i)).longValue();
        }
        return s;
    }

    /** The clauses the query uses, evaluated against one document (its key fields). */
    private static boolean matches(JsonNode q, Struct doc) {
        if (q.has("bool")) {
            JsonNode b = q.get("bool");
            for (JsonNode f : b.path("filter")) {
                if (!matches(f, doc)) {
                    return false;
                }
            }
            for (JsonNode f : b.path("must_not")) {
                if (matches(f, doc)) {
                    return false;
                }
            }
            if (b.has("should")) {
                boolean any = false;
                for (JsonNode f : b.get("should")) {
                    any |= matches(f, doc);
                }
                return any;
            }
            return true;
        }
        if (q.has("term")) {
            var field = q.get("term").fields().next();
            return ((Number) doc.get(field.getKey())).longValue() == field.getValue().asLong();
        }
        if (q.has("range")) {
            var field = q.get("range").fields().next();
            long v = ((Number) doc.get(field.getKey())).longValue();
            JsonNode r = field.getValue();
            return (!r.has("gt") || v > r.get("gt").asLong()) && (!r.has("lt") || v < r.get("lt").asLong());
        }
        if (q.has("ids")) {
            Set<String> ids = new HashSet<>();
            q.get("ids").get("values").forEach(v -> ids.add(v.asText()));
            return ids.contains(DocumentIds.of(doc));
        }
        throw new AssertionError("a clause the interpreter does not know: " + q);
    }
}
