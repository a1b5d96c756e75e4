package io.sluice.transforms.transformer;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.SplittableRandom;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code noise}: moves a number by up to {@code percent} of itself either way, keeping its type,
 * its scale (digits after the point) and the column's declared precision; a whole number stays
 * whole. Sums and averages over many rows stay close to the original's, single values do not.
 * NaN and infinity stay as they are.
 */
public final class NumberNoise implements Transformer {

    private static final String PURPOSE = "noise";

    private final Seeds seeds;
    private final double fraction;

    NumberNoise(Seeds seeds, double percent) {
        this.seeds = seeds;
        this.fraction = percent / 100;
    }

    static NumberNoise from(Params p, Seeds seeds) {
        return new NumberNoise(seeds, p.decimal("percent", 10, 0.001, 1000));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        return switch (ColumnType.of(schema)) {
            case INTEGER -> (value, row) -> {
                long v = ((Number) value).longValue();
                double moved = Math.rint(v * factor(value));
                long out = moved >= Long.MAX_VALUE ? Long.MAX_VALUE : moved <= Long.MIN_VALUE ? Long.MIN_VALUE : (long) moved;
                return Numbers.box(Numbers.clamp(out, schema.type()), schema.type());
            };
            case FLOAT -> schema.type() == Schema.Type.FLOAT32
                    ? (value, row) -> (float) ((Float) value * factor(value))
                    : (value, row) -> (Double) value * factor(value);
            case NUMERIC_TEXT -> (value, row) -> {
                String text = (String) value;
                if (!Character.isDigit(text.charAt(text.length() - 1))) {
                    return text; // NaN, Infinity, -Infinity
                }
                BigDecimal v = new BigDecimal(text);
                return moved(v, v.scale(), schema, value).toPlainString();
            };
            case DECIMAL -> (value, row) -> moved((BigDecimal) value, Numbers.scale(schema), schema, value);
            default -> throw Fit.misfit("noise", schema, "numbers");
        };
    }

    private BigDecimal moved(BigDecimal v, int scale, Schema schema, Object value) {
        // The factor in millionths: exact decimal arithmetic without printing a double.
        long millionths = Math.round(factor(value) * 1_000_000);
        BigDecimal out = v.multiply(BigDecimal.valueOf(millionths, 6)).setScale(Math.max(scale, 0), RoundingMode.HALF_EVEN);
        BigDecimal largest = Numbers.largest(schema, Math.max(scale, 0));
        if (largest != null && out.abs().compareTo(largest) > 0) {
            out = out.signum() < 0 ? largest.negate() : largest;
        }
        return out;
    }

    private double factor(Object value) {
        SplittableRandom r = seeds.random(PURPOSE, ValueText.of(value));
        return 1 + (r.nextDouble() * 2 - 1) * fraction;
    }
}
