package io.sluice.schemas.codec;

import java.util.ArrayList;
import java.util.List;

/**
 * A range's text form, such as {@code [1,5)}, {@code (,"2020-01-01 00:00:00"]} or {@code empty}.
 * A null bound is unbounded; a bound's text is the subtype's own text form, unquoted.
 */
public record RangeLiteral(boolean empty, String lower, String upper, boolean lowerInclusive, boolean upperInclusive) {

    static final int EMPTY = 0x01;
    static final int LOWER_INCLUSIVE = 0x02;
    static final int UPPER_INCLUSIVE = 0x04;
    static final int LOWER_INFINITE = 0x08;
    static final int UPPER_INFINITE = 0x10;

    /** Parses a range's text; a {@link org.apache.kafka.connect.errors.DataException} says where it is malformed. */
    public static RangeLiteral parse(String text) {
        return parse(new LiteralScanner(text.strip()));
    }

    /** Parses a multirange's text ({@code {[1,3),[5,7)}}, {@code {}}) into its ranges, in order. */
    public static List<RangeLiteral> parseMultirange(String text) {
        LiteralScanner in = new LiteralScanner(text.strip());
        in.expect('{');
        List<RangeLiteral> ranges = new ArrayList<>();
        in.skipSpaces();
        if (in.accept('}')) {
            return ranges;
        }
        do {
            ranges.add(parse(in));
            in.skipSpaces();
        } while (in.accept(','));
        in.expect('}');
        return ranges;
    }

    static RangeLiteral parse(LiteralScanner in) {
        in.skipSpaces();
        if (in.startsWith("empty")) {
            in.skip(5);
            return new RangeLiteral(true, null, null, false, false);
        }
        char open = in.next();
        if (open != '[' && open != '(') {
            throw in.error("a range starts with [ or (");
        }
        boolean[] quoted = new boolean[1];
        String lower = in.item(",", quoted);
        boolean lowerBounded = quoted[0] || !lower.isEmpty();
        in.expect(',');
        String upper = in.item("])", quoted);
        boolean upperBounded = quoted[0] || !upper.isEmpty();
        char close = in.next();
        if (close != ']' && close != ')') {
            throw in.error("a range ends with ] or )");
        }
        return new RangeLiteral(false, lowerBounded ? lower : null, upperBounded ? upper : null, open == '[', close == ']');
    }

    int flags() {
        if (empty) {
            return EMPTY;
        }
        int flags = 0;
        if (lower == null) {
            flags |= LOWER_INFINITE;
        } else if (lowerInclusive) {
            flags |= LOWER_INCLUSIVE;
        }
        if (upper == null) {
            flags |= UPPER_INFINITE;
        } else if (upperInclusive) {
            flags |= UPPER_INCLUSIVE;
        }
        return flags;
    }
}
