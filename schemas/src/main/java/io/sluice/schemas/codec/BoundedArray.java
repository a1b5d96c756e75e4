package io.sluice.schemas.codec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;

/**
 * An array value whose indexes do not start at 1 ({@code '[0:2]={7,8,9}'}): the elements as a
 * Connect array holds them (nested per dimension), and the lower bound of each dimension, which a
 * Connect array has no room for. It is a plain {@code List} to Connect and to every consumer;
 * Sluice's sources name its bounds in a record header ({@code envelope.ValueNotes}) so they cross
 * Kafka too, and the encoder writes them back. Like any {@code List} it equals a plain list with
 * the same elements; whoever must tell bounds apart compares {@link #lowerBounds()}.
 */
public final class BoundedArray extends ArrayList<Object> {

    private static final long serialVersionUID = 1L;

    private final int[] lowerBounds;

    public BoundedArray(Collection<?> elements, int[] lowerBounds) {
        super(elements);
        this.lowerBounds = lowerBounds.clone();
    }

    /** The lower bound of each dimension, outermost first. */
    public int[] lowerBounds() {
        return lowerBounds.clone();
    }

    /** Whether bounds are all 1, PostgreSQL's default, which needs no carrying. */
    static boolean isDefault(int[] lowerBounds) {
        for (int lb : lowerBounds) {
            if (lb != 1) {
                return false;
            }
        }
        return true;
    }

    /** PostgreSQL's dimension decoration for these bounds and the element counts, such as {@code [0:2]}. */
    static String decoration(int[] lowerBounds, int[] dims) {
        StringBuilder s = new StringBuilder();
        for (int d = 0; d < dims.length; d++) {
            s.append('[').append(lowerBounds[d]).append(':').append(lowerBounds[d] + dims[d] - 1).append(']');
        }
        return s.append('=').toString();
    }

    @Override
    public String toString() {
        return Arrays.toString(lowerBounds) + super.toString();
    }
}
