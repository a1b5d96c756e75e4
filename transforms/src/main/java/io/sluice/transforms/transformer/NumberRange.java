package io.sluice.transforms.transformer;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.SplittableRandom;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code number_range}: replaces a number with one drawn between {@code min} and {@code max}
 * (seeded by the value), with the original's scale: a salary becomes another plausible salary.
 */
public final class NumberRange implements Transformer {

    private static final String PURPOSE = "number_range";

    private final Seeds seeds;
    private final BigDecimal min;
    private final BigDecimal max;

    NumberRange(Seeds seeds, BigDecimal min, BigDecimal max) {
        if (min.compareTo(max) > 0) {
            throw new IllegalArgumentException("number_range: the range is empty, min " + min + " > max " + max);
        }
        this.seeds = seeds;
        this.min = min;
        this.max = max;
    }

    static NumberRange from(Params p, Seeds seeds) {
        return new NumberRange(seeds, decimal(p, "min"), decimal(p, "max"));
    }

    private static BigDecimal decimal(Params p, String key) {
        String text = p.requiredText(key);
        try {
            return new BigDecimal(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("number_range: " + key + " must be a number, not '" + text + "'");
        }
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        return switch (ColumnType.of(schema)) {
            case INTEGER -> {
                BigDecimal lo = min.setScale(0, RoundingMode.CEILING);
                BigDecimal hi = max.setScale(0, RoundingMode.FLOOR);
                if (lo.compareTo(hi) > 0 || lo.longValue() < Numbers.min(schema.type()) || hi.compareTo(BigDecimal.valueOf(Numbers.max(schema.type()))) > 0) {
                    throw new IllegalArgumentException("number_range: [" + min + ", " + max + "] holds no whole number a column of type "
                            + schema.type() + " takes");
                }
                yield (value, row) -> Numbers.box(draw(value, 0).longValueExact(), schema.type());
            }
            case FLOAT -> {
                double lo = min.doubleValue();
                double span = max.doubleValue() - lo;
                yield schema.type() == Schema.Type.FLOAT32
                        ? (value, row) -> (float) (lo + span * seeds.random(PURPOSE, ValueText.of(value)).nextDouble())
                        : (value, row) -> lo + span * seeds.random(PURPOSE, ValueText.of(value)).nextDouble();
            }
            case NUMERIC_TEXT -> (value, row) -> {
                String text = (String) value;
                return Character.isDigit(text.charAt(text.length() - 1)) ? draw(value, Math.max(0, new BigDecimal(text).scale())).toPlainString() : text;
            };
            case DECIMAL -> (value, row) -> draw(value, Numbers.scale(schema));
            default -> throw Fit.misfit("number_range", schema, "numbers");
        };
    }

    private BigDecimal draw(Object value, int scale) {
        SplittableRandom r = seeds.random(PURPOSE, ValueText.of(value));
        BigDecimal lo = min.setScale(scale, RoundingMode.CEILING);
        BigDecimal hi = max.setScale(scale, RoundingMode.FLOOR);
        if (lo.compareTo(hi) > 0) {
            return lo; // no value of this scale lies in the range; its lower end rounded up is nearest
        }
        BigDecimal steps = hi.subtract(lo).movePointRight(scale);
        if (steps.compareTo(BigDecimal.valueOf(Long.MAX_VALUE - 1)) < 0) {
            return lo.add(BigDecimal.valueOf(r.nextLong(steps.longValueExact() + 1)).movePointLeft(scale));
        }
        // Wider than a long counts: a double's 53 bits of choice are plenty for a fake.
        BigDecimal out = lo.add(hi.subtract(lo).multiply(BigDecimal.valueOf(r.nextDouble()))).setScale(scale, RoundingMode.FLOOR);
        return out.min(hi).max(lo);
    }
}
