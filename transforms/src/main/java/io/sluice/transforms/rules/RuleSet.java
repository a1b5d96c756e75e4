package io.sluice.transforms.rules;

import java.util.ArrayList;
import java.util.List;

import io.sluice.transforms.transformer.Transformer;
import io.sluice.transforms.transformer.TransformerLibrary;

/**
 * The rules with their transformers made, and the choice of rule for a column: the most
 * specific pattern wins (a column named outright over a column glob, then the same for the
 * table, then the schema), so {@code *.*.email = email} applies in every table and
 * {@code public.staff.email = keep} makes one exception. Two rules equally specific that
 * disagree are an error: which one applies must never depend on their order.
 */
public final class RuleSet {

    /** A rule with its transformer. */
    public record Compiled(Rule rule, Transformer transformer) {
    }

    private final List<Compiled> rules;

    private RuleSet(List<Compiled> rules) {
        this.rules = List.copyOf(rules);
    }

    /** Makes each rule's transformer; a rule whose transformer cannot be made adds a problem and is left out. */
    public static RuleSet compile(List<Rule> rules, TransformerLibrary library, List<String> problems) {
        List<Compiled> compiled = new ArrayList<>();
        for (Rule rule : rules) {
            try {
                compiled.add(new Compiled(rule, library.create(rule.transformer())));
            } catch (IllegalArgumentException e) {
                problems.add("rule " + rule + ": " + e.getMessage());
            }
        }
        return new RuleSet(compiled);
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /**
     * The rule for a column, or null when none matches.
     *
     * @throws IllegalArgumentException when two equally specific rules disagree
     */
    public Compiled forColumn(String schema, String table, String column) {
        Compiled best = null;
        for (Compiled c : rules) {
            if (!c.rule().pattern().matches(schema, table, column)) {
                continue;
            }
            if (best == null || c.rule().pattern().specificity() > best.rule().pattern().specificity()) {
                best = c;
            } else if (c.rule().pattern().specificity() == best.rule().pattern().specificity()
                    && !c.rule().transformer().equals(best.rule().transformer())) {
                throw new IllegalArgumentException("the rules '" + best.rule() + "' and '" + c.rule()
                        + "' both match it equally closely; name the column in one of them");
            }
        }
        return best;
    }

    /** Whether a rule that changes values matches some column of the table. */
    public boolean changes(String schema, String table) {
        return rules.stream().anyMatch(c -> !c.rule().keep() && c.rule().pattern().matchesTable(schema, table));
    }

    /** The rules that name one column of this table outright: their column must exist. */
    public List<Rule> exactFor(String schema, String table) {
        return rules.stream().map(Compiled::rule)
                .filter(r -> r.pattern().exact() && r.pattern().matchesTable(schema, table)).toList();
    }

    /** The rules that name a table outright (schema and table without globs). */
    public List<Rule> naming() {
        return rules.stream().map(Compiled::rule)
                .filter(r -> r.pattern().schema().exact() && r.pattern().table().exact()).toList();
    }
}
