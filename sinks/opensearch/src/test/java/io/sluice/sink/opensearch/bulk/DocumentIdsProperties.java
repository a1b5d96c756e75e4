package io.sluice.sink.opensearch.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;

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
 * Document ids. Invariants: keys of one table (one arity) that differ give ids that differ,
 * whatever they hold (the separator, the escape, a leading {@code #}, empty values, values long
 * enough to be hashed, characters of four UTF-8 bytes); every id fits OpenSearch's 512 bytes and
 * is not empty; a short single value that does not start with {@code #} is its own id.
 */
class DocumentIdsProperties {

    @Provide
    Arbitrary<String> values() {
        Arbitrary<String> edgy = Arbitraries.strings().withChars(',', '\\', '#', 'a', 'é', '\u0000', ' ').ofMinLength(0).ofMaxLength(12);
        Arbitrary<String> unicode = Arbitraries.strings().all().ofMaxLength(40)
                .filter(t -> new String(t.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(t));
        // Four-byte characters whole (PostgreSQL text never holds half of one).
        Arbitrary<String> long_ = Arbitraries.of("x", ",", "\\", "😀").list().ofMinSize(120).ofMaxSize(700).map(l -> String.join("", l));
        return Arbitraries.oneOf(edgy, unicode, long_, Arbitraries.of("", "#", "##", ",", "\\", "\\,", "a,b", "a\\", "a\\,b"));
    }

    @Property(tries = 3000)
    void differentKeysOfOneTableGiveDifferentIds(@ForAll @IntRange(min = 1, max = 4) int arity, @ForAll("values") String a0,
                                                 @ForAll("values") String a1, @ForAll("values") String a2, @ForAll("values") String a3,
                                                 @ForAll("values") String b0, @ForAll("values") String b1, @ForAll("values") String b2,
                                                 @ForAll("values") String b3) {
        List<String> a = List.of(a0, a1, a2, a3).subList(0, arity);
        List<String> b = List.of(b0, b1, b2, b3).subList(0, arity);
        String idA = DocumentIds.of(key(a));
        String idB = DocumentIds.of(key(b));
        if (a.equals(b)) {
            assertThat(idA).isEqualTo(idB);
        } else {
            assertThat(idA).as("ids of %s and %s", a, b).isNotEqualTo(idB);
        }
        assertThat(idA.getBytes(StandardCharsets.UTF_8).length).isBetween(1, DocumentIds.MAX_BYTES);
    }

    @Property
    void aShortValueIsItsOwnId(@ForAll("values") String value) {
        String id = DocumentIds.of(key(List.of(value)));
        if (!value.isEmpty() && !value.startsWith("#") && value.getBytes(StandardCharsets.UTF_8).length <= DocumentIds.MAX_BYTES) {
            assertThat(id).isEqualTo(value);
        }
        assertThat(id.getBytes(StandardCharsets.UTF_8).length).isBetween(1, DocumentIds.MAX_BYTES);
    }

    private static Struct key(List<String> values) {
        SchemaBuilder schema = SchemaBuilder.struct().name("key");
        for (int i = 0; i < values.size(); i++) {
            schema.field("k" + i, Schema.STRING_SCHEMA);
        }
        Schema built = schema.build();
        Struct key = new Struct(built);
        for (int i = 0; i < values.size(); i++) {
            key.put("k" + i, values.get(i));
        }
        return key;
    }
}
