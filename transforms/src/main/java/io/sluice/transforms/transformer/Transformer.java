package io.sluice.transforms.transformer;

import java.util.Set;

import org.apache.kafka.connect.data.Schema;

/**
 * A rewrite of a column's values that a rule names ({@code email}, {@code mask(keep_last=4)}).
 * It is bound once per column schema, which is where a transformer that cannot produce values
 * of the column's type says so; the bound rewrite then runs on every value. The output always
 * has the column's own type, so target tables keep the source's definition.
 */
public interface Transformer {

    /**
     * The rewrite for a column of this schema.
     *
     * @throws IllegalArgumentException when this transformer cannot write values of the column's
     *                                  type, saying what it writes and what would fit
     */
    ColumnRewrite bind(Schema schema);

    /** The other columns of the row whose values it reads (a template's). */
    default Set<String> reads() {
        return Set.of();
    }

    /**
     * Whether remembering recent outputs pays: true for rewrites that cost more than a lookup in a
     * table of recent values, which on a busy pipeline is a few cache misses (some hundred
     * nanoseconds). Name picks, shifts and noise are cheaper to redo.
     */
    default boolean costly() {
        return false;
    }

}
