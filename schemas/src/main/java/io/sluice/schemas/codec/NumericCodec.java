package io.sluice.schemas.codec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * numeric, in one of three representations (see {@link NumericMode}): its exact text, a
 * {@link BigDecimal} (Connect {@code Decimal}, or Debezium's {@code VariableScaleDecimal} struct
 * when the column has no fixed scale), or a double.
 */
public final class NumericCodec implements ValueCodec {

    /** How numeric values are represented in Connect records. */
    public enum NumericMode {
        /** The exact decimal text, NaN and infinities included (STRING, {@code io.sluice.data.Numeric}). The default. */
        EXACT,
        /** Debezium's precise mode: Connect Decimal, or VariableScaleDecimal without a fixed scale; no NaN or infinities. */
        PRECISE,
        /** A FLOAT64: approximate, but every consumer understands it. */
        DOUBLE
    }

    private final NumericMode mode;
    /** The VariableScaleDecimal struct schema; null unless mode is PRECISE without a fixed scale. */
    private final Schema variableScaleSchema;

    public NumericCodec(NumericMode mode, Schema variableScaleSchema) {
        this.mode = mode;
        this.variableScaleSchema = variableScaleSchema;
    }

    @Override
    public Object fromText(String text) {
        NumericWire.Special special = NumericWire.Special.ofText(text);
        if (mode == NumericMode.EXACT) {
            if (special == null) {
                new BigDecimal(text); // reject what is not a number here, not at the sink
            }
            return text;
        }
        return represent(special != null ? special : new BigDecimal(text));
    }

    @Override
    public Object fromBinary(ByteBuffer in) {
        Object decoded = NumericWire.decode(in);
        if (mode == NumericMode.EXACT) {
            return decoded instanceof BigDecimal d ? d.toPlainString() : ((NumericWire.Special) decoded).text;
        }
        return represent(decoded);
    }

    private Object represent(Object decoded) {
        if (mode == NumericMode.DOUBLE) {
            if (decoded instanceof NumericWire.Special s) {
                return switch (s) {
                    case NAN -> Double.NaN;
                    case POSITIVE_INFINITY -> Double.POSITIVE_INFINITY;
                    case NEGATIVE_INFINITY -> Double.NEGATIVE_INFINITY;
                };
            }
            return ((BigDecimal) decoded).doubleValue();
        }
        if (decoded instanceof NumericWire.Special s) {
            throw new DataException("numeric value " + s.text + " has no Connect Decimal form; "
                    + "map numeric columns in exact mode (the default) to carry NaN and infinities");
        }
        BigDecimal value = (BigDecimal) decoded;
        if (variableScaleSchema == null) {
            return value;
        }
        return new Struct(variableScaleSchema).put("scale", value.scale()).put("value", value.unscaledValue().toByteArray());
    }

    @Override
    public void toBinary(Object value, WireBuffer out) {
        if (value instanceof String text) {
            NumericWire.Special special = NumericWire.Special.ofText(text);
            if (special != null) {
                NumericWire.encode(special, out);
            } else {
                NumericWire.encode(new BigDecimal(text), out);
            }
        } else if (value instanceof BigDecimal d) {
            NumericWire.encode(d, out);
        } else if (value instanceof Struct s) {
            NumericWire.encode(new BigDecimal(new BigInteger(s.getBytes("value")), s.getInt32("scale")), out);
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d)) {
                NumericWire.encode(NumericWire.Special.NAN, out);
            } else if (Double.isInfinite(d)) {
                NumericWire.encode(d > 0 ? NumericWire.Special.POSITIVE_INFINITY : NumericWire.Special.NEGATIVE_INFINITY, out);
            } else {
                NumericWire.encode(BigDecimal.valueOf(d), out);
            }
        } else if (value instanceof Number n) {
            NumericWire.encode(new BigDecimal(n.toString()), out);
        } else {
            throw new DataException("Expected a decimal for numeric, got " + (value == null ? "null" : value.getClass().getSimpleName()));
        }
    }
}
