package io.sluice.sink.webhook.payload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.sink.core.position.SourcePosition;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Invariants: an id is a function of where the change comes from (the same position, or the
 * same snapshot, table and key, give the same id; different ones, different ids), and holds only
 * {@code [A-Za-z0-9_-]}. Generators draw the edge values: LSNs at 0 and past 2^63 (compared
 * unsigned), events at 0 and Long.MAX_VALUE, keys with empty text, NULL, bytes, and composite
 * keys whose parts could be shifted between columns.
 */
class DeliveryIdsProperties {

    private static final Schema KEY = SchemaBuilder.struct().name("k")
            .field("a", Schema.OPTIONAL_STRING_SCHEMA).field("b", Schema.OPTIONAL_STRING_SCHEMA).field("c", Schema.OPTIONAL_BYTES_SCHEMA).build();

    @Provide
    Arbitrary<SourcePosition> positions() {
        Arbitrary<Long> lsns = Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L));
        Arbitrary<Long> events = Arbitraries.oneOf(Arbitraries.longs().between(0, 1_000_000), Arbitraries.of(0L, 1L, Long.MAX_VALUE));
        return Combinators.combine(lsns, events).as(SourcePosition::new);
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(Arbitraries.strings().all().ofMaxLength(20), Arbitraries.of("", "a", "ab", "b", "\u0000", "😀"))
                .injectNull(0.1);
    }

    /** Short texts over few characters — a column's name, separators, a control character — where a boundary bug shows. */
    Arbitrary<String> separatorTexts() {
        return Arbitraries.strings().withChars('b', 'c', ',', '\u0001').ofMaxLength(5);
    }

    @Provide
    Arbitrary<List<Struct>> keyPairs() {
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(4).injectNull(0.2);
        Arbitrary<Struct> keys = Combinators.combine(texts(), texts(), bytes).as((a, b, c) -> new Struct(KEY).put("a", a).put("b", b).put("c", c));
        // Two keys whose first two columns hold the same characters, split at another place.
        Arbitrary<List<Struct>> shifted = Combinators.combine(separatorTexts(), separatorTexts()).flatAs((a, b) ->
                Arbitraries.integers().between(0, a.length() + b.length()).map(at -> List.of(new Struct(KEY).put("a", a).put("b", b),
                        new Struct(KEY).put("a", (a + b).substring(0, at)).put("b", (a + b).substring(at)))));
        return Arbitraries.oneOf(keys.list().ofSize(2), shifted);
    }

    @Property(tries = 2000)
    void changeIdsFollowPositions(@ForAll("positions") SourcePosition p, @ForAll("positions") SourcePosition q,
                                  @ForAll("texts") String source) {
        String name = source == null ? "shop" : source;
        String id = DeliveryIds.ofChange(name, p);
        assertThat(id).matches("[A-Za-z0-9_-]+");
        assertThat(DeliveryIds.ofChange(name, new SourcePosition(p.commitLsn(), p.event()))).isEqualTo(id);
        assertThat(DeliveryIds.ofChange(name, q).equals(id)).isEqualTo(p.equals(q));
    }

    @Property(tries = 2000)
    void snapshotIdsFollowSnapshotTableAndKey(@ForAll("keyPairs") List<Struct> keys, @ForAll long at) {
        Struct k1 = keys.get(0);
        Struct k2 = keys.get(1);
        String id = DeliveryIds.ofSnapshotRow("shop", at, "public.t", k1);
        assertThat(id).matches("[A-Za-z0-9_-]+");
        boolean sameKey = k1.equals(k2);
        assertThat(DeliveryIds.ofSnapshotRow("shop", at, "public.t", k2).equals(id)).as("%s / %s", k1, k2).isEqualTo(sameKey);
        assertThat(DeliveryIds.ofSnapshotRow("shop", at + 1, "public.t", k1)).isNotEqualTo(id);
        assertThat(DeliveryIds.ofSnapshotRow("shop", at, "public.u", k1)).isNotEqualTo(id);
        assertThat(DeliveryIds.ofSnapshotRow("shop2", at, "public.t", k1)).isNotEqualTo(id);
    }

    @Property(tries = 200)
    void idsOfManyPositionsAndKeysNeverMeet(@ForAll("positions") SourcePosition p) {
        Map<String, String> seen = new HashMap<>();
        for (long e = 0; e < 50; e++) {
            SourcePosition at = new SourcePosition(p.commitLsn(), e);
            assertThat(seen.put(DeliveryIds.ofChange("shop", at), at.toString())).isNull();
            Struct key = new Struct(KEY).put("a", Long.toString(e)).put("b", null).put("c", null);
            assertThat(seen.put(DeliveryIds.ofSnapshotRow("shop", p.commitLsn(), "public.t", key), "key " + e)).isNull();
        }
    }
}
