package io.sluice.schemas.codec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * PostgreSQL's array text form, such as {@code {{1,2},{3,NULL}}} or {@code [0:2]={1,2,3}}:
 * its dimensions, lower bounds, and elements in row-major order (null for NULL).
 */
public record ArrayLiteral(int[] dims, int[] lowerBounds, List<String> elements) {

    /**
     * PostgreSQL's array text for a (nested) list of elements given as their text, null for
     * NULL; every element is quoted, so any text is safe. A {@link BoundedArray} is written with
     * its bounds ({@code [0:2]={...}}).
     */
    public static String format(List<?> values, char delimiter) {
        if (values instanceof BoundedArray bounded && !values.isEmpty()) {
            int[] lowerBounds = bounded.lowerBounds();
            int[] dims = new int[lowerBounds.length];
            List<?> level = values;
            for (int d = 0; d < dims.length; d++) {
                dims[d] = level.size();
                level = d + 1 < dims.length && level.get(0) instanceof List<?> inner ? inner : List.of();
            }
            return BoundedArray.decoration(lowerBounds, dims) + elements(values, delimiter);
        }
        return elements(values, delimiter);
    }

    private static String elements(List<?> values, char delimiter) {
        StringBuilder s = new StringBuilder("{");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                s.append(delimiter);
            }
            Object v = values.get(i);
            if (v == null) {
                s.append("NULL");
            } else if (v instanceof List<?> inner) {
                s.append(elements(inner, delimiter));
            } else {
                s.append('"').append(v.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            }
        }
        return s.append('}').toString();
    }

    static ArrayLiteral parse(String text, char delimiter) {
        LiteralScanner in = new LiteralScanner(text);
        int[] lowerBounds = null;
        int[] declared = null;
        if (in.peek() == '[') {
            List<int[]> bounds = new ArrayList<>();
            while (in.accept('[')) {
                String range = in.item("]", new boolean[1]);
                in.expect(']');
                int colon = range.indexOf(':');
                int lo = colon < 0 ? 1 : Integer.parseInt(range.substring(0, colon).trim());
                int hi = Integer.parseInt(range.substring(colon + 1).trim());
                bounds.add(new int[] {lo, hi});
            }
            in.expect('=');
            lowerBounds = bounds.stream().mapToInt(b -> b[0]).toArray();
            declared = bounds.stream().mapToInt(b -> b[1] - b[0] + 1).toArray();
        }
        List<String> elements = new ArrayList<>();
        List<Integer> dims = new ArrayList<>();
        in.skipSpaces();
        parseLevel(in, delimiter, 0, dims, elements);
        int[] dimArray = dims.stream().mapToInt(Integer::intValue).toArray();
        if (elements.isEmpty()) {
            return new ArrayLiteral(new int[0], new int[0], elements);
        }
        if (declared != null && !Arrays.equals(declared, dimArray)) {
            throw in.error("dimension decoration does not match the elements");
        }
        if (lowerBounds == null) {
            lowerBounds = new int[dimArray.length];
            Arrays.fill(lowerBounds, 1);
        }
        return new ArrayLiteral(dimArray, lowerBounds, elements);
    }

    private static void parseLevel(LiteralScanner in, char delimiter, int level, List<Integer> dims, List<String> elements) {
        in.expect('{');
        if (dims.size() == level) {
            dims.add(-1); // known once this first sub-array at this level is closed
        }
        int count = 0;
        in.skipSpaces();
        if (in.accept('}')) {
            if (level > 0) {
                throw in.error("empty sub-array");
            }
            dims.clear();
            return;
        }
        do {
            in.skipSpaces();
            if (in.peek() == '{') {
                parseLevel(in, delimiter, level + 1, dims, elements);
            } else {
                boolean[] quoted = new boolean[1];
                String item = in.item(delimiter + "}", quoted);
                if (!quoted[0]) {
                    item = LiteralScanner.stripSpaces(item);
                }
                elements.add(!quoted[0] && item.equalsIgnoreCase("NULL") ? null : item);
            }
            count++;
            in.skipSpaces();
        } while (in.accept(delimiter));
        in.expect('}');
        if (dims.get(level) == -1) {
            dims.set(level, count);
        } else if (dims.get(level) != count) {
            throw in.error("sub-arrays of different sizes");
        }
    }
}
