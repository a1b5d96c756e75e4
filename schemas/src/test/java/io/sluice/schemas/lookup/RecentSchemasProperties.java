package io.sluice.schemas.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Invariants: whatever the order schemas come in, {@code of} answers what deriving from that
 * very schema object gives (never another schema's, even an equal one's); and a stream that
 * cycles through at most {@link RecentSchemas#SIZE} schemas derives each once.
 */
class RecentSchemasProperties {

    /** Equal schemas as distinct objects, and more of them than the cache holds; null too. */
    private static final List<Schema> POOL = new ArrayList<>();

    static {
        for (int i = 0; i < RecentSchemas.SIZE + 4; i++) {
            POOL.add(SchemaBuilder.struct().name("t" + (i % 5)).field("id", Schema.INT32_SCHEMA).build());
        }
        POOL.add(null);
    }

    @Property(tries = 1000)
    void answersWhatTheSchemaObjectItselfGives(@ForAll("sequences") List<Integer> sequence) {
        RecentSchemas<Integer> recent = new RecentSchemas<>(RecentSchemasProperties::indexOf);
        for (int at : sequence) {
            assertThat(recent.of(POOL.get(at))).isEqualTo(at);
        }
    }

    @Property(tries = 1000)
    void derivesEachSchemaOnceWhileTheyFit(@ForAll("fitting") List<Integer> sequence) {
        Map<Integer, Integer> derivations = new HashMap<>();
        RecentSchemas<Integer> recent = new RecentSchemas<>(schema -> {
            int at = indexOf(schema);
            derivations.merge(at, 1, Integer::sum);
            return at;
        });
        for (int at : sequence) {
            recent.of(POOL.get(at));
        }
        assertThat(derivations.values()).allMatch(n -> n == 1);
    }

    private static int indexOf(Schema schema) {
        for (int i = 0; i < POOL.size(); i++) {
            if (POOL.get(i) == schema) {
                return i;
            }
        }
        throw new AssertionError("not in the pool");
    }

    @Provide
    Arbitrary<List<Integer>> sequences() {
        return Arbitraries.integers().between(0, POOL.size() - 1).list().ofMaxSize(200);
    }

    @Provide
    Arbitrary<List<Integer>> fitting() {
        // Any order over a working set of at most SIZE schemas (null included when drawn).
        return Arbitraries.integers().between(0, POOL.size() - 1).set().ofMinSize(1).ofMaxSize(RecentSchemas.SIZE)
                .flatMap(set -> Arbitraries.of(List.copyOf(set)).list().ofMaxSize(200));
    }
}
