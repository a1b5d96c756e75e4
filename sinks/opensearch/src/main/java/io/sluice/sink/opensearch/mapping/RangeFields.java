package io.sluice.sink.opensearch.mapping;

import java.io.IOException;
import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.schemas.codec.RangeLiteral;
import io.sluice.schemas.codec.TemporalCodecs;
import org.apache.kafka.connect.errors.DataException;

/**
 * PostgreSQL's built-in ranges and multiranges as OpenSearch range fields, so that a search can
 * ask which rows' ranges contain, cross or lie within a value or range. A range is written
 * {@code {"gte": 1, "lt": 5}} (its bounds' own inclusiveness), an unbounded end left out; a
 * multirange is an array of such objects; {@code empty} (and the empty multirange) is an empty
 * array, a field with no value, which no range search finds — as PostgreSQL's empty range
 * contains nothing.
 * <p>
 * What a range field cannot hold, and how it is written instead:
 * <ul>
 * <li>a bound of {@code ±infinity} is left out: an open end, as the same search finds;</li>
 * <li>a {@code numeric} bound of {@code NaN} stays as the string, and the field (mapped with
 *     {@code ignore_malformed}) keeps the range in {@code _source} without indexing it;</li>
 * <li>date ranges index milliseconds: a {@code tsrange} narrower than a millisecond with an
 *     exclusive bound (which OpenSearch would refuse as ending before it starts) is written with
 *     both bounds inclusive, so it covers the millisecond its bounds fall in.</li>
 * </ul>
 * Other ranges (a user's own {@code CREATE TYPE … AS RANGE}) are keyword fields of their text.
 */
final class RangeFields {

    /** The subtypes OpenSearch has a range field for. */
    enum Subtype {
        INTEGER("integer_range"), BIGINT("long_range"), NUMERIC("double_range"), DATE("date_range"), TIMESTAMP("date_range"),
        TIMESTAMPTZ("date_range");

        final String fieldType;

        Subtype(String fieldType) {
            this.fieldType = fieldType;
        }
    }

    /** A built-in range or multirange type's subtype, and which of the two it is. */
    record Kind(Subtype subtype, boolean multirange) {
    }

    private RangeFields() {
    }

    /** The kind of a column's PostgreSQL type name ({@code pg.type}), or null when it is no built-in range or multirange. */
    static Kind of(String pgType) {
        return switch (pgType) {
            case "int4range" -> new Kind(Subtype.INTEGER, false);
            case "int4multirange" -> new Kind(Subtype.INTEGER, true);
            case "int8range" -> new Kind(Subtype.BIGINT, false);
            case "int8multirange" -> new Kind(Subtype.BIGINT, true);
            case "numrange" -> new Kind(Subtype.NUMERIC, false);
            case "nummultirange" -> new Kind(Subtype.NUMERIC, true);
            case "daterange" -> new Kind(Subtype.DATE, false);
            case "datemultirange" -> new Kind(Subtype.DATE, true);
            case "tsrange" -> new Kind(Subtype.TIMESTAMP, false);
            case "tsmultirange" -> new Kind(Subtype.TIMESTAMP, true);
            case "tstzrange" -> new Kind(Subtype.TIMESTAMPTZ, false);
            case "tstzmultirange" -> new Kind(Subtype.TIMESTAMPTZ, true);
            default -> null;
        };
    }

    /** The field mapping of a range kind, into {@code field} (which has its {@code type} set by the caller). */
    static void mapping(Kind kind, ObjectNode field) {
        field.put("type", kind.subtype().fieldType);
        if (kind.subtype() == Subtype.DATE || kind.subtype() == Subtype.TIMESTAMP || kind.subtype() == Subtype.TIMESTAMPTZ) {
            field.put("format", FieldMappings.DATE_FORMAT);
        }
        field.put("ignore_malformed", true);
    }

    /** Writes a range's or multirange's text as the field's value. */
    static void write(Kind kind, String text, JsonGenerator out) throws IOException {
        try {
            if (!kind.multirange()) {
                RangeLiteral range = RangeLiteral.parse(text);
                if (range.empty()) {
                    out.writeStartArray();
                    out.writeEndArray();
                } else {
                    range(kind.subtype(), range, out);
                }
                return;
            }
            List<RangeLiteral> ranges = RangeLiteral.parseMultirange(text);
            out.writeStartArray();
            for (RangeLiteral range : ranges) {
                range(kind.subtype(), range, out);
            }
            out.writeEndArray();
        } catch (DataException | IllegalArgumentException | java.time.DateTimeException e) {
            throw new DataException("holds a range OpenSearch cannot be given (" + text + "): " + e.getMessage(), e);
        }
    }

    private static void range(Subtype subtype, RangeLiteral range, JsonGenerator out) throws IOException {
        String lower = infinite(range.lower()) ? null : range.lower();
        String upper = infinite(range.upper()) ? null : range.upper();
        boolean lowerInclusive = range.lowerInclusive();
        boolean upperInclusive = range.upperInclusive();
        if (lower != null && upper != null && (!lowerInclusive || !upperInclusive) && withinOneMilli(subtype, lower, upper,
                lowerInclusive, upperInclusive)) {
            lowerInclusive = true;
            upperInclusive = true;
        }
        out.writeStartObject();
        if (lower != null) {
            out.writeFieldName(lowerInclusive ? "gte" : "gt");
            bound(subtype, lower, out);
        }
        if (upper != null) {
            out.writeFieldName(upperInclusive ? "lte" : "lt");
            bound(subtype, upper, out);
        }
        out.writeEndObject();
    }

    private static boolean infinite(String bound) {
        return bound != null && (bound.equals("infinity") || bound.equals("-infinity") || bound.equals("Infinity")
                || bound.equals("-Infinity"));
    }

    private static void bound(Subtype subtype, String text, JsonGenerator out) throws IOException {
        switch (subtype) {
            case INTEGER, BIGINT -> out.writeNumber(Long.parseLong(text.strip()));
            case NUMERIC -> out.writeString(text); // the exact decimal text, as numeric columns; NaN stays and is not indexed
            case DATE -> out.writeString(io.sluice.schemas.json.RowJson.date((Integer) TemporalCodecs.DATE.fromText(text)));
            case TIMESTAMP -> out.writeString(io.sluice.schemas.json.RowJson.timestamp((Long) TemporalCodecs.TIMESTAMP.fromText(text)));
            case TIMESTAMPTZ -> out.writeString((String) TemporalCodecs.TIMESTAMPTZ.fromText(text));
        }
    }

    /**
     * Whether OpenSearch, which keeps date bounds as milliseconds (an exclusive bound moved one
     * millisecond in), would find the range ending before it starts.
     */
    private static boolean withinOneMilli(Subtype subtype, String lower, String upper, boolean lowerInclusive, boolean upperInclusive) {
        if (subtype != Subtype.TIMESTAMP && subtype != Subtype.TIMESTAMPTZ) {
            return false;
        }
        long from = Math.floorDiv(micros(subtype, lower), 1000L) + (lowerInclusive ? 0 : 1);
        long to = Math.floorDiv(micros(subtype, upper), 1000L) - (upperInclusive ? 0 : 1);
        return from > to;
    }

    private static long micros(Subtype subtype, String text) {
        if (subtype == Subtype.TIMESTAMP) {
            return (Long) TemporalCodecs.TIMESTAMP.fromText(text);
        }
        Instant at = Instant.parse((String) TemporalCodecs.TIMESTAMPTZ.fromText(text));
        return Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000L), at.getNano() / 1000);
    }
}
