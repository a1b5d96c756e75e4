package io.sluice.runtime.pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.sluice.transforms.anonymize.Anonymize;
import io.sluice.transforms.rules.ColumnPattern;
import io.sluice.transforms.rules.Rule;
import io.sluice.transforms.rules.RuleParser;

/**
 * Which tables a pipeline's transforms may change, so the others can still travel as raw COPY
 * tuples: the tables named by the Anonymize rules that rewrite something. Any other transform
 * could change any table, and then none travels raw.
 */
final class TransformedTables {

    private TransformedTables() {
    }

    /**
     * Table patterns ({@code schema.table}, as table.include.list writes them) of every table a
     * transform may change; empty when that cannot be known (a transform other than Anonymize).
     */
    static Optional<List<String>> of(Map<String, String> transforms) {
        Map<String, Map<String, String>> anonymizers = anonymizers(transforms);
        if (anonymizers.size() != aliases(transforms).size()) {
            return Optional.empty();
        }
        Set<String> tables = new LinkedHashSet<>();
        for (Map<String, String> props : anonymizers.values()) {
            for (Rule rule : RuleParser.parse(props.get("rules")).rules()) {
                if (!rule.keep()) {
                    tables.add(pattern(rule.pattern().schema()) + "." + pattern(rule.pattern().table()));
                }
            }
        }
        return Optional.of(new ArrayList<>(tables));
    }

    /** The pipeline's Anonymize transforms by alias, each with its own keys (without the {@code transforms.<alias>.} prefix). */
    static Map<String, Map<String, String>> anonymizers(Map<String, String> transforms) {
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

    /** A part as a table pattern writes it: globs as they are, names in quotes when they hold what a pattern would read otherwise. */
    private static String pattern(ColumnPattern.Part part) {
        if (!part.exact() || part.text().matches("[A-Za-z0-9_$]+")) {
            return part.text();
        }
        return '"' + part.text().replace("\"", "\"\"") + '"';
    }
}
