package io.sluice.connector.postgres.snapshot;

import java.util.BitSet;

/**
 * Which ranges of a table are fully read, kept in source offsets as compact text such as
 * {@code 0-12,15,17-20}, so a restarted snapshot skips them. Immutable.
 */
public final class FinishedRanges {

    private final BitSet done;

    private FinishedRanges(BitSet done) {
        this.done = done;
    }

    public static FinishedRanges none() {
        return new FinishedRanges(new BitSet());
    }

    public boolean contains(int range) {
        return done.get(range);
    }

    public int count() {
        return done.cardinality();
    }

    public FinishedRanges with(int range) {
        BitSet copy = (BitSet) done.clone();
        copy.set(range);
        return new FinishedRanges(copy);
    }

    public String encode() {
        StringBuilder s = new StringBuilder();
        int start = done.nextSetBit(0);
        while (start >= 0) {
            int end = done.nextClearBit(start) - 1;
            if (s.length() > 0) {
                s.append(',');
            }
            s.append(start);
            if (end > start) {
                s.append('-').append(end);
            }
            start = done.nextSetBit(end + 1);
        }
        return s.toString();
    }

    public static FinishedRanges decode(String text) {
        BitSet done = new BitSet();
        if (text == null || text.isBlank()) {
            return new FinishedRanges(done);
        }
        for (String part : text.split(",")) {
            int dash = part.indexOf('-');
            if (dash < 0) {
                done.set(Integer.parseInt(part.strip()));
            } else {
                done.set(Integer.parseInt(part.substring(0, dash).strip()), Integer.parseInt(part.substring(dash + 1).strip()) + 1);
            }
        }
        return new FinishedRanges(done);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FinishedRanges other && other.done.equals(done);
    }

    @Override
    public int hashCode() {
        return done.hashCode();
    }

    @Override
    public String toString() {
        return encode();
    }
}
