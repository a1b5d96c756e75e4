package io.sluice.transforms.transformer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;

/**
 * {@code json}: applies transformers inside a JSON document, one per path:
 * {@code json("$.contact.email"=email, "$.phones[*]"=phone)}. A path that reaches an object or
 * array rewrites every value beneath it. Text values are rewritten as text; numbers as numbers
 * when the transformer writes numbers, else as text. Paths a document lacks are skipped. The
 * document is written back compactly (a {@code json} column's own spacing is not kept).
 */
public final class JsonPaths implements Transformer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<JsonPath, Transformer> paths;

    JsonPaths(Map<JsonPath, Transformer> paths) {
        this.paths = paths;
    }

    static JsonPaths from(Params p, TransformerLibrary library) {
        Map<JsonPath, Transformer> paths = new LinkedHashMap<>();
        p.transformers().forEach((path, spec) -> paths.put(JsonPath.parse(path), library.create(spec)));
        return new JsonPaths(paths);
    }

    private record Bound(JsonPath path, ColumnRewrite text, ColumnRewrite integer, ColumnRewrite decimal) {
    }

    @Override
    public java.util.Set<String> reads() {
        java.util.Set<String> all = new java.util.LinkedHashSet<>();
        paths.values().forEach(t -> all.addAll(t.reads()));
        return all;
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        ColumnType type = ColumnType.of(schema);
        if (type != ColumnType.JSON && type != ColumnType.TEXT) {
            throw Fit.misfit("json", schema, "JSON documents");
        }
        List<Bound> bound = new ArrayList<>();
        paths.forEach((path, t) -> {
            ColumnRewrite text;
            try {
                text = t.bind(Schema.OPTIONAL_STRING_SCHEMA);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("json: at " + path + ": " + e.getMessage());
            }
            bound.add(new Bound(path, text, tryBind(t, Schema.OPTIONAL_INT64_SCHEMA), tryBind(t, Schema.OPTIONAL_FLOAT64_SCHEMA)));
        });
        return (value, row) -> {
            JsonNode root;
            try {
                root = JSON.readTree((String) value);
            } catch (JsonProcessingException e) {
                throw new DataException("The value is not JSON, so json paths cannot be applied: " + e.getOriginalMessage());
            }
            for (Bound b : bound) {
                if (b.path().root()) {
                    root = rewrite(root, b, row);
                } else {
                    b.path().forEach(root, slot -> slot.set(rewrite(slot.get(), b, row)));
                }
            }
            try {
                return JSON.writeValueAsString(root);
            } catch (JsonProcessingException e) {
                throw new DataException("Cannot write the rewritten JSON", e);
            }
        };
    }

    private static ColumnRewrite tryBind(Transformer t, Schema schema) {
        try {
            return t.bind(schema);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static JsonNode rewrite(JsonNode node, Bound b, ColumnRewrite.Row row) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (node instanceof ObjectNode object) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                object.set(name, rewrite(object.get(name), b, row));
            }
            return object;
        }
        if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, rewrite(array.get(i), b, row));
            }
            return array;
        }
        if (node.isTextual()) {
            Object out = b.text().apply(node.textValue(), row);
            return out == null ? f.nullNode() : f.textNode((String) out);
        }
        if (node.isIntegralNumber() && node.canConvertToLong() && b.integer() != null) {
            Object out = b.integer().apply(node.longValue(), row);
            return out == null ? f.nullNode() : f.numberNode((Long) out);
        }
        if (node.isNumber() && b.decimal() != null && !node.isIntegralNumber()) {
            Object out = b.decimal().apply(node.doubleValue(), row);
            return out == null ? f.nullNode() : f.numberNode((Double) out);
        }
        if (node.isNumber()) {
            Object out = b.text().apply(node.asText(), row);
            return out == null ? f.nullNode() : f.textNode((String) out);
        }
        return node; // booleans and nulls carry too little to rewrite
    }

    @Override
    public boolean costly() {
        return true; // parses and writes the document per value
    }
}
