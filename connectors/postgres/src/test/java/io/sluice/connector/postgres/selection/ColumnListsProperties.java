package io.sluice.connector.postgres.selection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;

/** A column list written with every name quoted reads back as those names, whatever they hold. */
class ColumnListsProperties {

    @Property
    void quotedNamesReadBackAsWritten(@ForAll @Size(min = 1, max = 12) @UniqueElements List<@From("names") String> names) {
        String text = names.stream().map(n -> " \"" + n.replace("\"", "\"\"") + "\" ").collect(Collectors.joining(","));
        assertThat(ColumnLists.names(text)).containsExactlyElementsOf(names);
        ColumnLists lists = ColumnLists.of(Map.of("table.columns.public.t", text));
        assertThat(lists.forTable("public", "t", null)).containsExactlyElementsOf(names);
    }

    /** Unquoted names are folded to lower case and stripped, as PostgreSQL reads them. */
    @Property
    void unquotedNamesAreFolded(@ForAll @Size(min = 1, max = 12) @UniqueElements List<@From("plain") String> names) {
        List<String> folded = names.stream().map(n -> n.toLowerCase(java.util.Locale.ROOT)).distinct().toList();
        if (folded.size() != names.size()) {
            return; // two names that fold alike: refused, see below
        }
        String text = names.stream().map(n -> "  " + n + " ").collect(Collectors.joining(","));
        assertThat(ColumnLists.names(text)).containsExactlyElementsOf(folded);
    }

    @Property
    void anEmptyNameOrOneTwiceIsRefused(@ForAll("plain") String name) {
        assertThatThrownBy(() -> ColumnLists.names(name + ",," + name)).hasMessageContaining("empty column name");
        assertThatThrownBy(() -> ColumnLists.names(name + ", " + name.toUpperCase(java.util.Locale.ROOT)))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> ColumnLists.names("\"" + name)).hasMessageContaining("unclosed quote");
    }

    @Provide
    Arbitrary<String> names() {
        // Anything a quoted identifier may hold: commas, quotes, blanks, dots, capitals, other scripts.
        return Arbitraries.strings().withChars("aZ_9,\". é€中 ").ofMinLength(1).ofMaxLength(20)
                .filter(s -> !s.isEmpty());
    }

    @Provide
    Arbitrary<String> plain() {
        return Arbitraries.strings().withCharRange('a', 'z').withCharRange('A', 'Z').withChars('_').ofMinLength(1).ofMaxLength(12);
    }
}
