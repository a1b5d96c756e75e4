package io.sluice.sink.opensearch.mapping;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.core.routing.TableGlob;

/**
 * The user's field mappings for chosen columns, in place of the ones the sink derives from the
 * column types: a JSON object whose keys are table patterns ({@code schema.table}, {@code *}
 * for any run of characters) and whose values map column names to field mapping fragments, for
 * instance {@code {"public.orders": {"note": {"type": "text", "analyzer": "english"}}}}. The first
 * pattern (in the order written) that matches a table and names the column wins.
 */
public final class MappingOverrides {

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Rule(TableGlob table, ObjectNode columns) {
    }

    private final List<Rule> rules;

    private MappingOverrides(List<Rule> rules) {
        this.rules = rules;
    }

    /** None: every field as the column type says. */
    public static final MappingOverrides NONE = new MappingOverrides(List.of());

    /**
     * Reads the overrides.
     *
     * @throws IllegalArgumentException saying what is wrong, with the table or column
     */
    public static MappingOverrides parse(String json) {
        if (json == null || json.isBlank()) {
            return NONE;
        }
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("give a JSON object of table patterns, e.g. {\"public.orders\": {\"note\": {\"type\": \"text\"}}}");
        }
        List<Rule> rules = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> table = it.next();
            if (!table.getValue().isObject()) {
                throw new IllegalArgumentException("the value for " + table.getKey() + " must be an object of columns");
            }
            for (Iterator<Map.Entry<String, JsonNode>> c = table.getValue().fields(); c.hasNext(); ) {
                Map.Entry<String, JsonNode> column = c.next();
                if (!column.getValue().isObject() || !column.getValue().path("type").isTextual()) {
                    throw new IllegalArgumentException("the mapping of " + table.getKey() + "." + column.getKey()
                            + " must be an object with a \"type\"");
                }
            }
            rules.add(new Rule(TableGlob.of(table.getKey()), (ObjectNode) table.getValue()));
        }
        return new MappingOverrides(List.copyOf(rules));
    }

    /** The user's mapping of a column of a table ({@code schema.table}); null when none is given. */
    public ObjectNode field(String table, String column) {
        for (Rule rule : rules) {
            if (rule.columns().has(column) && rule.table().matches(table)) {
                return rule.columns().get(column).deepCopy();
            }
        }
        return null;
    }
}
