package io.sluice.transforms.anonymize;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

import io.sluice.schemas.envelope.FieldChecks;
import io.sluice.schemas.envelope.StructFill;
import io.sluice.transforms.rules.Rule;
import io.sluice.transforms.rules.RuleSet;
import io.sluice.transforms.transformer.ColumnRewrite;

/**
 * The rules of one table bound to one row (or key) schema: per field the rewrite, or none. It is
 * built when a table's schema is first seen, and building it is where everything that does not
 * fit is found and reported together: columns matched by no rule in strict mode, transformers
 * that cannot write a column's type, rules naming columns the table lacks, templates reading
 * columns that are not there.
 */
final class StructPlan {

    /** What the struct is: a row (before, after, a flat value) or a record key. */
    enum Role { ROW, KEY }

    private final Schema schema;
    private final List<Field> fields;
    private final ColumnRewrite[] rewrites;
    /** Fields in the order they are rewritten: templates last, as they read the others' new values. */
    private final int[] order;
    private final boolean identity;
    /** Whether a rewrite reads other columns (a template): only then is a view of the row needed. */
    private final boolean templates;
    /** The columns templates read. */
    private final Set<String> templateReads;
    private final FieldChecks checks;

    private StructPlan(Schema schema, ColumnRewrite[] rewrites, int[] order, Set<String> templateReads) {
        this.schema = schema;
        this.fields = schema.fields();
        this.rewrites = rewrites;
        this.order = order;
        boolean none = true;
        for (ColumnRewrite r : rewrites) {
            none &= r == null;
        }
        this.identity = none;
        this.templates = !templateReads.isEmpty();
        this.templateReads = Set.copyOf(templateReads);
        this.checks = new FieldChecks(schema);
    }

    /**
     * @throws DataException naming the table and every problem found
     */
    static StructPlan build(TableId table, Schema schema, Role role, RuleSet rules, boolean strict, boolean deterministic) {
        return build(table, schema, role, rules, strict, deterministic, Set.of());
    }

    /**
     * @param leftOut columns of the table the schema leaves out (generated columns of raw tuples, which the target
     *                computes): rules may name them
     * @throws DataException naming the table and every problem found
     */
    static StructPlan build(TableId table, Schema schema, Role role, RuleSet rules, boolean strict, boolean deterministic,
                            Set<String> leftOut) {
        List<String> problems = new ArrayList<>();
        List<Field> fields = schema.fields();
        ColumnRewrite[] rewrites = new ColumnRewrite[fields.size()];
        Map<String, Integer> index = new HashMap<>();
        for (Field f : fields) {
            index.put(f.name(), f.index());
        }
        List<Integer> templates = new ArrayList<>();
        List<Integer> plain = new ArrayList<>();
        Map<Integer, Set<String>> reads = new HashMap<>();
        for (Field f : fields) {
            String where = "column " + f.name();
            RuleSet.Compiled rule;
            try {
                rule = rules.forColumn(table.schema(), table.table(), f.name());
            } catch (IllegalArgumentException e) {
                problems.add(where + ": " + e.getMessage());
                continue;
            }
            if (rule == null) {
                if (strict && role == Role.ROW) {
                    problems.add(where + ": no rule matches it, and strict mode passes no column unnamed; add a rule, or '"
                            + table + "." + f.name() + " = keep'");
                }
                plain.add(f.index());
                continue;
            }
            if (rule.rule().keep()) {
                plain.add(f.index());
                continue;
            }
            try {
                ColumnRewrite bound = rule.transformer().bind(f.schema());
                // Outputs that depend on the value alone can be remembered (random ones and templates cannot), which pays
                // only where making one costs more than finding it again.
                boolean remember = deterministic && rule.transformer().costly() && rule.transformer().reads().isEmpty();
                rewrites[f.index()] = remember ? RepeatCache.wrap(bound) : bound;
            } catch (IllegalArgumentException e) {
                problems.add(where + " (rule '" + rule.rule() + "'): " + e.getMessage());
                continue;
            }
            Set<String> read = rule.transformer().reads();
            if (read.isEmpty()) {
                plain.add(f.index());
                if (role == Role.KEY && !deterministic) {
                    problems.add(where + " is a key column: random mode would give its row a new key in every event, so updates and "
                            + "deletes would miss it; keep it, or anonymize it with random=false");
                }
                continue;
            }
            if (role == Role.KEY) {
                problems.add(where + " is a key column: a template cannot rewrite it, as a key does not hold the columns it reads");
                continue;
            }
            templates.add(f.index());
            reads.put(f.index(), read);
        }
        for (int t : templates) {
            for (String column : reads.get(t)) {
                Integer other = index.get(column);
                if (other == null) {
                    problems.add("column " + fields.get(t).name() + ": the template reads column " + column + ", which the table does not have");
                } else if (reads.containsKey(other)) {
                    problems.add("column " + fields.get(t).name() + ": the template reads column " + column
                            + ", which is itself made by a template; templates read plain columns only");
                }
            }
        }
        if (role == Role.ROW) {
            for (Rule r : rules.exactFor(table.schema(), table.table())) {
                if (!index.containsKey(r.pattern().column().text()) && !leftOut.contains(r.pattern().column().text())) {
                    problems.add("rule '" + r + "' names column " + r.pattern().column().text() + ", which the table does not have"
                            + " (its columns: " + String.join(", ", index.keySet().stream().sorted().toList()) + ")");
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new DataException("The anonymization rules do not fit " + (role == Role.KEY ? "the key of " : "") + "table " + table
                    + ":\n  - " + String.join("\n  - ", problems));
        }
        int[] order = new int[fields.size()];
        int n = 0;
        for (int i : plain) {
            order[n++] = i;
        }
        for (int i : templates) {
            order[n++] = i;
        }
        Set<String> templateReads = new java.util.HashSet<>();
        reads.values().forEach(templateReads::addAll);
        return new StructPlan(schema, rewrites, order, templateReads);
    }

    Schema schema() {
        return schema;
    }

    boolean identity() {
        return identity;
    }

    /**
     * The struct rewritten; {@code untouched} names fields that hold no data (unchanged TOAST
     * placeholders), which stay as they are.
     */
    Struct apply(Struct in, Set<String> untouched) {
        if (identity || in == null) {
            return in;
        }
        // Values of a struct of this very schema were validated when it was made; those of another are checked here.
        boolean checked = in.schema() == schema || in.schema().equals(schema);
        Object[] values = new Object[fields.size()];
        for (Field f : fields) {
            values[f.index()] = in.get(f);
        }
        rewrite(values, checked, untouched);
        return StructFill.of(schema, values);
    }

    /** Whether a field's value is rewritten. */
    boolean rewrites(int field) {
        return rewrites[field] != null;
    }

    /** Whether a field's value is needed to rewrite a row: it is rewritten, or a template reads it. */
    boolean reads(int field) {
        return rewrites[field] != null || (templates && templateReads.contains(fields.get(field).name()));
    }

    /**
     * Rewrites a row's values, in field order, in place. Only the values {@link #reads} names need
     * be there. {@code checked}: whether the values are known to fit their fields (else the ones
     * kept are validated here; rewritten ones always are).
     */
    void rewrite(Object[] values, boolean checked, Set<String> untouched) {
        ColumnRewrite.Row row = !templates ? ColumnRewrite.NO_ROW : column -> values[schema.field(column).index()];
        for (int i : order) {
            Field f = fields.get(i);
            Object value = values[i];
            ColumnRewrite r = rewrites[i];
            if (r == null || (value == null && !r.rewritesNull()) || (!untouched.isEmpty() && untouched.contains(f.name()))) {
                if (!checked) {
                    checks.check(i, value);
                }
            } else {
                try {
                    values[i] = r.apply(value, row);
                    // Checked here rather than by Struct.put, which would check every column again (see StructFill).
                    checks.check(i, values[i]);
                } catch (RuntimeException e) {
                    throw new DataException("Cannot anonymize column " + f.name() + ": " + e.getMessage(), e);
                }
            }
        }
    }
}
