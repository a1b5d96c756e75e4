package io.sluice.transforms.transformer;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code array}: applies a transformer to every element of an array, at every depth of a
 * nested one: {@code array(each=email)} on a {@code text[]} column. NULL elements stay NULL
 * unless the element transformer rewrites NULL.
 */
public final class ArrayElements implements Transformer {

    private final Transformer each;

    ArrayElements(Transformer each) {
        this.each = each;
    }

    static ArrayElements from(Params p, TransformerLibrary library) {
        return new ArrayElements(library.create(p.transformer("each")));
    }

    @Override
    public Set<String> reads() {
        return each.reads();
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        if (schema.type() != Schema.Type.ARRAY) {
            throw Fit.misfit("array", schema, "arrays");
        }
        Schema element = schema.valueSchema();
        ColumnRewrite inner;
        if (element.type() == Schema.Type.ARRAY) {
            inner = bind(element);
        } else {
            try {
                inner = each.bind(element);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("array: for the elements: " + e.getMessage());
            }
        }
        return (value, row) -> {
            List<?> in = (List<?>) value;
            List<Object> out = new ArrayList<>(in.size());
            for (Object v : in) {
                out.add(v == null && !inner.rewritesNull() ? null : inner.apply(v, row));
            }
            return out;
        };
    }
}
