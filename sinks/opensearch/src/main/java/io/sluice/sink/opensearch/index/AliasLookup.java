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

    /** How often an alias that moved while it was read is read again before the lookup gives up. */
    private static final int READS = 10;

    private final ClusterClient client;

    AliasLookup(ClusterClient client) {
        this.client = client;
    }

    /**
     * The physical index behind an alias, or null when there is none. The alias, its index's
     * mapping and its versions are separate requests, and another task may move the alias to a
     * rebuilt version and drop the old one between them (or drop the table's indexes): when the
     * reads disagree they are made again, so what is returned is what the cluster held at one
     * moment, never an index that was already gone.
     */
    KnownIndex find(String alias) {
        for (int read = 1; ; read++) {
            Read found = read(alias, true);
            if (found.consistent()) {
                return found.index();
            }
            if (read == READS) {
                throw new ConnectException("Alias " + alias + " moved every time it was read (" + READS + " reads): another writer keeps "
                        + "changing it; is a second pipeline writing to the same indexes?");
            }
        }
    }

    /** What one read found, and whether its requests agreed with each other. */
    private record Read(KnownIndex index, boolean consistent) {
    }

    /**
     * @param again whether to read the alias once more when a name answers that the alias did
     *              not: another task may have created the index with its alias in between
     */
    private Read read(String alias, boolean again) {
        ClusterClient.Answer answer = send("GET", "/_alias/" + alias, "read alias " + alias);
        if (answer.status() == 404) {
            // A name resolves to the indexes it stands for: the answer is keyed by the alias only when an index has its name.
            ClusterClient.Answer index = send("GET", "/" + alias + "/_settings", "look for index " + alias);
            if (index.status() == 404) {
                return new Read(null, true);
            }
            if (ClusterClient.json(index).has(alias)) {
                throw new ConnectException("OpenSearch has an index named " + alias + ", where the sink keeps an alias over "
                        + "versioned indexes (" + IndexNames.physical(alias, 1) + "): delete or rename that index, or choose another name "
                        + "with index.name.format");
            }
            return again ? read(alias, false) : new Read(null, true);
        }
        JsonNode body = ClusterClient.json(answer);
        Iterator<String> names = body.fieldNames();
        if (!names.hasNext()) {
            return new Read(null, true);
        }
        String physical = names.next();
        if (names.hasNext()) {
            throw new ConnectException("Alias " + alias + " points at several indexes (" + body.fieldNames().next() + ", …): the sink "
                    + "writes to one; leave one behind the alias");
        }
        KnownIndex k = known(physical);
        IndexVersions.Versions versions = IndexVersions.of(client, alias);
        int version = IndexNames.versionOf(alias, physical);
        if (k == null || (version >= 0 && version != versions.aliased())) {
            return new Read(null, false); // the index went, or the alias moved or was dropped, after the alias was read
        }
        boolean rebuilding = !versions.unaliased().isEmpty() && versions.highest() > versions.aliased() && versions.aliased() > 0;
        if (rebuilding) {
            // A rebuild another task began (or one under way before a restart, which its copy makes again).
            k.rebuild = known(IndexNames.physical(alias, versions.highest()));
        }
        // The versions once more: unchanged, nothing moved, began or went while the mappings were read.
        if ((rebuilding && k.rebuild == null) || !IndexVersions.of(client, alias).equals(versions)) {
            return new Read(null, false);
        }
        for (int older : versions.unaliased()) {
            if (older < versions.aliased()) {
                IndexVersions.drop(client, IndexNames.physical(alias, older)); // left by a swap that stopped before its drop
            }
        }
        return new Read(k, true);
    }

    /** An existing index's fields, origin and copy, from its mapping; null when the index is gone. */
    private KnownIndex known(String physical) {
        ClusterClient.Answer answer = send("GET", "/" + physical + "/_mapping", "read the mapping of " + physical);
        if (answer.status() == 404) {
            return null;
        }
        JsonNode mapping = ClusterClient.json(answer).path(physical).path("mappings");
        Map<String, String> fields = new HashMap<>();
        mapping.path("properties").fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue().path("type").asText("object")));
        JsonNode meta = mapping.path("_meta");
        return new KnownIndex(physical, fields, meta.path(ORIGIN).asLong(0), meta.path(COPY).asLong(0));
    }

    private ClusterClient.Answer send(String method, String path, String what) {
        return client.call(method, path, Map.of(), null, what);
    }
}
