package io.sluice.transforms.transformer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code hstore}: applies transformers to the values under named keys of an hstore (or any map
 * of text): {@code hstore(email=email, phone=phone)}; {@code "*"} names every other key. Keys
 * stay, other values stay.
 */
public final class HstoreKeys implements Transformer {

    private final Map<String, Transformer> keys;

    HstoreKeys(Map<String, Transformer> keys) {
        this.keys = keys;
    }

    static HstoreKeys from(Params p, TransformerLibrary library) {
        Map<String, Transformer> keys = new LinkedHashMap<>();
        p.transformers().forEach((key, spec) -> keys.put(key, library.create(spec)));
        return new HstoreKeys(keys);
    }

    @Override
    public Set<String> reads() {
        Set<String> all = new java.util.LinkedHashSet<>();
        keys.values().forEach(t -> all.addAll(t.reads()));
        return all;
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        if (schema.type() != Schema.Type.MAP || schema.keySchema().type() != Schema.Type.STRING) {
            throw Fit.misfit("hstore", schema, "maps keyed by text (hstore)");
        }
        Map<String, ColumnRewrite> bound = new LinkedHashMap<>();
        keys.forEach((key, t) -> {
            try {
                bound.put(key, t.bind(schema.valueSchema()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("hstore: key " + key + ": " + e.getMessage());
            }
        });
        ColumnRewrite others = bound.get("*");
        return (value, row) -> {
            Map<?, ?> in = (Map<?, ?>) value;
            Map<Object, Object> out = new LinkedHashMap<>(in.size() * 2);
            for (Map.Entry<?, ?> e : in.entrySet()) {
                ColumnRewrite r = bound.getOrDefault((String) e.getKey(), others);
                Object v = e.getValue();
                out.put(e.getKey(), r == null || (v == null && !r.rewritesNull()) ? v : r.apply(v, row));
            }
            return out;
        };
    }
}
