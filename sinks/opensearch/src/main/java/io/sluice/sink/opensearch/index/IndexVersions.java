package io.sluice.sink.opensearch.index;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.sink.opensearch.client.ClusterClient;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The versioned physical indexes of an alias ({@code name_v1}, {@code name_v2}, …): which are
 * there and which is behind the alias, and the swap that moves the alias from one to another
 * in one step, so a search sees the old index or the new one, never neither.
 */
final class IndexVersions {

    /**
     * @param aliased   the version behind the alias; 0 when none is
     * @param unaliased versions not behind it (a rebuild under way, or one a crash left), lowest first
     */
    record Versions(int aliased, List<Integer> unaliased) {

        /** Every version, the aliased one first. */
        List<Integer> all() {
            List<Integer> all = new ArrayList<>();
            if (aliased > 0) {
                all.add(aliased);
            }
            all.addAll(unaliased);
            return all;
        }

        int highest() {
            int highest = aliased;
            for (int v : unaliased) {
                highest = Math.max(highest, v);
            }
            return highest;
        }
    }

    private IndexVersions() {
    }

    /** The alias's versions as the cluster has them now. */
    static Versions of(ClusterClient client, String alias) {
        ClusterClient.Answer answer = client.call("GET", "/" + alias + "_v*/_alias", Map.of("allow_no_indices", "true",
                "ignore_unavailable", "true"), null, "list the versions of index " + alias);
        if (answer.status() == 404) {
            return new Versions(0, List.of());
        }
        JsonNode body = ClusterClient.json(answer);
        int aliased = 0;
        List<Integer> unaliased = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> index = it.next();
            int v = IndexNames.versionOf(alias, index.getKey());
            if (v < 0) {
                continue; // another alias's index whose name starts alike (items_vx_v1 for items_vx)
            }
            if (index.getValue().path("aliases").has(alias)) {
                aliased = v;
            } else {
                unaliased.add(v);
            }
        }
        unaliased.sort(Integer::compare);
        return new Versions(aliased, unaliased);
    }

    /** Moves the alias from one physical index to another in one request, then drops the one it left. */
    static void swap(ClusterClient client, String alias, String from, String to) {
        String actions = "{\"actions\":[{\"remove\":{\"index\":\"" + from + "\",\"alias\":\"" + alias + "\"}},"
                + "{\"add\":{\"index\":\"" + to + "\",\"alias\":\"" + alias + "\"}}]}";
        ClusterClient.Answer answer = client.call("POST", "/_aliases", Map.of(), actions.getBytes(StandardCharsets.UTF_8),
                "move alias " + alias + " to " + to);
        if (!answer.ok()) {
            throw new ConnectException("Cannot move alias " + alias + " from " + from + " to the rebuilt " + to + ": OpenSearch answered "
                    + answer.status() + " " + answer.brief() + ". Searches still see " + from + "; the pipeline stops so that the rebuild is "
                    + "done again at restart");
        }
        drop(client, from);
    }

    /**
     * Moves the versions of one alias under another name: each index cloned to the new name with
     * the same version (a clone copies the index's segments: every document with its version,
     * its mappings and settings), the new alias put on the clone of the aliased one, then the old
     * index dropped. A clone left by an earlier attempt that stopped before the drop is used.
     */
    static void rename(ClusterClient client, String from, String to, Versions versions) {
        for (int v : versions.all()) {
            String source = IndexNames.physical(from, v);
            String target = IndexNames.physical(to, v);
            byte[] block = "{\"index.blocks.write\": true}".getBytes(StandardCharsets.UTF_8);
            ClusterClient.Answer blocked = client.call("PUT", "/" + source + "/_settings", Map.of(), block, "stop writes to " + source);
            if (!blocked.ok()) {
                throw new ConnectException("Cannot make " + source + " read-only to move it to " + target + " (a table rename): OpenSearch "
                        + "answered " + blocked.status() + " " + blocked.brief());
            }
            String aliases = v == versions.aliased() ? "{\"" + to + "\": {}}" : "{}";
            byte[] clone = ("{\"settings\": {\"index.blocks.write\": false}, \"aliases\": " + aliases + "}").getBytes(StandardCharsets.UTF_8);
            ClusterClient.Answer cloned = client.call("POST", "/" + source + "/_clone/" + target, Map.of("wait_for_active_shards", "1"),
                    clone, "clone " + source + " to " + target);
            if (!cloned.ok() && !cloned.text().contains("resource_already_exists_exception")) {
                throw new ConnectException("Cannot move index " + source + " to " + target + " (a table rename): OpenSearch answered "
                        + cloned.status() + " " + cloned.brief() + ". " + source + " is read-only until the pipeline runs again and "
                        + "moves it");
            }
            drop(client, source);
        }
    }

    /** Drops a physical index; one that is gone already is fine. */
    static void drop(ClusterClient client, String physical) {
        ClusterClient.Answer answer = client.call("DELETE", "/" + physical, Map.of(), null, "drop index " + physical);
        if (!answer.ok() && answer.status() != 404) {
            throw new ConnectException("Cannot drop index " + physical + ": OpenSearch answered " + answer.status() + " " + answer.brief());
        }
    }
}
