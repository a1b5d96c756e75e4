package io.sluice.schemas.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** pg_dump scripts cut into entries and put back together. */
class DumpScriptProperties {

    private static final String PREAMBLE = """
            --
            -- PostgreSQL database dump
            --

            SET statement_timeout = 0;
            SELECT pg_catalog.set_config('search_path', '', false);

            """;

    /** A script rendered from entries parses back into the same entries, so parts of a dump can travel as scripts. */
    @Property
    void renderedScriptsParseBackToTheSameEntries(@ForAll("entries") @Size(max = 8) List<DumpScript.Entry> entries) {
        DumpScript script = new DumpScript(PREAMBLE, entries);
        assertThat(DumpScript.parse(script.render())).isEqualTo(script);
    }

    @Test
    void readsPgDumpsOwnFormat() {
        String dump = PREAMBLE + """
                --
                -- Name: orders orders_pkey; Type: CONSTRAINT; Schema: public; Owner: -
                --

                ALTER TABLE ONLY public.orders
                    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);


                --
                -- Name: orders_placed; Type: INDEX; Schema: public; Owner: -
                --

                CREATE INDEX orders_placed ON public.orders USING btree (placed);


                --
                -- PostgreSQL database dump complete
                --

                """;
        DumpScript script = DumpScript.parse(dump);
        assertThat(script.preamble()).isEqualTo(PREAMBLE);
        assertThat(script.entries()).containsExactly(
                new DumpScript.Entry("orders orders_pkey", "CONSTRAINT", "public",
                        "ALTER TABLE ONLY public.orders\n    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);"),
                new DumpScript.Entry("orders_placed", "INDEX", "public", """
                        CREATE INDEX orders_placed ON public.orders USING btree (placed);


                        --
                        -- PostgreSQL database dump complete
                        --"""));
        assertThat(DumpScript.parse(script.filter(e -> e.type().equals("INDEX")).render()).entries())
                .containsExactly(script.entries().get(1));
    }

    @Provide
    Arbitrary<List<DumpScript.Entry>> entries() {
        Arbitrary<String> name = Arbitraries.strings().withChars("abcxyz_ \"'.()").ofMinLength(1).ofMaxLength(20)
                .filter(s -> !s.isBlank() && s.equals(s.strip()));
        Arbitrary<String> type = Arbitraries.of("INDEX", "CONSTRAINT", "FK CONSTRAINT", "INDEX ATTACH", "TRIGGER", "SEQUENCE SET", "COMMENT");
        Arbitrary<String> schema = Arbitraries.of("public", "-", "Sales Data", "s;x");
        Arbitrary<String> line = Arbitraries.strings().withChars("abcdefghij ();,.'\"-\t$").ofMinLength(1).ofMaxLength(40)
                .filter(s -> !s.stripLeading().startsWith("--") && !s.isBlank());
        Arbitrary<String> sql = line.list().ofMinSize(1).ofMaxSize(4).map(lines -> String.join("\n", lines).strip())
                .filter(s -> !s.isEmpty());
        return Combinators.combine(name, type, schema, sql).as(DumpScript.Entry::new).list();
    }
}
