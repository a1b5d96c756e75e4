package io.sluice.schemas.envelope;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.schemas.codec.BoundedArray;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.header.Headers;

/**
 * What a row's Connect values cannot say themselves on every way they travel, noted beside them
 * in the header {@link EventHeaders#VALUE_NOTES}:
 * <ul>
 * <li>the lower bounds of arrays whose indexes do not start at 1 ({@code '[0:2]={7,8,9}'}): a
 *     Connect array has no room for them;</li>
 * <li>{@code NaN}, {@code Infinity}, {@code -Infinity} and {@code -0} in {@code real} and
 *     {@code double precision} values: Kafka's JSON converter writes the first three as strings
 *     and reads every one of the four back as {@code 0.0}.</li>
 * </ul>
 * The value is JSON, one entry per such value: the path to it from the envelope (field names, and
 * list indexes inside arrays) and what it is, such as {@code [{"path":["after","slots"],"lower":[0]},
 * {"path":["after","ratio"],"float":"NaN"}]}. In one process the values are whole already; after
 * a converter, {@link #restore} puts back what the header says. Consumers that ignore the header
 * read the values as Debezium gives them.
 */
public final class ValueNotes {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ValueNotes() {
    }

    /** Whether rows of this schema can hold values worth noting (arrays or floats, directly or in composites). */
    public static boolean mayHold(Schema schema) {
        return switch (schema.type()) {
            case ARRAY, FLOAT32, FLOAT64 -> true;
            case STRUCT -> schema.fields().stream().anyMatch(f -> mayHold(f.schema()));
            default -> false;
        };
    }

    /** Adds the header to a record when its before or after image holds values to note. */
    public static void describe(Struct before, Struct after, Headers headers) {
        // Nearly every row has nothing to note: found out without allocating, as this runs for every row of such tables.
        if ((before == null || !holdsNote(before, before.schema())) && (after == null || !holdsNote(after, after.schema()))) {
            return;
        }
        ArrayNode entries = JSON.createArrayNode();
        List<Object> path = new ArrayList<>();
        if (before != null) {
            path.add(Envelope.BEFORE);
            walk(before, before.schema(), path, entries);
            path.clear();
        }
        if (after != null) {
            path.add(Envelope.AFTER);
            walk(after, after.schema(), path, entries);
        }
        if (!entries.isEmpty()) {
            headers.addString(EventHeaders.VALUE_NOTES, entries.toString());
        }
    }

    private static void walk(Object value, Schema schema, List<Object> path, ArrayNode entries) {
        switch (schema.type()) {
            case STRUCT -> {
                Struct struct = (Struct) value;
                for (Field field : schema.fields()) {
                    if (worthWalking(field.schema().type())) {
                        Object v = struct.get(field);
                        if (v != null) {
                            path.add(field.name());
                            walk(v, field.schema(), path, entries);
                            path.remove(path.size() - 1);
                        }
                    }
                }
            }
            case ARRAY -> {
                List<?> list = (List<?>) value;
                if (list instanceof BoundedArray bounded) {
                    ArrayNode lower = entry(entries, path).putArray("lower");
                    for (int lb : bounded.lowerBounds()) {
                        lower.add(lb);
                    }
                }
                Schema element = schema.valueSchema();
                if (worthWalking(element.type())) {
                    for (int i = 0; i < list.size(); i++) {
                        if (list.get(i) != null) {
                            path.add(i);
                            walk(list.get(i), element, path, entries);
                            path.remove(path.size() - 1);
                        }
                    }
                }
            }
            case FLOAT32, FLOAT64 -> {
                String special = special(((Number) value).doubleValue());
                if (special != null) {
                    entry(entries, path).put("float", special);
                }
            }
            default -> {
                // nothing to note in other values
            }
        }
    }

    /** Whether {@link #walk} would note anything in the value. */
    private static boolean holdsNote(Object value, Schema schema) {
        switch (schema.type()) {
            case STRUCT -> {
                Struct struct = (Struct) value;
                for (Field field : schema.fields()) {
                    Object v = worthWalking(field.schema().type()) ? struct.get(field) : null;
                    if (v != null && holdsNote(v, field.schema())) {
                        return true;
                    }
                }
                return false;
            }
            case ARRAY -> {
                if (value instanceof BoundedArray) {
                    return true;
                }
                Schema element = schema.valueSchema();
                if (worthWalking(element.type())) {
                    for (Object item : (List<?>) value) {
                        if (item != null && holdsNote(item, element)) {
                            return true;
                        }
                    }
                }
                return false;
            }
            case FLOAT32, FLOAT64 -> {
                return special(((Number) value).doubleValue()) != null;
            }
            default -> {
                return false;
            }
        }
    }

    private static boolean worthWalking(Schema.Type type) {
        return type == Schema.Type.ARRAY || type == Schema.Type.STRUCT || type == Schema.Type.FLOAT32 || type == Schema.Type.FLOAT64;
    }

    /** The name of a float that a JSON converter does not carry, or null. A float's widening to double keeps all four. */
    private static String special(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        return Double.doubleToRawLongBits(d) == Long.MIN_VALUE ? "-0" : null;
    }

    private static ObjectNode entry(ArrayNode entries, List<Object> path) {
        ObjectNode entry = entries.addObject();
        ArrayNode at = entry.putArray("path");
        for (Object p : path) {
            if (p instanceof Integer i) {
                at.add(i);
            } else {
                at.add((String) p);
            }
        }
        return entry;
    }

    /**
     * Puts back on a record's envelope (in place) what its header notes, so the encoder writes
     * the values whole; nothing happens without the header.
     */
    public static void restore(Struct envelope, Headers headers) {
        Header header = headers.lastWithName(EventHeaders.VALUE_NOTES);
        if (header == null || header.value() == null) {
            return;
        }
        JsonNode entries;
        try {
            // Connect's default header converter reads a string that looks like a JSON array back
            // as the list it spells, so the notes may come as lists and maps rather than text.
            entries = header.value() instanceof String text ? JSON.readTree(text) : JSON.valueToTree(header.value());
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new DataException("Header " + EventHeaders.VALUE_NOTES + " is not what Sluice writes there: " + header.value());
        }
        for (JsonNode entry : entries) {
            JsonNode path = entry.get("path");
            if (path == null || path.isEmpty()) {
                continue;
            }
            put(envelope, path, 0, entry);
        }
    }

    /** Follows the path from {@code container}; at its end, replaces the value with what the entry says it is. */
    @SuppressWarnings("unchecked")
    private static void put(Object container, JsonNode path, int at, JsonNode entry) {
        JsonNode step = path.get(at);
        boolean last = at == path.size() - 1;
        if (container instanceof Struct struct && step.isTextual()) {
            Field field = struct.schema().field(step.textValue());
            Object next = field == null ? null : struct.get(field);
            if (next == null) {
                return; // dropped or emptied by a transform: nothing to restore
            }
            if (!last) {
                put(next, path, at + 1, entry);
                return;
            }
            Object restored = restored(next, entry);
            if (restored != next) {
                struct.put(field, restored);
            }
        } else if (container instanceof List<?> list && step.isInt() && step.intValue() < list.size()) {
            Object next = list.get(step.intValue());
            if (next == null) {
                return;
            }
            if (!last) {
                put(next, path, at + 1, entry);
                return;
            }
            Object restored = restored(next, entry);
            if (restored != next) {
                ((List<Object>) list).set(step.intValue(), restored);
            }
        }
    }

    /** The value the entry describes, in the class of the value found there; that value itself when they do not fit. */
    private static Object restored(Object found, JsonNode entry) {
        JsonNode lower = entry.get("lower");
        if (lower != null && found instanceof List<?> list) {
            int[] bounds = new int[lower.size()];
            for (int d = 0; d < bounds.length; d++) {
                bounds[d] = lower.get(d).intValue();
            }
            return new BoundedArray(list, bounds);
        }
        JsonNode special = entry.get("float");
        if (special != null && found instanceof Number) {
            double d = switch (special.asText()) {
                case "NaN" -> Double.NaN;
                case "Infinity" -> Double.POSITIVE_INFINITY;
                case "-Infinity" -> Double.NEGATIVE_INFINITY;
                case "-0" -> -0.0;
                default -> throw new DataException("Header " + EventHeaders.VALUE_NOTES + " names an unknown float " + special);
            };
            return found instanceof Float ? (Object) (float) d : (Object) d;
        }
        return found;
    }
}
