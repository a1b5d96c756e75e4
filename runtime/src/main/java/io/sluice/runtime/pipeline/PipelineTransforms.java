package io.sluice.runtime.pipeline;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.transforms.anonymize.Anonymize;

/**
 * What a pipeline's transforms are, as far as the runtime cares: its Anonymize transforms (whose
 * rules are checked against the tables before anything runs), and whether they are all there is
 * (then snapshot rows may travel as raw COPY tuples, which Anonymize rewrites where they are; any
 * other transform needs them decoded).
 */
public final class PipelineTransforms {

    private PipelineTransforms() {
    }

    /** Whether every transform of the pipeline, if it has any, is Anonymize, which rewrites raw COPY tuples too. */
    public static boolean onlyAnonymize(Map<String, String> transforms) {
        return anonymizers(transforms).size() == aliases(transforms).size();
    }

    /** The pipeline's Anonymize transforms by alias, each with its own keys (without the {@code transforms.<alias>.} prefix). */
    public static Map<String, Map<String, String>> anonymizers(Map<String, String> transforms) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (String alias : aliases(transforms)) {
            String prefix = "transforms." + alias + ".";
            if (Anonymize.class.getName().equals(transforms.get(prefix + "type"))) {
                Map<String, String> props = new HashMap<>();
                transforms.forEach((k, v) -> {
                    if (k.startsWith(prefix)) {
                        props.put(k.substring(prefix.length()), v);
                    }
                });
                out.put(alias, props);
            }
        }
        return out;
    }

    private static List<String> aliases(Map<String, String> transforms) {
        String aliases = transforms.getOrDefault("transforms", "").strip();
        return aliases.isEmpty() ? List.of() : List.of(aliases.split("\\s*,\\s*"));
    }
}
