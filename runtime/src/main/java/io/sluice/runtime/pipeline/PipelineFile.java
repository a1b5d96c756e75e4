package io.sluice.runtime.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * A pipeline file as written: its source, its targets by name ({@code target:} is one named
 * {@code target}; {@code targets:} names several, each with its keys and, under {@code
 * transforms:}, transforms of its own), the pipeline's transforms, and where offsets are kept.
 *
 * <pre>
 * source:
 *   url: postgres://sluice:secret@db:5432/shop
 * targets:
 *   staging:
 *     url: postgres://sluice:secret@staging:5432/shop
 *     transforms:
 *       transforms: mask
 *       transforms.mask.type: io.sluice.transforms.anonymize.Anonymize
 *       transforms.mask.rules: public.customers.email = email
 *   search:
 *     url: https://admin:secret@search:9200
 * </pre>
 *
 * @param targetTransforms per target, the transforms it gives itself (they replace the pipeline's for it)
 */
public record PipelineFile(String name, Map<String, String> source, Map<String, Map<String, String>> targets,
                           Map<String, Map<String, String>> targetTransforms, Map<String, String> transforms, Path offsets) {

    /** The name {@code target:} gives its one target. */
    public static final String SINGLE = "target";

    /** Keys that take one value per table: in a pipeline file, a mapping of tables to values. */
    private static final Set<String> PER_TABLE = Set.of("table.filter", "table.columns", "subset");
    private static final Set<String> KEYS = Set.of("name", "source", "target", "targets", "transforms", "offsets");

    public static PipelineFile read(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read pipeline file " + file + ": " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("Pipeline file " + file + " must be a YAML mapping with source: and target: (or targets:)");
        }
        for (var field : (Iterable<String>) root::fieldNames) {
            if (!KEYS.contains(field)) {
                throw new IllegalArgumentException("Pipeline file " + file + ": unknown key '" + field
                        + "'; expected name, source, target (or targets), transforms, offsets");
            }
        }
        if (root.has("target") == root.has("targets")) {
            throw new IllegalArgumentException("Pipeline file " + file + " needs either a 'target:' mapping or a 'targets:' mapping of "
                    + "named targets" + (root.has("target") ? ", not both" : ""));
        }
        Map<String, String> source = section(root, "source", file);
        Map<String, Map<String, String>> targets = new LinkedHashMap<>();
        Map<String, Map<String, String>> own = new LinkedHashMap<>();
        if (root.has("target")) {
            targets.put(SINGLE, section(root, "target", file));
        } else {
            JsonNode named = root.get("targets");
            if (!named.isObject() || named.isEmpty()) {
                throw new IllegalArgumentException("Pipeline file " + file + ": 'targets:' must map names to targets, e.g. targets: "
                        + "{replica: {url: postgres://...}, search: {url: https://...}}");
            }
            for (var e : named.properties()) {
                if (!e.getValue().isObject()) {
                    throw new IllegalArgumentException("Pipeline file " + file + ": target " + e.getKey() + " must be a mapping of its keys");
                }
                Map<String, String> keys = section(named, e.getKey(), file);
                keys.keySet().removeIf(k -> k.equals("transforms") || k.startsWith("transforms."));
                targets.put(e.getKey(), keys);
                if (e.getValue().has("transforms")) {
                    if (!e.getValue().get("transforms").isObject()) {
                        throw new IllegalArgumentException("Pipeline file " + file + ": target " + e.getKey() + "'s transforms: must be a "
                                + "mapping of transform keys, as the pipeline's are");
                    }
                    own.put(e.getKey(), section(e.getValue(), "transforms", file));
                }
            }
        }
        Map<String, String> transforms = root.has("transforms") ? section(root, "transforms", file) : Map.of();
        String name = root.hasNonNull("name") ? root.get("name").asText() : null;
        Path offsets = root.hasNonNull("offsets") ? Path.of(root.get("offsets").asText()) : null;
        return new PipelineFile(name, source, targets, own, transforms, offsets);
    }

    /** The transforms a target runs: its own when it has them, else the pipeline's. */
    public Map<String, String> transformsOf(String target) {
        return targetTransforms.getOrDefault(target, transforms);
    }

    private static Map<String, String> section(JsonNode root, String key, Path file) {
        JsonNode node = root.get(key);
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("Pipeline file " + file + " needs a '" + key + ":' mapping");
        }
        Map<String, String> map = new LinkedHashMap<>();
        node.properties().forEach(e -> {
            if (PER_TABLE.contains(e.getKey()) && e.getValue().isObject()) {
                // table.filter: {public.orders: "amount > 100"} is table.filter.public.orders = amount > 100
                e.getValue().properties().forEach(t -> map.put(e.getKey() + "." + t.getKey(), t.getValue().asText()));
            } else {
                map.put(e.getKey(), e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString());
            }
        });
        return map;
    }
}
