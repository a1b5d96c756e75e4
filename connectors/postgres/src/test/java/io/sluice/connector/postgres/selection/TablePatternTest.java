package io.sluice.connector.postgres.selection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class TablePatternTest {

    @Test
    void starMatchesAnyRunAndQuestionMarkOneCharacter() {
        assertThat(TablePattern.parse("public.*").matches("public", "orders")).isTrue();
        assertThat(TablePattern.parse("public.*").matches("sales", "orders")).isFalse();
        assertThat(TablePattern.parse("*.audit_*").matches("sales", "audit_2024")).isTrue();
        assertThat(TablePattern.parse("*.audit_*").matches("sales", "audits")).isFalse();
        assertThat(TablePattern.parse("s.t?").matches("s", "t1")).isTrue();
        assertThat(TablePattern.parse("s.t?").matches("s", "t12")).isFalse();
    }

    @Test
    void regexCharactersInNamesAreLiteral() {
        assertThat(TablePattern.parse("public.a+b").matches("public", "a+b")).isTrue();
        assertThat(TablePattern.parse("public.a+b").matches("public", "aab")).isFalse();
        assertThat(TablePattern.parse("public.[x]").matches("public", "[x]")).isTrue();
    }

    @Test
    void matchingIsCaseSensitiveLikeStoredNames() {
        assertThat(TablePattern.parse("public.Orders").matches("public", "Orders")).isTrue();
        assertThat(TablePattern.parse("public.Orders").matches("public", "orders")).isFalse();
    }

    @Test
    void quotedPartsAreLiteralAndMayHoldDots() {
        TablePattern pattern = TablePattern.parse("\"my.schema\".\"odd*name\"");
        assertThat(pattern.matches("my.schema", "odd*name")).isTrue();
        assertThat(pattern.matches("my.schema", "oddXname")).isFalse();
        assertThat(TablePattern.parse("\"say \"\"hi\"\"\".*").matches("say \"hi\"", "t")).isTrue();
    }

    @Test
    void malformedPatternsSayWhatIsExpected() {
        assertThatThrownBy(() -> TablePattern.parse("orders")).hasMessageContaining("schema.table");
        assertThatThrownBy(() -> TablePattern.parse("a.b.c")).hasMessageContaining("schema.table");
        assertThatThrownBy(() -> TablePattern.parse("\"a.b")).hasMessageContaining("Unclosed quote");
    }

    /** A pattern without wildcards matches exactly the name it spells. */
    @Property
    void literalPatternMatchesOnlyItself(@ForAll @AlphaChars @StringLength(min = 1, max = 12) String schema,
                                         @ForAll @AlphaChars @StringLength(min = 1, max = 12) String table,
                                         @ForAll @AlphaChars @StringLength(min = 1, max = 12) String other) {
        TablePattern pattern = TablePattern.parse(schema + "." + table);
        assertThat(pattern.matches(schema, table)).isTrue();
        assertThat(pattern.matches(schema, other)).isEqualTo(other.equals(table));
    }

    /**
     * The regular expression handed to the DDL triggers selects exactly the tables the pattern
     * does (checked with Java's engine, which reads PostgreSQL's escapes of punctuation, "." and
     * anchors the same way).
     */
    @Property
    void postgresRegexAgreesWithMatches(@ForAll @StringLength(min = 1, max = 6) @net.jqwik.api.constraints.Chars({'a', 'b', '*', '?', '+', '(',
            '[', '$', '^', '|', '\\', '{'}) String schemaGlob,
                                        @ForAll @StringLength(min = 1, max = 6) @net.jqwik.api.constraints.Chars({'a', 'b', '*', '?', '.', ')',
            ']', '}', '$'}) String tableGlob,
                                        @ForAll @StringLength(max = 6) @net.jqwik.api.constraints.Chars({'a', 'b', '*', '+', '(', '[', '$', '\\',
            '.'}) String schema,
                                        @ForAll @StringLength(max = 6) @net.jqwik.api.constraints.Chars({'a', 'b', '?', '.', ')', '$'}) String table) {
        net.jqwik.api.Assume.that(!tableGlob.contains("."));
        TablePattern pattern = TablePattern.parse(schemaGlob + "." + tableGlob);
        boolean byRegex = java.util.regex.Pattern.compile(pattern.postgresRegex(), java.util.regex.Pattern.DOTALL)
                .matcher(schema + TablePattern.SEPARATOR + table).matches();
        assertThat(byRegex).as(pattern.postgresRegex()).isEqualTo(pattern.matches(schema, table));
    }
}
