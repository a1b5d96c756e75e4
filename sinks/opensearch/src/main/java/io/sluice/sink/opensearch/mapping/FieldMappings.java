package io.sluice.sink.opensearch.mapping;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.schemas.mapping.LogicalTypes;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;

/**
 * An index's field mappings from a table's row schema, column by column, explicit for every type
 * (docs/opensearch.md has the table). Fields whose values may be out of what the field type
 * indexes (NaN, infinite dates, years past 9999, an IPv4 with a netmask) are mapped with
 * {@code ignore_malformed}: such a value stays in the document's {@code _source}, exactly, and is
 * not searchable, instead of the whole document being refused.
 */
public final class FieldMappings {

    /** Keyword terms above this many characters are kept in _source, not indexed (Lucene's term limit is 32,766 bytes). */
    static final int KEYWORD_IGNORE_ABOVE = 8191;
    /** scaled_float keeps value × factor in a long: past this scale, double is kept instead. */
    static final int MAX_SCALED_FLOAT_SCALE = 6;
    /** How date fields read the ISO text {@link DocumentValues} writes. */
    static final String DATE_FORMAT = "strict_date_optional_time||strict_date||uuuu-MM-dd";

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final IndexMappingOptions options;

    public FieldMappings(IndexMappingOptions options) {
        this.options = options;
    }

    /** The {@code properties} of a row schema (the envelope's {@code after}). */
    public ObjectNode properties(Schema row) {
        ObjectNode properties = NODES.objectNode();
        for (Field field : row.fields()) {
            properties.set(field.name(), field(field.schema()));
        }
        return properties;
    }

    /** The mapping of one column's field. */
    public ObjectNode field(Schema schema) {
        String name = schema.name();
        if (name != null) {
            ObjectNode named = named(schema, name);
            if (named != null) {
                return named;
            }
        }
        return switch (schema.type()) {
            case BOOLEAN -> type("boolean");
            case INT8 -> type("byte");
            case INT16 -> type("short");
            case INT32 -> type("integer");
            case INT64 -> type("long");
            case FLOAT32 -> malformedOk(type("float"));
            case FLOAT64 -> malformedOk(type("double"));
            case STRING -> keywordWithText();
            case BYTES -> type("binary");
            case ARRAY -> field(schema.valueSchema()); // every field holds many values
            case MAP -> type("flat_object");
            case STRUCT -> {
                ObjectNode object = type("object");
                object.set("properties", properties(schema));
                yield object;
            }
        };
    }

    private ObjectNode named(Schema schema, String name) {
        switch (name) {
            case LogicalTypes.DATE, LogicalTypes.MICRO_TIMESTAMP, LogicalTypes.ZONED_TIMESTAMP:
                return date();
            case LogicalTypes.MICRO_TIME, LogicalTypes.ZONED_TIME, LogicalTypes.INTERVAL, LogicalTypes.UUID, LogicalTypes.ENUM,
                    LogicalTypes.BITS:
                return keyword();
            case LogicalTypes.XML:
                return type("text");
            case LogicalTypes.JSON:
                return json();
            case LogicalTypes.NUMERIC:
                return numeric(schema.parameters() == null ? null : schema.parameters().get("scale"));
            case Decimal.LOGICAL_NAME:
                return numeric(schema.parameters() == null ? null : schema.parameters().get(Decimal.SCALE_FIELD));
            case LogicalTypes.VARIABLE_SCALE_DECIMAL:
                return numeric(null);
            case LogicalTypes.PG_TEXT:
                return pgText(schema.parameters() == null ? "" : schema.parameters().getOrDefault(LogicalTypes.PG_TYPE_PARAMETER, ""));
            default:
                return null;
        }
    }

    private ObjectNode pgText(String pgType) {
        RangeFields.Kind range = RangeFields.of(pgType);
        if (range != null) {
            ObjectNode field = NODES.objectNode();
            RangeFields.mapping(range, field);
            return field;
        }
        String base = pgType.endsWith("[]") ? pgType.substring(0, pgType.length() - 2) : pgType;
        return switch (base) {
            case "inet" -> malformedOk(type("ip"));
            case "cidr" -> type("ip_range");
            case "point" -> malformedOk(type("geo_point"));
            case "tsvector" -> type("text");
            default -> keyword();
        };
    }

    private ObjectNode numeric(String scale) {
        switch (options.numeric()) {
            case KEYWORD:
                return keyword();
            case SCALED_FLOAT:
                Integer s = scale == null ? null : Integer.valueOf(scale);
                if (s != null && s >= 0 && s <= MAX_SCALED_FLOAT_SCALE) {
                    ObjectNode scaled = malformedOk(type("scaled_float"));
                    scaled.put("scaling_factor", Math.pow(10, s));
                    return scaled;
                }
                return malformedOk(type("double"));
            default:
                return malformedOk(type("double"));
        }
    }

    private ObjectNode json() {
        return switch (options.json()) {
            case FLAT_OBJECT -> type("flat_object");
            case OBJECT -> {
                ObjectNode object = type("object");
                object.put("dynamic", "true");
                yield object;
            }
            case KEYWORD -> keyword();
            case TEXT -> type("text");
        };
    }

    private static ObjectNode date() {
        ObjectNode date = malformedOk(type("date"));
        date.put("format", DATE_FORMAT);
        return date;
    }

    private static ObjectNode keyword() {
        ObjectNode keyword = type("keyword");
        keyword.put("ignore_above", KEYWORD_IGNORE_ABOVE);
        return keyword;
    }

    /** Text columns: exact matches, sorting and aggregations on the keyword, full-text search on {@code .text}. */
    private static ObjectNode keywordWithText() {
        ObjectNode keyword = keyword();
        ObjectNode fields = NODES.objectNode();
        fields.set("text", type("text"));
        keyword.set("fields", fields);
        return keyword;
    }

    private static ObjectNode malformedOk(ObjectNode field) {
        field.put("ignore_malformed", true);
        return field;
    }

    private static ObjectNode type(String type) {
        ObjectNode field = NODES.objectNode();
        field.put("type", type);
        return field;
    }
}
