package io.sluice.schemas.codec;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.connect.errors.DataException;

/**
 * Arrays as Connect arrays, nested once per dimension the column declares ({@code int[][]} is
 * an array of arrays), elements optional so NULL elements survive. Indexes that do not start at
 * 1 come as a {@link BoundedArray}, whose bounds are written back. A value with more or fewer
 * dimensions than the schema's nesting is refused with a message that says to map the column as
 * text, which keeps everything.
 */
public final class ArrayCodec implements ValueCodec {

    private final ValueCodec element;
    private final int elementOid;
    private final int depth;
    private final char delimiter;

    /**
     * @param element    the element type's codec
     * @param elementOid the element type's oid in the database the codec writes to
     * @param depth      the nesting depth of the Connect schema (declared dimensions, at least 1)
     * @param delimiter  the element type's array delimiter
     */
    public ArrayCodec(ValueCodec element, int elementOid, int depth, char delimiter) {
        this.element = element;
        this.elementOid = elementOid;
        this.depth = Math.max(1, depth);
        this.delimiter = delimiter;
    }

    @Override
    public boolean readsBinary() {
        return element.readsBinary();
    }

    @Override
    public boolean writesBinary() {
        return element.writesBinary();
    }

    @Override
    public Object fromText(String text) {
        ArrayLiteral literal = ArrayLiteral.parse(text, delimiter);
        checkShape(literal.dims());
        List<Object> flat = new ArrayList<>(literal.elements().size());
        for (String e : literal.elements()) {
            flat.add(e == null ? null : element.fromText(e));
        }
        return bounded(nest(flat, literal.dims()), literal.lowerBounds());
    }

    @Override
    public Object fromBinary(ByteBuffer in) {
        int ndim = in.getInt();
        in.getInt(); // has-nulls flag: the lengths tell
        in.getInt(); // element oid: may differ from ours when reading another database
        int[] dims = new int[ndim];
        int[] lowerBounds = new int[ndim];
        int count = ndim == 0 ? 0 : 1;
        for (int d = 0; d < ndim; d++) {
            dims[d] = in.getInt();
            lowerBounds[d] = in.getInt();
            count *= dims[d];
        }
        checkShape(dims);
        List<Object> flat = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = in.getInt();
            if (length < 0) {
                flat.add(null);
            } else {
                ByteBuffer value = in.slice(in.position(), length);
                flat.add(element.fromBinary(value));
                in.position(in.position() + length);
            }
        }
        return bounded(nest(flat, dims), lowerBounds);
    }

    private static Object bounded(Object nested, int[] lowerBounds) {
        return BoundedArray.isDefault(lowerBounds) ? nested : new BoundedArray((List<?>) nested, lowerBounds);
    }

    /**
     * Writes as many dimensions as the value has: the target's declared dimensions do not bind
     * (PostgreSQL does not enforce them, and pg_dump writes {@code int[][]} as {@code integer[]}).
     */
    @Override
    public void toBinary(Object value, WireBuffer out) {
        List<?> outer = Values.as(value, List.class, "array");
        int valueDepth = depthOf(outer);
        int[] dims = new int[valueDepth];
        List<Object> flat = new ArrayList<>();
        if (!outer.isEmpty()) {
            measure(outer, 0, dims, valueDepth);
            flatten(outer, 0, dims, flat, valueDepth);
        }
        int[] lowerBounds = new int[flat.isEmpty() ? 0 : valueDepth];
        Arrays.fill(lowerBounds, 1);
        if (!flat.isEmpty() && value instanceof BoundedArray bounded) {
            int[] kept = bounded.lowerBounds();
            if (kept.length != valueDepth) {
                throw new DataException("Array value has " + valueDepth + " dimension(s) but lower bounds for " + kept.length);
            }
            lowerBounds = kept;
        }
        write(flat.isEmpty() ? new int[0] : dims, lowerBounds, flat, false, out);
    }

    private static int depthOf(List<?> list) {
        int depth = 1;
        Object first = list.isEmpty() ? null : list.get(0);
        while (first instanceof List<?> inner) {
            depth++;
            first = inner.isEmpty() ? null : inner.get(0);
        }
        return depth;
    }

    @Override
    public void textToBinary(String text, WireBuffer out) {
        ArrayLiteral literal = ArrayLiteral.parse(text, delimiter);
        write(literal.dims(), literal.lowerBounds(), new ArrayList<>(literal.elements()), true, out);
    }

    private void write(int[] dims, int[] lowerBounds, List<?> flat, boolean elementsAsText, WireBuffer out) {
        boolean hasNulls = flat.stream().anyMatch(e -> e == null);
        out.writeInt(dims.length).writeInt(hasNulls ? 1 : 0).writeInt(elementOid);
        for (int d = 0; d < dims.length; d++) {
            out.writeInt(dims[d]).writeInt(lowerBounds[d]);
        }
        for (Object e : flat) {
            if (e == null) {
                out.writeInt(-1);
            } else {
                int at = out.reserveLength();
                if (elementsAsText) {
                    element.textToBinary((String) e, out);
                } else {
                    element.toBinary(e, out);
                }
                out.patchLength(at);
            }
        }
    }

    private void checkShape(int[] dims) {
        if (dims.length != 0 && dims.length != depth) {
            throw new DataException("Array value has " + dims.length + " dimension(s) but the column declares " + depth
                    + "; declare the column with " + dims.length + " dimension(s) or map it as text");
        }
    }

    private static Object nest(List<Object> flat, int[] dims) {
        if (dims.length <= 1) {
            return flat;
        }
        return nest(flat, dims, 0, 0);
    }

    private static List<Object> nest(List<Object> flat, int[] dims, int level, int offset) {
        List<Object> result = new ArrayList<>(dims[level]);
        int stride = 1;
        for (int d = level + 1; d < dims.length; d++) {
            stride *= dims[d];
        }
        for (int i = 0; i < dims[level]; i++) {
            if (level == dims.length - 1) {
                result.add(flat.get(offset + i));
            } else {
                result.add(nest(flat, dims, level + 1, offset + i * stride));
            }
        }
        return result;
    }

    private static void measure(List<?> list, int level, int[] dims, int depth) {
        dims[level] = list.size();
        if (level < depth - 1) {
            Object first = list.get(0);
            if (!(first instanceof List<?> inner) || inner.isEmpty()) {
                throw new DataException("Multi-dimensional array value has an empty sub-array: " + list);
            }
            measure(inner, level + 1, dims, depth);
        }
    }

    private static void flatten(List<?> list, int level, int[] dims, List<Object> flat, int depth) {
        if (list.size() != dims[level]) {
            throw new DataException("Multi-dimensional array value has sub-arrays of different sizes");
        }
        for (Object item : list) {
            if (level < depth - 1) {
                if (!(item instanceof List<?> inner)) {
                    throw new DataException("Multi-dimensional array value mixes arrays and elements");
                }
                flatten(inner, level + 1, dims, flat, depth);
            } else {
                flat.add(item);
            }
        }
    }
}
