package io.sluice.sink.opensearch.index;

import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.opensearch.bulk.DocumentIds;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * The documents of a re-synced chunk's key range that the chunk does not keep, as an OpenSearch
 * query: the key after the range's start and up to its end, compared column by column as the
 * source orders a key (the first column decides, the next breaks ties), and none of the kept
 * keys' documents. Only for keys of integer columns, whose fields the index orders as the source
 * does; a text key's field is ordered by OpenSearch's rules, not the source's collation.
 */
public final class KeyRangeQuery {

    private static final ObjectMapper JSON = new ObjectMapper();

    private KeyRangeQuery() {
    }

    /** The query; empty when the key has a column that is not an integer. */
    public static Optional<String> of(Struct from, Struct to, List<Struct> keep, Schema keySchema) {
        for (Field f : keySchema.fields()) {
            Schema.Type type = f.schema().type();
            boolean integer = type == Schema.Type.INT8 || type == Schema.Type.INT16 || type == Schema.Type.INT32 || type == Schema.Type.INT64;
            if (!integer || f.schema().name() != null) {
                return Optional.empty(); // logical types (dates, times) are integers carried otherwise in documents
            }
        }
        ObjectNode bool = JSON.createObjectNode();
        ArrayNode filter = bool.putArray("filter");
        if (from != null) {
            filter.add(beyond(keySchema.fields(), from, "gt", false));
        }
        if (to != null) {
            filter.add(beyond(keySchema.fields(), to, "lt", true));
        }
        ArrayNode ids = JSON.createArrayNode();
        keep.forEach(k -> ids.add(DocumentIds.of(k)));
        bool.putArray("must_not").addObject().putObject("ids").set("values", ids);
        ObjectNode query = JSON.createObjectNode();
        query.set("bool", bool);
        return Optional.of(query.toString());
    }

    /**
     * Keys after ({@code gt}) or before ({@code lt}) the bound in the source's order of the
     * columns: the first column past it, or equal and the next past it, and so on; with
     * {@code orEqual}, the bound itself too.
     */
    private static ObjectNode beyond(List<Field> fields, Struct bound, String op, boolean orEqual) {
        ObjectNode any = JSON.createObjectNode();
        ArrayNode should = any.putObject("bool").put("minimum_should_match", 1).putArray("should");
        for (int i = 0; i <= fields.size(); i++) {
            if (i == fields.size() && !orEqual) {
                break;
            }
            ArrayNode all = should.addObject().putObject("bool").putArray("filter");
            for (int j = 0; j < Math.min(i, fields.size()); j++) {
                all.addObject().putObject("term").put(fields.get(j).name(), ((Number) bound.get(fields.get(j).name())).longValue());
            }
            if (i < fields.size()) {
                all.addObject().putObject("range").putObject(fields.get(i).name()).put(op,
                        ((Number) bound.get(fields.get(i).name())).longValue());
            }
        }
        return any;
    }
}
