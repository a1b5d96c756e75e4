package io.sluice.runtime.pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.envelope.EventHeaders;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * One target's own transforms, with Kafka Connect's keys ({@code transforms}, {@code
 * transforms.<alias>.type}, {@code .predicate}, {@code .negate}, and {@code predicates}), applied
 * in order as a connector applies them. A pipeline with one target lets the engine apply its
 * transforms; with several, each target's run here on the records handed to it, so one target's
 * transforms never touch another's rows. Before them, a record addressed to one target alone
 * (a re-sync's, with {@code sluice.resync.for} {@code @<target>}) is dropped for the others, and
 * reaches its target as one for every subscriber (the header removed).
 */
final class TargetTransforms implements AutoCloseable {

    /** A transform with the predicate that decides whether it applies (null: always). */
    private record Stage(Transformation<SourceRecord> transform, Predicate<SourceRecord> predicate, boolean negate) {
        SourceRecord apply(SourceRecord r) {
            if (predicate != null && predicate.test(r) == negate) {
                return r;
            }
            return transform.apply(r);
        }
    }

    private final List<Stage> stages;
    private final List<AutoCloseable> owned;
    /** {@code @<target>}, what records addressed to this target carry; null when none is. */
    private final String address;

    private TargetTransforms(List<Stage> stages, List<AutoCloseable> owned, String address) {
        this.stages = stages;
        this.owned = owned;
        this.address = address;
    }

    /** The same transforms, for the target of this name: records addressed to another are dropped. */
    TargetTransforms addressedTo(String target) {
        return new TargetTransforms(stages, owned, "@" + target);
    }

    /** None: records pass as they are. */
    static TargetTransforms none() {
        return new TargetTransforms(List.of(), List.of(), null);
    }

    /** Instantiates and configures the transforms; a wrong class or key fails naming the alias. */
    static TargetTransforms of(Map<String, String> keys) {
        List<AutoCloseable> owned = new ArrayList<>();
        Map<String, Predicate<SourceRecord>> predicates = new HashMap<>();
        for (String alias : aliases(keys.get("predicates"))) {
            Predicate<SourceRecord> p = instance(keys, "predicates." + alias, Predicate.class);
            p.configure(prefixed(keys, "predicates." + alias + "."));
            predicates.put(alias, p);
            owned.add(p);
        }
        List<Stage> stages = new ArrayList<>();
        for (String alias : aliases(keys.get("transforms"))) {
            String prefix = "transforms." + alias;
            Transformation<SourceRecord> t = instance(keys, prefix, Transformation.class);
            Map<String, String> own = prefixed(keys, prefix + ".");
            String predicateAlias = own.remove("predicate");
            boolean negate = Boolean.parseBoolean(own.remove("negate"));
            t.configure(own);
            owned.add(t);
            Predicate<SourceRecord> predicate = null;
            if (predicateAlias != null) {
                predicate = predicates.get(predicateAlias);
                if (predicate == null) {
                    throw new ConfigException(prefix + ".predicate names " + predicateAlias + ", which predicates does not list");
                }
            }
            stages.add(new Stage(t, predicate, negate));
        }
        return new TargetTransforms(List.copyOf(stages), List.copyOf(owned), null);
    }

    /** The record as this target takes it; null when a transform drops it. */
    SourceRecord apply(SourceRecord record) {
        SourceRecord r = address == null ? record : addressed(record);
        if (r == null) {
            return null;
        }
        for (Stage s : stages) {
            r = s.apply(r);
            if (r == null) {
                return null;
            }
        }
        return r;
    }

    /** The record as this target takes it: null when it is addressed to another target, without its address when to this one. */
    private SourceRecord addressed(SourceRecord record) {
        Header to = record.headers().lastWithName(EventHeaders.RESYNC_FOR);
        if (to == null || !(to.value() instanceof String value) || !value.startsWith("@")) {
            return record;
        }
        if (!value.equals(address)) {
            return null;
        }
        SourceRecord mine = record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(), record.key(), record.valueSchema(),
                record.value(), record.timestamp(), record.headers().duplicate());
        mine.headers().remove(EventHeaders.RESYNC_FOR);
        return mine;
    }

    boolean isEmpty() {
        return stages.isEmpty();
    }

    @Override
    public void close() {
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                // A transform that fails to close holds nothing the pipeline needs.
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T instance(Map<String, String> keys, String prefix, Class<?> kind) {
        String type = keys.get(prefix + ".type");
        if (type == null || type.isBlank()) {
            throw new ConfigException(prefix + ".type is missing: name the " + kind.getSimpleName() + " class");
        }
        try {
            Object o = Class.forName(type.strip()).getDeclaredConstructor().newInstance();
            if (!kind.isInstance(o)) {
                throw new ConfigException(prefix + ".type " + type + " is not a " + kind.getName());
            }
            return (T) o;
        } catch (ReflectiveOperationException e) {
            throw new ConfigException(prefix + ".type " + type + " cannot be made (" + e + "): is the class on the class path?");
        }
    }

    private static Map<String, String> prefixed(Map<String, String> keys, String prefix) {
        Map<String, String> out = new HashMap<>();
        keys.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        out.remove("type");
        return out;
    }

    private static List<String> aliases(String list) {
        return list == null || list.isBlank() ? List.of() : List.of(list.strip().split("\\s*,\\s*"));
    }
}
