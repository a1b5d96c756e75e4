package io.sluice.transforms.transformer;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code null}, {@code constant(value=...)} and {@code default}: the value is replaced by one that
 * carries nothing of it. NULL stays NULL unless {@code replace_null=true}, so a constant does not
 * invent data where there was none.
 */
public final class Replacement implements Transformer {

    enum Kind { NULL, CONSTANT, DEFAULT }

    private final Kind kind;
    private final String text;
    private final boolean replaceNull;

    private Replacement(Kind kind, String text, boolean replaceNull) {
        this.kind = kind;
        this.text = text;
        this.replaceNull = replaceNull;
    }

    static Replacement setNull(Params p) {
        return new Replacement(Kind.NULL, null, false);
    }

    static Replacement constant(Params p) {
        return new Replacement(Kind.CONSTANT, p.requiredText("value"), p.flag("replace_null", false));
    }

    static Replacement defaultValue(Params p) {
        return new Replacement(Kind.DEFAULT, null, p.flag("replace_null", false));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        Object out = switch (kind) {
            case NULL -> {
                if (!schema.isOptional()) {
                    throw new IllegalArgumentException("null cannot be written: the column is NOT NULL; use default or constant(value=...)");
                }
                yield null;
            }
            case CONSTANT -> {
                try {
                    yield Literals.parse(text, schema);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("constant: " + e.getMessage());
                }
            }
            case DEFAULT -> {
                try {
                    yield schema.defaultValue() != null ? schema.defaultValue() : Literals.zero(schema);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("default: " + e.getMessage());
                }
            }
        };
        boolean nulls = replaceNull;
        return new ColumnRewrite() {
            @Override
            public Object apply(Object value, Row row) {
                // A byte array is mutable: each row gets its own.
                return out instanceof byte[] b ? b.clone() : out;
            }

            @Override
            public boolean rewritesNull() {
                return nulls;
            }
        };
    }
}
