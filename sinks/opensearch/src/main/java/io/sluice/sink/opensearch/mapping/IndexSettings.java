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
 * The settings of the indexes the sink creates: the user's settings for every index, and per
 * table pattern settings laid over them ({@code {"public.orders": {"number_of_shards": 3}}}; the
 * first pattern, in the order written, that matches a table applies; objects merge key by key,
 * anything else replaces). Indexes that exist keep theirs.
 */
public final class IndexSettings {

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Rule(TableGlob table, ObjectNode settings) {
    }

    private final ObjectNode every;
    private final List<Rule> rules;

    private IndexSettings(ObjectNode every, List<Rule> rules) {
        this.every = every;
        this.rules = rules;
    }

    /** None: OpenSearch's defaults. */
    public static final IndexSettings NONE = new IndexSettings(JSON.createObjectNode(), List.of());

    /**
     * Reads the settings.
     *
     * @param every    a JSON object of settings for every index; blank for none
     * @param perTable a JSON object of table patterns to settings objects; blank for none
     * @throws IllegalArgumentException saying what is wrong, with the pattern
     */
    public static IndexSettings parse(String every, String perTable) {
        ObjectNode base = object(every, "give a JSON object of index settings, e.g. {\"number_of_replicas\": 1}");
        ObjectNode tables = object(perTable, "give a JSON object of table patterns, e.g. {\"public.orders\": {\"number_of_shards\": 3}}");
        List<Rule> rules = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = tables.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> table = it.next();
            if (!table.getValue().isObject()) {
                throw new IllegalArgumentException("the settings for " + table.getKey() + " must be a JSON object of index settings");
            }
            rules.add(new Rule(TableGlob.of(table.getKey()), (ObjectNode) table.getValue()));
        }
        return new IndexSettings(base, List.copyOf(rules));
    }

    private static ObjectNode object(String json, String hint) {
        if (json == null || json.isBlank()) {
            return JSON.createObjectNode();
        }
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(hint);
        }
        return (ObjectNode) node;
    }

    /** The settings a new index of this table ({@code schema.table}) gets; empty for OpenSearch's defaults. */
    public ObjectNode forTable(String table) {
        ObjectNode settings = every.deepCopy();
        for (Rule rule : rules) {
            if (rule.table().matches(table)) {
                merge(settings, rule.settings());
                break;
            }
        }
        return settings;
    }

    private static void merge(ObjectNode into, ObjectNode from) {
        for (Iterator<Map.Entry<String, JsonNode>> it = from.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode existing = into.get(e.getKey());
            if (existing instanceof ObjectNode target && e.getValue() instanceof ObjectNode source) {
                merge(target, source);
            } else {
                into.set(e.getKey(), e.getValue().deepCopy());
            }
        }
    }
}
