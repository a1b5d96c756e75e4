package io.sluice.sink.opensearch.index;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.mapping.FieldMappings;
import io.sluice.sink.opensearch.mapping.MappingOverrides;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;

/**
 * What differs between an existing index and what the sink would write to it: a column whose
 * field the index has with another type than the sink maps it with (from its type, or the
 * user's override). Said at start, every difference at once, instead of at the first row that
 * has the column.
 */
public final class MappingCheck {

    private final ClusterClient client;
    private final FieldMappings mappings;
    private final MappingOverrides overrides;

    public MappingCheck(ClusterClient client, FieldMappings mappings, MappingOverrides overrides) {
        this.client = client;
        this.mappings = mappings;
        this.overrides = overrides;
    }

    /** The differences for a table ({@code schema.table}) whose rows have this schema; empty when its index does not exist. */
    public List<String> differences(String alias, String table, Schema row) {
        ClusterClient.Answer answer = client.call("GET", "/" + alias + "/_mapping", Map.of(), null, "read the mapping of " + alias);
        if (answer.status() == 404) {
            return List.of();
        }
        JsonNode body = ClusterClient.json(answer);
        if (!body.elements().hasNext()) {
            return List.of();
        }
        JsonNode properties = body.elements().next().path("mappings").path("properties");
        List<String> differences = new ArrayList<>();
        for (Field field : row.fields()) {
            JsonNode existing = properties.get(field.name());
            if (existing == null) {
                continue; // added before the column's first row
            }
            JsonNode override = overrides.field(table, field.name());
            String wanted = (override != null ? override : mappings.field(field.schema())).path("type").asText();
            String has = existing.path("type").asText("object");
            if (!has.equals(wanted)) {
                differences.add("index " + alias + " has column " + table + "." + field.name() + " as " + has + ", the sink maps it as "
                        + wanted);
            }
        }
        return differences;
    }
}
