package io.sluice.sink.opensearch.mapping;

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
import com.fasterxml.jackson.core.JsonToken;
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
 * A row as a document's {@code _source}: one field per column, each value in the form its field
 * mapping ({@link FieldMappings}) indexes, exact where the field type is not:
 * <ul>
 * <li>dates {@code 2024-05-01}, timestamps {@code 2024-05-01T10:15:30.123456} (with {@code Z} for
 *     timestamptz), times {@code 10:15:30.5}; the infinities as {@code infinity}, {@code -infinity};</li>
 * <li>numeric as its exact decimal text; floats as numbers, NaN and the infinities as the strings
 *     {@code NaN}, {@code Infinity}, {@code -Infinity};</li>
 * <li>json and jsonb as the JSON itself (an object for flat_object and object fields), or its text for keyword;</li>
 * <li>{@code point} as {@code {"lat": y, "lon": x}} (its text when it is no place on Earth); bytes as base64; arrays as arrays, NULL elements kept;</li>
 * <li>the built-in ranges and multiranges as range objects ({@link RangeFields}).</li>
 * </ul>
 */
public final class DocumentValues {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final IndexMappingOptions options;

    public DocumentValues(IndexMappingOptions options) {
        this.options = options;
    }

    /**
     * Writes the row's fields as a JSON object.
     *
     * @param leaveOut columns not to write (unchanged TOASTed values: the stored ones stay)
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
            case Decimal.LOGICAL_NAME -> numeric(((BigDecimal) value).toPlainString(), out);
            case LogicalTypes.NUMERIC -> numeric((String) value, out);
            case LogicalTypes.VARIABLE_SCALE_DECIMAL -> {
                Struct v = (Struct) value;
                numeric(new BigDecimal(new BigInteger(bytes(v.get("value"))), v.getInt32("scale")).toPlainString(), out);
            }
            case LogicalTypes.PG_TEXT -> {
                String pgType = schema.parameters() == null ? "" : schema.parameters().getOrDefault(LogicalTypes.PG_TYPE_PARAMETER, "");
                RangeFields.Kind range = RangeFields.of(pgType);
                if (range != null) {
                    RangeFields.write(range, (String) value, out);
                } else if (pgType.equals("point")) {
                    point((String) value, out);
                } else {
                    out.writeString((String) value);
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /** numeric keeps its exact text in _source; the field (scaled_float, double or keyword) reads the number from it. */
    private static void numeric(String text, JsonGenerator out) throws IOException {
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

    private void json(String text, JsonGenerator out) throws IOException {
        if (options.json().asText()) {
            out.writeString(text);
            return;
        }
        try (JsonParser parser = JSON.getFactory().createParser(text)) {
            parser.enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS.mappedFeature());
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new DataException("holds JSON that is not an object (" + brief(text) + "); an " + options.json().key()
                        + " field takes objects only: set mapping.json=keyword or text to index such columns as their JSON text");
            }
            out.copyCurrentStructure(parser);
        }
    }

    /**
     * A point as a geo_point, x the longitude and y the latitude. A point that is no place on Earth
     * (a coordinate past ±180 or ±90, or not finite) stays its text, kept in _source and not
     * indexed: given as coordinates, OpenSearch would wrap it onto another place.
     */
    private static void point(String text, JsonGenerator out) throws IOException {
        String inner = text.trim();
        if (inner.startsWith("(") && inner.endsWith(")")) {
            String[] xy = inner.substring(1, inner.length() - 1).split(",");
            if (xy.length == 2) {
                try {
                    double lon = Double.parseDouble(xy[0].trim());
                    double lat = Double.parseDouble(xy[1].trim());
                    if (Math.abs(lon) <= 180 && Math.abs(lat) <= 90) {
                        out.writeStartObject();
                        out.writeNumberField("lat", lat);
                        out.writeNumberField("lon", lon);
                        out.writeEndObject();
                        return;
                    }
                } catch (NumberFormatException e) {
                    // not two numbers: kept as text below
                }
            }
        }
        out.writeString(text);
    }

    /** {@code yyyy-MM-dd}, with a sign and more digits past the year 9999 and before year 1; the infinities by name. */
    static String date(int days) {
        if (days == Integer.MAX_VALUE) {
            return "infinity";
        }
        if (days == Integer.MIN_VALUE) {
            return "-infinity";
        }
        return LocalDate.ofEpochDay(days).toString();
    }

    static String timestamp(long micros) {
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
    static String time(long micros) {
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

    private static byte[] bytes(Object value) {
        if (value instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return bytes;
        }
        return (byte[]) value;
    }

    private static String brief(String text) {
        return text.length() > 60 ? text.substring(0, 60) + "…" : text;
    }

}
