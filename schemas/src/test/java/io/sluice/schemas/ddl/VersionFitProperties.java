package io.sluice.schemas.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** pg_dump scripts fitted to an older target: what it lacks is changed, nothing else. */
class VersionFitProperties {

    /** A column of a generated CREATE TABLE, and the same column as a target older than 18 must get it. */
    record Column(String original, String fitted, boolean virtual) {
    }

    record Setting(String name, String line) {
    }

    private static final List<String> SETTINGS = List.of("transaction_timeout", "statement_timeout", "search_path", "xmloption",
            "row_security", "default_table_access_method", "some.custom");

    /**
     * Below 18 every virtual generated column, written with VIRTUAL or with no keyword, becomes
     * stored, its expression untouched, whatever the expression holds (parentheses and the words
     * STORED or GENERATED inside literals and quoted names); stored ones and all else stay. At 18
     * the entry is not changed at all.
     */
    @Property
    void virtualGeneratedColumnsBecomeStoredBelow18(@ForAll @Size(min = 1, max = 6) List<@From("columns") Column> columns,
                                                    @ForAll @IntRange(min = 12, max = 19) int target) {
        String original = "CREATE TABLE public.\"t (x)\" (\n    " + columns.stream().map(Column::original).collect(Collectors.joining(",\n    ")) + "\n);";
        String fitted = "CREATE TABLE public.\"t (x)\" (\n    " + columns.stream().map(Column::fitted).collect(Collectors.joining(",\n    ")) + "\n);";
        DumpScript script = new DumpScript("", List.of(new DumpScript.Entry("t (x)", "TABLE", "public", original)));

        VersionFit.Result result = VersionFit.fit(script, target, name -> true);

        String expected = target >= 18 ? original : fitted;
        assertThat(result.script().entries()).singleElement().extracting(DumpScript.Entry::sql).isEqualTo(expected);
        boolean anyVirtual = columns.stream().anyMatch(Column::virtual);
        assertThat(result.changes()).hasSize(target < 18 && anyVirtual ? 1 : 0);
        assertThat(result.unsupported()).isEmpty();
    }

    /** The preamble keeps exactly the settings the target has, in their order, and every other line as it was. */
    @Property
    void settingsTheTargetLacksAreLeftOut(@ForAll @Size(max = 10) List<@From("settings") Setting> settings,
                                          @ForAll("names") Set<String> known) {
        StringBuilder preamble = new StringBuilder("--\n-- PostgreSQL database dump\n--\n\n");
        StringBuilder expected = new StringBuilder(preamble);
        for (Setting s : settings) {
            preamble.append(s.line()).append('\n');
            if (known.contains(s.name())) {
                expected.append(s.line()).append('\n');
            }
        }
        preamble.append("\n-- end\n");
        expected.append("\n-- end\n");
        DumpScript script = new DumpScript(preamble.toString(), List.of());

        VersionFit.Result result = VersionFit.fit(script, 15, known::contains);

        assertThat(result.script().preamble()).isEqualTo(expected.toString());
        assertThat(result.changes()).extracting(VersionFit.Change::what)
                .containsExactlyElementsOf(settings.stream().filter(s -> !known.contains(s.name())).map(s -> "SET " + s.name()).toList());
    }

    /**
     * A constraint the source does not enforce is left out below 18; the same words inside a
     * literal or a quoted name are not syntax, and the constraint stays.
     */
    @Property
    void notEnforcedConstraintsAreLeftOutBelow18(@ForAll("constraintText") String check, @ForAll boolean enforced,
                                                 @ForAll @IntRange(min = 12, max = 19) int target) {
        String sql = "ALTER TABLE public.n18\n    ADD CONSTRAINT pos CHECK ((a <> " + check + "))" + (enforced ? "" : " NOT ENFORCED") + ";";
        DumpScript script = new DumpScript("", List.of(new DumpScript.Entry("n18 pos", "CHECK CONSTRAINT", "public", sql)));

        VersionFit.Result result = VersionFit.fit(script, target, name -> true);

        boolean leftOut = !enforced && target < 18;
        assertThat(result.script().entries()).hasSize(leftOut ? 0 : 1);
        assertThat(result.changes()).hasSize(leftOut ? 1 : 0);
    }

    /**
     * What no older target can hold travels ahead as requirements: a target older than the
     * feature finds each one, a newer target none, and the requirement entries never reach the
     * script that is run.
     */
    @Property
    void requirementsStopOnlyTargetsOlderThanTheFeature(@ForAll @IntRange(min = 12, max = 19) int target,
                                                        @ForAll("quotedName") String name) {
        DumpScript post = new DumpScript("", List.of(
                new DumpScript.Entry("nn " + name, "CONSTRAINT", "public", "ALTER TABLE ONLY public.nn\n    ADD CONSTRAINT \""
                        + name.replace("\"", "\"\"") + "\" UNIQUE NULLS NOT DISTINCT (x);"),
                new DumpScript.Entry("r r_key", "CONSTRAINT", "public", "ALTER TABLE ONLY public.r\n    ADD CONSTRAINT r_key "
                        + "PRIMARY KEY (id, valid WITHOUT OVERLAPS);"),
                new DumpScript.Entry("r r_fk", "FK CONSTRAINT", "public", "ALTER TABLE ONLY public.r\n    ADD CONSTRAINT r_fk FOREIGN KEY "
                        + "(id, PERIOD valid) REFERENCES public.p(id, PERIOD valid);"),
                new DumpScript.Entry("t t_pkey", "CONSTRAINT", "public", "ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id);")));
        List<DumpScript.Entry> requirements = VersionFit.requirements(post);
        DumpScript pre = DumpScript.parse(new DumpScript("SET x = 1;\n", requirements).render());

        VersionFit.Result result = VersionFit.fit(pre, target, n -> true);

        List<Integer> expected = new ArrayList<>();
        if (target < 15) {
            expected.add(15);
        }
        if (target < 18) {
            expected.addAll(List.of(18, 18));
        }
        assertThat(requirements).hasSize(3);
        assertThat(result.unsupported()).extracting(VersionFit.Change::since).containsExactlyElementsOf(expected);
        assertThat(result.unsupported()).allSatisfy(c -> assertThat(c.what()).doesNotContain("''"));
        if (target < 15) {
            assertThat(result.unsupported().get(0).what()).contains(name);
        }
        assertThat(result.script().entries()).isEmpty();
    }

    @Test
    void namedNotNullConstraintsBecomeSetNotNullAndNotValidOnesAreLeftOut() {
        DumpScript post = new DumpScript("", List.of(
                new DumpScript.Entry("n18 b_nn", "CONSTRAINT", "public", "ALTER TABLE public.n18\n    ADD CONSTRAINT b_nn NOT NULL b NOT VALID;"),
                new DumpScript.Entry("n18 c_nn", "CONSTRAINT", "public", "ALTER TABLE ONLY public.n18\n    ADD CONSTRAINT c_nn NOT NULL \"Odd \"\"c\";")));

        VersionFit.Result result = VersionFit.fit(post, 17, n -> true);

        assertThat(result.script().entries()).extracting(DumpScript.Entry::sql)
                .containsExactly("ALTER TABLE ONLY public.n18 ALTER COLUMN \"Odd \"\"c\" SET NOT NULL;");
        assertThat(result.changes()).extracting(VersionFit.Change::kind)
                .containsExactly(VersionFit.Kind.LEFT_OUT, VersionFit.Kind.TRANSLATED);
        assertThat(VersionFit.fit(post, 18, n -> true).script()).isEqualTo(post);
    }

    @Provide
    Arbitrary<Column> columns() {
        Arbitrary<String> names = quotedName().map(n -> "\"" + n.replace("\"", "\"\"") + "\"");
        Arbitrary<String> expressions = expression(3);
        Arbitrary<Column> generated = Combinators.combine(names, expressions, Arbitraries.of("", " VIRTUAL", " STORED", " virtual"))
                .as((n, e, kind) -> {
                    String head = n + " integer GENERATED ALWAYS AS (" + e + ")";
                    boolean stored = kind.equals(" STORED");
                    return new Column(head + kind, stored ? head + kind : head + " STORED", !stored);
                });
        Arbitrary<Column> plain = Combinators.combine(names, Arbitraries.of(" integer NOT NULL", " text DEFAULT 'GENERATED ALWAYS AS (x)'",
                " integer GENERATED ALWAYS AS IDENTITY", " integer GENERATED BY DEFAULT AS IDENTITY", " numeric(10,2)", ""))
                .as((n, rest) -> new Column(n + rest, n + rest, false));
        return Arbitraries.oneOf(generated, plain);
    }

    private Arbitrary<String> expression(int depth) {
        Arbitrary<String> leaves = Arbitraries.oneOf(
                Arbitraries.of("a", "1", "NULL", "'NaN'::double precision", "'infinity'::date", "'-infinity'::timestamp"),
                quotedName().map(n -> "\"" + n.replace("\"", "\"\"") + "\""),
                literal());
        if (depth == 0) {
            return leaves;
        }
        Arbitrary<String> inner = expression(depth - 1);
        return Arbitraries.oneOf(leaves,
                Combinators.combine(inner, inner).as((x, y) -> "(" + x + " || " + y + ")"),
                inner.map(x -> "lower((" + x + ")::text)"),
                Combinators.combine(inner, inner).as((x, y) -> "COALESCE(" + x + ", " + y + ")"));
    }

    /** String literals holding what a naive scan would take for syntax, in both string forms. */
    private static Arbitrary<String> literal() {
        Arbitrary<String> text = Arbitraries.of("", ")", "((", "'", "STORED", ") STORED", "GENERATED ALWAYS AS (", "VIRTUAL", "--", "/*", "$$", "\"", "\\")
                .list().ofMaxSize(4).map(parts -> String.join(" ", parts));
        return Arbitraries.oneOf(
                text.map(t -> "'" + t.replace("'", "''") + "'"),
                text.map(t -> "E'" + t.replace("\\", "\\\\").replace("'", "\\'") + "'"));
    }

    @Provide
    Arbitrary<String> quotedName() {
        return Arbitraries.of("x", "Col (1)", "a\"b", "STORED", ") STORED (", "NOT ENFORCED", "it's", "é€", "x".repeat(63));
    }

    @Provide
    Arbitrary<String> constraintText() {
        return Arbitraries.oneOf(literal(), Arbitraries.of("'NOT ENFORCED'", "\"NOT ENFORCED\"", "'x'", "b"));
    }

    @Provide
    Arbitrary<Setting> settings() {
        return Combinators.combine(Arbitraries.of(SETTINGS), Arbitraries.of(0, 1, 2))
                .as((name, form) -> new Setting(name, switch (form) {
                    case 0 -> "SET " + name + " = 0;";
                    case 1 -> "SET " + name + " TO 'on';";
                    default -> "SELECT pg_catalog.set_config('" + name + "', '', false);";
                }));
    }

    @Provide
    Arbitrary<Set<String>> names() {
        return Arbitraries.of(SETTINGS).set();
    }
}
