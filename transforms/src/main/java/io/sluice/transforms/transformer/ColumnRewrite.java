package io.sluice.transforms.transformer;

/** A transformer bound to one column's schema: rewrites a value of that column. */
@FunctionalInterface
public interface ColumnRewrite {

    /** The values of the row being rewritten, as rewritten so far. */
    @FunctionalInterface
    interface Row {
        Object get(String column);
    }

    /** A row for rewrites that read no other column. */
    Row NO_ROW = column -> {
        throw new IllegalStateException("No row to read column " + column + " from");
    };

    /**
     * The new value. Called with null only when {@link #rewritesNull()}; otherwise null stays null.
     */
    Object apply(Object value, Row row);

    /** Whether null is rewritten too (a constant replaces every value) rather than kept. */
    default boolean rewritesNull() {
        return false;
    }

    /** A rewrite that leaves values as they are. */
    ColumnRewrite IDENTITY = (value, row) -> value;
}
