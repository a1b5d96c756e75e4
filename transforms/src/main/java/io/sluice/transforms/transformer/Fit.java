package io.sluice.transforms.transformer;

import org.apache.kafka.connect.data.Schema;

/** The message when a transformer does not fit a column: what it writes, and what the column holds. */
final class Fit {

    private Fit() {
    }

    /** The rewrite of a transformer that writes text from text, bound to a column only when the column holds plain text. */
    static ColumnRewrite text(String transformer, Schema schema, java.util.function.UnaryOperator<String> rewrite) {
        if (ColumnType.of(schema) != ColumnType.TEXT) {
            throw misfit(transformer, schema, "text");
        }
        return (value, row) -> rewrite.apply((String) value);
    }

    static IllegalArgumentException misfit(String transformer, Schema schema, String writes) {
        ColumnType type = ColumnType.of(schema);
        String holds = type.description() + (schema.name() != null ? " (" + schema.name() + ")" : " (" + schema.type().name() + ")");
        return new IllegalArgumentException(transformer + " writes " + writes + " but the column holds " + holds
                + "; choose a transformer for that type, keep, or null");
    }
}
