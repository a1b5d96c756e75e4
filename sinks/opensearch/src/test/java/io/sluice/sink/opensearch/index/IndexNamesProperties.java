package io.sluice.sink.opensearch.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Index names. Invariants: whatever a schema, table or topic is called, the name is one
 * OpenSearch accepts — not empty, lower case, none of {@code \ / * ? " < > | , # :} nor white
 * space, not starting with {@code _ - +}, not {@code .} or {@code ..}, at most 255 bytes with its
 * version suffix, no character cut in half — and making a legal name legal changes nothing.
 */
class IndexNamesProperties {

    @Provide
    Arbitrary<String> parts() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withChars("\\/*?\"<>|,#: \t\n_-+.aZ".toCharArray()).ofMaxLength(10),
                // Names come from PostgreSQL as valid text: no lone surrogate halves.
                Arbitraries.strings().all().ofMaxLength(30).filter(s -> new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s)),
                Arbitraries.of("Ä", "ß", "😀", "x").list().ofMinSize(60).ofMaxSize(200).map(l -> String.join("", l)),
                Arbitraries.of("", ".", "..", "_x", "-x", "+x", "İ", "ǅ"));
    }

    @Property(tries = 3000)
    void everyNameIsLegalAndStable(@ForAll("parts") String schema, @ForAll("parts") String table, @ForAll("parts") String topic) {
        String name = new IndexNames("${schema}.${table}").name(schema, table, topic);
        String other = new IndexNames("${topic}").name(schema, table, topic);
        for (String n : new String[] {name, other}) {
            assertThat(n).isNotEmpty();
            assertThat(n).isEqualTo(n.toLowerCase(Locale.ROOT));
            assertThat(n.chars().noneMatch(c -> "\\/*?\"<>|,#:".indexOf(c) >= 0 || Character.isWhitespace(c))).as(n).isTrue();
            assertThat(n).doesNotStartWith("_").doesNotStartWith("-").doesNotStartWith("+").isNotEqualTo(".").isNotEqualTo("..");
            String physical = IndexNames.physical(n, 999);
            assertThat(physical.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(IndexNames.MAX_BYTES);
            assertThat(new String(n.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).as("no character cut in half").isEqualTo(n);
            assertThat(IndexNames.legal(n)).isEqualTo(n);
        }
    }

    /**
     * A version's name gives its version back, under its own alias only: not under an alias that is
     * a prefix of it ({@code items_v} of {@code items_v_v1}), and not for names of other aliases that
     * start alike ({@code items_vx_v1} is no version of {@code items}).
     */
    @Property(tries = 1000)
    void aVersionsNameGivesItsVersionUnderItsOwnAliasOnly(@ForAll("parts") String alias, @ForAll("parts") String other,
                                                         @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int version) {
        String physical = IndexNames.physical(alias, version);
        assertThat(IndexNames.versionOf(alias, physical)).isEqualTo(version);
        assertThat(IndexNames.versionOf(alias + "_v", IndexNames.physical(alias + "_v", version))).isEqualTo(version);
        assertThat(IndexNames.versionOf(alias, IndexNames.physical(alias + "_vx" + other, version))).isEqualTo(-1);
        assertThat(IndexNames.versionOf(alias, alias + "_v")).isEqualTo(-1);
        assertThat(IndexNames.versionOf(alias, alias)).isEqualTo(-1);
    }
}
