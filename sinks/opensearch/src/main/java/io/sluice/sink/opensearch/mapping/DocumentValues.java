package io.sluice.sink.opensearch.mapping;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.json.RowJson;
import org.apache.kafka.connect.errors.DataException;

/**
 * A row as a document's {@code _source}: one field per column, each value in the form its field
 * mapping ({@link FieldMappings}) indexes, exact where the field type is not — as {@link RowJson}
 * writes rows, except:
 * <ul>
 * <li>json and jsonb as the JSON object for flat_object and object fields, or its text for keyword and text;</li>
 * <li>{@code point} as {@code {"lat": y, "lon": x}} (its text when it is no place on Earth);</li>
 * <li>the built-in ranges and multiranges as range objects ({@link RangeFields}).</li>
 * </ul>
 */
public final class DocumentValues extends RowJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final IndexMappingOptions options;

    public DocumentValues(IndexMappingOptions options) {
        this.options = options;
    }

    @Override
    protected void pgText(String pgType, String text, JsonGenerator out) throws IOException {
        RangeFields.Kind range = RangeFields.of(pgType);
        if (range != null) {
            RangeFields.write(range, text, out);
        } else if (pgType.equals("point")) {
            point(text, out);
        } else {
            out.writeString(text);
        }
    }

    @Override
    protected void json(String text, JsonGenerator out) throws IOException {
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
}
