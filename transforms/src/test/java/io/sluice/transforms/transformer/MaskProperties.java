package io.sluice.transforms.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;

/**
 * Masks keep the length (in characters) and, when asked, every separator; the kept ends are
 * the original's; every other character is the mask character; a text with something to hide
 * never comes back whole; null stays null.
 */
class MaskProperties {

    @Property
    void keepsLengthEndsAndSeparators(@ForAll String value, @ForAll @IntRange(max = 4) int first, @ForAll @IntRange(max = 4) int last,
                                      @ForAll boolean separators) {
        checkShape(value, first, last, separators);
    }

    @Property
    void shortTextsOfLettersAndSeparators(@ForAll @Chars({'a', '7', '-', '.', '*'}) @StringLength(max = 6) String value,
                                          @ForAll @IntRange(max = 4) int first, @ForAll @IntRange(max = 4) int last,
                                          @ForAll boolean separators) {
        checkShape(value, first, last, separators);
    }

    /** Same length; separators kept when asked; ends kept unless that would leave nothing masked; the rest masked. */
    private static void checkShape(String value, int first, int last, boolean separators) {
        String masked = new Mask(first, last, "*", separators).apply(value);
        int[] in = value.codePoints().toArray();
        int[] out = masked.codePoints().toArray();
        assertThat(out).hasSameSizeAs(in);
        boolean toHide = value.codePoints().anyMatch(p -> p != '*' && (!separators || Character.isLetterOrDigit(p)));
        if (toHide) {
            assertThat(masked).as("%s masked", value).isNotEqualTo(value);
        }
        boolean endsKept = false;
        for (int i = 0; i < in.length; i++) {
            boolean end = i < first || i >= in.length - last;
            boolean separator = separators && !Character.isLetterOrDigit(in[i]);
            if (separator) {
                assertThat(out[i]).as("separator %d of %s -> %s", i, value, masked).isEqualTo(in[i]);
            } else if (!end) {
                assertThat(out[i]).as("character %d of %s -> %s", i, value, masked).isEqualTo('*');
            } else {
                endsKept |= out[i] == in[i] && in[i] != '*';
                assertThat(out[i]).as("end %d of %s -> %s", i, value, masked).isIn(in[i], (int) '*');
            }
        }
        for (int i = 0; i < in.length; i++) {
            if (i < first || i >= in.length - last) {
                assertThat(out[i]).as("the ends of %s are kept whole or not at all: %s", value, masked)
                        .isEqualTo(endsKept ? in[i] : separators && !Character.isLetterOrDigit(in[i]) ? in[i] : '*');
            }
        }
    }

    @Property
    void nullStaysNull(@ForAll @IntRange(max = 4) int first, @ForAll boolean separators) {
        assertThat(new Mask(first, 0, "x", separators).apply(null)).isNull();
    }
}
