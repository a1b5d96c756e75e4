package io.sluice.sink.opensearch.index;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.sink.opensearch.client.ClusterClient;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Reads what an alias stands for in the cluster: its physical index, a rebuild under way beside
 * it, and of each its fields and the {@code _meta} the sink keeps there. Versions a swap left
 * behind (older than the aliased one) are dropped on the way.
 */
final class AliasLookup {

    /** The {@code _meta} key of a rebuilt version's origin. */
    static final String ORIGIN = "sluice_rebuilt_for";
    /** The {@code _meta} key of the copy of the table a version holds (its start time at the source). */
    static final String COPY = "sluice_copy";

    private final ClusterClient client;

    AliasLookup(ClusterClient client) {
        this.client = client;
    }

    /** The physical index behind an alias, or null when there is none. */
    KnownIndex find(String alias) {
        return find(alias, true);
    }

    /**
     * @param again whether to read the alias once more when a name answers that the alias did
     *              not: another task may have created the index with its alias in between
     */
    private KnownIndex find(String alias, boolean again) {
        ClusterClient.Answer answer = send("GET", "/_alias/" + alias, "read alias " + alias);
        if (answer.status() == 404) {
            // A name resolves to the indexes it stands for: the answer is keyed by the alias only when an index has its name.
            ClusterClient.Answer index = send("GET", "/" + alias + "/_settings", "look for index " + alias);
            if (index.status() == 404) {
                return null;
            }
            if (ClusterClient.json(index).has(alias)) {
                throw new ConnectException("OpenSearch has an index named " + alias + ", where the sink keeps an alias over "
                        + "versioned indexes (" + IndexNames.physical(alias, 1) + "): delete or rename that index, or choose another name "
                        + "with index.name.format");
            }
            return again ? find(alias, false) : null;
        }
        JsonNode body = ClusterClient.json(answer);
        Iterator<String> names = body.fieldNames();
        if (!names.hasNext()) {
            return null;
        }
        String physical = names.next();
        if (names.hasNext()) {
            throw new ConnectException("Alias " + alias + " points at several indexes (" + body.fieldNames().next() + ", …): the sink "
                    + "writes to one; leave one behind the alias");
        }
        KnownIndex k = known(physical);
        IndexVersions.Versions versions = IndexVersions.of(client, alias);
        for (int older : versions.unaliased()) {
            if (older < versions.aliased()) {
                IndexVersions.drop(client, IndexNames.physical(alias, older)); // left by a swap that stopped before its drop
            }
        }
        if (!versions.unaliased().isEmpty() && versions.highest() > versions.aliased() && versions.aliased() > 0) {
            // A rebuild another task began (or one under way before a restart, which its copy makes again).
            k.rebuild = known(IndexNames.physical(alias, versions.highest()));
        }
        return k;
    }

    /** An existing index's fields, origin and copy, from its mapping. */
    private KnownIndex known(String physical) {
        JsonNode mapping = ClusterClient.json(send("GET", "/" + physical + "/_mapping", "read the mapping of " + physical))
                .path(physical).path("mappings");
        Map<String, String> fields = new HashMap<>();
        mapping.path("properties").fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue().path("type").asText("object")));
        JsonNode meta = mapping.path("_meta");
        return new KnownIndex(physical, fields, meta.path(ORIGIN).asLong(0), meta.path(COPY).asLong(0));
    }

    private ClusterClient.Answer send(String method, String path, String what) {
        return client.call(method, path, Map.of(), null, what);
    }
}
