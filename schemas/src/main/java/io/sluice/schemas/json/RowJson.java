package io.sluice.schemas.json;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.codec.TemporalCodecs;
import io.sluice.schemas.codec.Timestamps;
import io.sluice.schemas.mapping.LogicalTypes;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * A row of change events as JSON, exact where JSON is not: one field per column, written by
 * every sink that sends JSON (OpenSearch documents, webhook payloads).
 * <ul>
 * <li>dates {@code 2024-05-01}, timestamps {@code 2024-05-01T10:15:30.123456} (timestamptz in
 *     UTC with {@code Z}), times {@code 10:15:30.5}; the infinities as {@code infinity},
 *     {@code -infinity}; years past 9999 and before 1 with a sign;</li>
 * <li>numeric as its exact decimal text (a string: JSON readers would round it); floats as
 *     numbers, NaN and the infinities as the strings {@code NaN}, {@code Infinity},
 *     {@code -Infinity};</li>
 * <li>json and jsonb as the JSON itself; bytes as base64; arrays as arrays, NULL elements kept;</li>
 * <li>other PostgreSQL types as PostgreSQL writes them.</li>
 * </ul>
 * A sink that writes some types in its own way overrides {@link #json} or {@link #pgText}.
 */
public class RowJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Writes the row's fields as a JSON object.
     *
     * @param leaveOut columns not to write (unchanged TOASTed values the event does not carry)
     */
    public void write(Struct row, Set<String> leaveOut, JsonGenerator out) throws IOException {
        out.writeStartObject();
        for (Field field : row.schema().fields()) {
            if (leaveOut.contains(field.name())) {
                continue;
            }
            out.writeFieldName(field.name());
            try {
                value(field.schema(), row.get(field), out);
            } catch (DataException e) {
                throw new DataException("Column " + field.name() + ": " + e.getMessage(), e);
            }
        }
        out.writeEndObject();
    }

    /** Writes one column's value. */
    public void writeValue(Schema schema, Object value, JsonGenerator out) throws IOException {
        value(schema, value, out);
    }

    private void value(Schema schema, Object value, JsonGenerator out) throws IOException {
        if (value == null) {
            out.writeNull();
            return;
        }
        String name = schema.name();
        if (name != null && named(schema, name, value, out)) {
            return;
        }
        switch (schema.type()) {
            case BOOLEAN -> out.writeBoolean((Boolean) value);
            case INT8, INT16, INT32 -> out.writeNumber(((Number) value).intValue());
            case INT64 -> out.writeNumber((Long) value);
            case FLOAT32 -> floating(((Float) value).doubleValue(), true, out);
            case FLOAT64 -> floating((Double) value, false, out);
            case STRING -> out.writeString((String) value);
            case BYTES -> out.writeBinary(bytes(value));
            case ARRAY -> {
                out.writeStartArray();
                for (Object element : (List<?>) value) {
                    value(schema.valueSchema(), element, out);
                }
                out.writeEndArray();
            }
            case MAP -> {
                out.writeStartObject();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    out.writeFieldName(String.valueOf(e.getKey()));
                    value(schema.valueSchema(), e.getValue(), out);
                }
                out.writeEndObject();
            }
            case STRUCT -> write((Struct) value, Set.of(), out);
        }
    }

    private boolean named(Schema schema, String name, Object value, JsonGenerator out) throws IOException {
        switch (name) {
            case LogicalTypes.DATE -> out.writeString(date((Integer) value));
            case LogicalTypes.MICRO_TIMESTAMP -> out.writeString(timestamp((Long) value));
            case LogicalTypes.MICRO_TIME -> out.writeString(time((Long) value));
            case LogicalTypes.JSON -> json((String) value, out);
            case Decimal.LOGICAL_NAME -> out.writeString(((BigDecimal) value).toPlainString());
            case LogicalTypes.NUMERIC -> out.writeString((String) value);
            case LogicalTypes.VARIABLE_SCALE_DECIMAL -> {
                Struct v = (Struct) value;
                out.writeString(new BigDecimal(new BigInteger(bytes(v.get("value"))), v.getInt32("scale")).toPlainString());
            }
            case LogicalTypes.PG_TEXT -> pgText(schema.parameters() == null ? ""
                    : schema.parameters().getOrDefault(LogicalTypes.PG_TYPE_PARAMETER, ""), (String) value, out);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** A json or jsonb value: the JSON itself, whatever it holds (objects, arrays, scalars). */
    protected void json(String text, JsonGenerator out) throws IOException {
        try (JsonParser parser = JSON.getFactory().createParser(text)) {
            parser.enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature());
            if (parser.nextToken() == null) {
                throw new DataException("holds no JSON value (\"" + brief(text) + "\")");
            }
            out.copyCurrentStructure(parser);
        }
    }

    /** A value of a PostgreSQL type carried as its text ({@code pgType} names the type): the text. */
    protected void pgText(String pgType, String text, JsonGenerator out) throws IOException {
        out.writeString(text);
    }

    private static void floating(double v, boolean single, JsonGenerator out) throws IOException {
        if (Double.isNaN(v)) {
            out.writeString("NaN");
        } else if (Double.isInfinite(v)) {
            out.writeString(v > 0 ? "Infinity" : "-Infinity");
        } else if (single) {
            out.writeNumber((float) v);
        } else {
            out.writeNumber(v);
        }
    }

    /** {@code yyyy-MM-dd}, with a sign and more digits past the year 9999 and before year 1; the infinities by name. */
    public static String date(int days) {
        if (days == Integer.MAX_VALUE) {
            return "infinity";
        }
        if (days == Integer.MIN_VALUE) {
            return "-infinity";
        }
        return LocalDate.ofEpochDay(days).toString();
    }

    /** A timestamp without time zone, ISO-8601 with the fraction's significant digits; the infinities by name. */
    public static String timestamp(long micros) {
        if (micros == Timestamps.POSITIVE_INFINITY) {
            return "infinity";
        }
        if (micros == Timestamps.NEGATIVE_INFINITY) {
            return "-infinity";
        }
        String utc = TemporalCodecs.timestamptzOf(micros);
        return utc.endsWith("Z") ? utc.substring(0, utc.length() - 1) : utc;
    }

    /** {@code HH:mm:ss} with the fraction's significant digits; 24:00:00 as PostgreSQL has it. */
    public static String time(long micros) {
        long seconds = micros / 1_000_000L;
        long fraction = micros % 1_000_000L;
        StringBuilder s = new StringBuilder(15);
        s.append(String.format("%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60));
        if (fraction != 0) {
            String digits = String.format("%06d", fraction).replaceAll("0+$", "");
            s.append('.').append(digits);
        }
        return s.toString();
    }

    protected static byte[] bytes(Object value) {
        if (value instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return bytes;
        }
        return (byte[]) value;
    }

    protected static String brief(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "…" : text;
    }
}
