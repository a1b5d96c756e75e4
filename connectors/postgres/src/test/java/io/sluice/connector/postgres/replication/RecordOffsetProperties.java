package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.json.JsonConverter;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Invariant: an offset made from a layout is, as a map, exactly what filling a {@code HashMap}
 * with the fixed entries and then the record's own would give (equal both ways, same hash, same
 * entries, same lookups, null values and absent keys included), and {@code with} is a put on a
 * copy that leaves the original as it was.
 */
class RecordOffsetProperties {

    @Property(tries = 2000)
    void isTheMapAHashMapWouldBe(@ForAll("fixed") Map<String, Object> fixed, @ForAll("ownKeys") List<String> own,
                                 @ForAll("values") @Size(max = 6) List<Object> values, @ForAll("keys") String probe) {
        Object[] ownValues = new Object[own.size()];
        for (int i = 0; i < ownValues.length; i++) {
            ownValues[i] = values.isEmpty() ? null : values.get(i % values.size());
        }
        Map<String, Object> expected = new HashMap<>(fixed);
        for (int i = 0; i < own.size(); i++) {
            expected.put(own.get(i), ownValues[i]);
        }
        RecordOffset offset = RecordOffset.layout(fixed, own.toArray(String[]::new)).of(ownValues);

        assertThat(offset).isEqualTo(expected);
        assertThat(expected).isEqualTo(offset);
        assertThat(offset.hashCode()).isEqualTo(expected.hashCode());
        assertThat(offset.size()).isEqualTo(expected.size());
        assertThat(offset.entrySet()).isEqualTo(expected.entrySet());
        assertThat(offset.get(probe)).isEqualTo(expected.get(probe));
        assertThat(offset.containsKey(probe)).isEqualTo(expected.containsKey(probe));
        assertThat(new HashMap<>(offset)).isEqualTo(expected);
    }

    @Property(tries = 2000)
    void withIsAPutOnACopy(@ForAll("fixed") Map<String, Object> fixed, @ForAll("ownKeys") List<String> own, @ForAll("keys") String key,
                           @ForAll("values") @Size(min = 1, max = 1) List<Object> value) {
        Object[] ownValues = own.stream().map(k -> (Object) k.length()).toArray();
        RecordOffset offset = RecordOffset.layout(fixed, own.toArray(String[]::new)).of(ownValues);
        Map<String, Object> before = new HashMap<>(offset);
        Map<String, Object> expected = new HashMap<>(offset);
        expected.put(key, value.get(0));

        RecordOffset changed = offset.with(key, value.get(0));

        assertThat(changed).isEqualTo(expected);
        assertThat(changed.hashCode()).isEqualTo(expected.hashCode());
        assertThat(offset).isEqualTo(before);
    }

    /** What Connect does with a source offset: its JSON converter writes it to the offsets file or topic. */
    @Example
    void connectsJsonConverterWritesItAsAHashMap() {
        Map<String, Object> fixed = Map.of("streaming", true);
        RecordOffset offset = RecordOffset.layout(fixed, "lsn_commit", "event", "lsn_confirm", "txId").of(123L, 4L, null, 901L);
        Map<String, Object> expected = new LinkedHashMap<>(offset);
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "false"), false);

        Object read = json.toConnectData("t", json.fromConnectData("t", null, offset)).value();

        assertThat(read).isEqualTo(json.toConnectData("t", json.fromConnectData("t", null, expected)).value());
        assertThat(((Map<?, ?>) read).get("lsn_confirm")).isNull();
        assertThat(((Map<?, ?>) read).containsKey("lsn_confirm")).isTrue();
    }

    @Example
    void refusesAKeyGivenTwiceAndTheWrongNumberOfValues() {
        assertThatThrownBy(() -> RecordOffset.layout(Map.of(), "a", "a")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecordOffset.layout(Map.of(), "a", "b").of(1L)).isInstanceOf(IllegalArgumentException.class);
    }

    @Provide
    Arbitrary<String> keys() {
        // Few distinct names, so fixed and own keys collide and probes hit and miss; the empty name too.
        return Arbitraries.of("", "streaming", "lsn_commit", "event", "lsn_confirm", "txId", "snapshot_completed", "x");
    }

    @Provide
    Arbitrary<List<Object>> values() {
        return value().list().ofMaxSize(6);
    }

    private Arbitrary<Object> value() {
        return Arbitraries.oneOf(
                Arbitraries.just(null),
                Arbitraries.longs().edgeCases(c -> c.includeOnly(Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE)).map(v -> (Object) v),
                Arbitraries.of(Boolean.TRUE, Boolean.FALSE).map(v -> (Object) v),
                Arbitraries.strings().ofMaxLength(4).map(v -> (Object) v));
    }

    @Provide
    Arbitrary<Map<String, Object>> fixed() {
        // Null values too: a layout takes any map (ChangeRecords gives it a Map.copyOf, which has none).
        return keys().set().ofMaxSize(5).flatMap(names -> value().list().ofSize(names.size()).map(vs -> {
            Map<String, Object> m = new HashMap<>();
            int i = 0;
            for (String name : names) {
                m.put(name, vs.get(i++));
            }
            return m;
        }));
    }

    @Provide
    Arbitrary<List<String>> ownKeys() {
        return keys().set().ofMaxSize(5).map(set -> new ArrayList<>(Set.copyOf(set)));
    }
}
