package io.sluice.sink.postgres.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;

/**
 * Invariant: the statements {@link EnumLabels#changes} gives, run on the target's labels, leave
 * exactly the source's labels in the source's order, for what one source statement can do to an
 * enum (add a label anywhere, or rename one), and for any number of additions at once; and
 * labels that are already equal need nothing.
 */
class EnumLabelsProperties {

    private static final Pattern RENAME = Pattern.compile("ALTER TYPE t RENAME VALUE '(\\w+)' TO '(\\w+)'");
    private static final Pattern ADD = Pattern.compile("ALTER TYPE t ADD VALUE IF NOT EXISTS '(\\w+)'(?: (AFTER|BEFORE) '(\\w+)')?");

    @Property
    void oneAdditionAnywhere(@ForAll @Size(max = 8) @UniqueElements List<@IntRange(max = 99) Integer> labels,
                             @ForAll @IntRange(max = 8) int place) {
        List<String> have = names(labels);
        List<String> want = new ArrayList<>(have);
        want.add(Math.min(place, want.size()), "fresh");
        assertThat(run(have, EnumLabels.changes("t", have, want))).isEqualTo(want);
    }

    @Property
    void oneRenameAnywhere(@ForAll @Size(min = 1, max = 8) @UniqueElements List<@IntRange(max = 99) Integer> labels,
                           @ForAll @IntRange(max = 7) int place) {
        List<String> have = names(labels);
        List<String> want = new ArrayList<>(have);
        int at = place % want.size();
        want.set(at, "renamed");
        List<String> statements = EnumLabels.changes("t", have, want);
        assertThat(statements).containsExactly("ALTER TYPE t RENAME VALUE '" + have.get(at) + "' TO 'renamed'");
        assertThat(run(have, statements)).isEqualTo(want);
    }

    @Property
    void manyAdditionsAtOnce(@ForAll @Size(max = 10) @UniqueElements List<@IntRange(max = 99) Integer> labels,
                             @ForAll @Size(max = 10) List<Boolean> keep) {
        List<String> want = names(labels);
        List<String> have = new ArrayList<>();
        for (int i = 0; i < want.size(); i++) {
            if (i < keep.size() && keep.get(i)) {
                have.add(want.get(i));
            }
        }
        assertThat(run(have, EnumLabels.changes("t", have, want))).isEqualTo(want);
    }

    @Property
    void equalLabelsNeedNothing(@ForAll @Size(max = 10) @UniqueElements List<@IntRange(max = 99) Integer> labels) {
        assertThat(EnumLabels.changes("t", names(labels), names(labels))).isEmpty();
    }

    private static List<String> names(List<Integer> labels) {
        return labels.stream().map(i -> "l" + i).toList();
    }

    /** Runs the statements as PostgreSQL would on a list of labels in sort order. */
    private static List<String> run(List<String> have, List<String> statements) {
        List<String> labels = new ArrayList<>(have);
        for (String statement : statements) {
            Matcher rename = RENAME.matcher(statement);
            Matcher add = ADD.matcher(statement);
            if (rename.matches()) {
                assertThat(labels).contains(rename.group(1)).doesNotContain(rename.group(2));
                labels.set(labels.indexOf(rename.group(1)), rename.group(2));
            } else if (add.matches()) {
                if (labels.contains(add.group(1))) {
                    continue;
                }
                if (add.group(2) == null) {
                    labels.add(add.group(1));
                } else {
                    assertThat(labels).as("neighbour of " + statement).contains(add.group(3));
                    int at = labels.indexOf(add.group(3));
                    labels.add("AFTER".equals(add.group(2)) ? at + 1 : at, add.group(1));
                }
            } else {
                throw new AssertionError("Not a statement on enum labels: " + statement);
            }
        }
        return labels;
    }
}
