package io.sluice.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's array and hstore parsers skip ASCII whitespace only, and its output quotes only
 * elements with ASCII whitespace: an element that is or ends in another space (U+2003, U+3000)
 * comes unquoted and is data. Found by TypeRoundTripIT's text property, which saw such an
 * element decode empty from text and whole from binary.
 */
class LiteralSpacesTest {

    @Test
    void nonAsciiSpacesInUnquotedArrayElementsAreKept() {
        ArrayLiteral literal = ArrayLiteral.parse("{ \u2003 ,a\u3000, b }", ',');
        assertThat(literal.elements()).containsExactly("\u2003", "a\u3000", "b");
        assertThat(Arrays.stream(literal.dims()).boxed()).containsExactly(3);
    }

    @Test
    void nonAsciiSpacesInUnquotedHstoreValuesAreKept() {
        assertThat(HstoreLiteral.parse("k\u2003 => \u2003v")).containsEntry("k\u2003", "\u2003v");
    }
}
