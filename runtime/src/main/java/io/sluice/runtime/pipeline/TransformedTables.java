package io.sluice.runtime.pipeline;

import java.util.ArrayList;
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
        String aliases = transforms.getOrDefault("transforms", "").strip();
        if (aliases.isEmpty()) {
            return Optional.of(List.of());
        }
        Set<String> tables = new LinkedHashSet<>();
        for (String alias : aliases.split("\\s*,\\s*")) {
            String prefix = "transforms." + alias + ".";
            if (!Anonymize.class.getName().equals(transforms.get(prefix + "type"))) {
                return Optional.empty();
            }
            for (Rule rule : RuleParser.parse(transforms.get(prefix + "rules")).rules()) {
                if (!rule.keep()) {
                    tables.add(pattern(rule.pattern().schema()) + "." + pattern(rule.pattern().table()));
                }
            }
        }
        return Optional.of(new ArrayList<>(tables));
    }

    /** A part as a table pattern writes it: globs as they are, names in quotes when they hold what a pattern would read otherwise. */
    private static String pattern(ColumnPattern.Part part) {
        if (!part.exact() || part.text().matches("[A-Za-z0-9_$]+")) {
            return part.text();
        }
        return '"' + part.text().replace("\"", "\"\"") + '"';
    }
}
