package io.sluice.sink.opensearch.index;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.mapping.FieldMappings;
import io.sluice.sink.opensearch.mapping.IndexSettings;
import io.sluice.sink.opensearch.mapping.MappingOverrides;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables' indexes: each an alias over a versioned physical index ({@code name_v1}), created
 * with explicit mappings from the row schema when first needed, and given a field before the
 * first row that has its column. What is known of each (its physical index, its fields) is kept,
 * so a row whose schema brings nothing new costs no request.
 *
 * <p>Every operation here (create, add fields, rebuild, swap, rename, drop) reads and updates that
 * one cache of what each alias stands for; reading an alias from the cluster is {@link AliasLookup},
 * the version requests {@link IndexVersions} and {@link IndexScroll}.
 */
public final class Indexes {

    private static final Logger LOG = LoggerFactory.getLogger(Indexes.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ClusterClient client;
    private final AliasLookup lookup;
    private final FieldMappings mappings;
    private final MappingOverrides overrides;
    private final IndexSettings settings;
    private final String dynamic;
    private final Map<String, KnownIndex> known = new HashMap<>();

    /**
     * @param overrides the user's mappings of chosen columns, in place of those from the column types
     * @param settings  the index settings the indexes the sink creates get (shards, replicas, analysis, a pipeline)
     */
    public Indexes(ClusterClient client, FieldMappings mappings, MappingOverrides overrides, IndexSettings settings, String dynamic) {
        this.client = client;
        this.lookup = new AliasLookup(client);
        this.mappings = mappings;
        this.overrides = overrides;
        this.settings = settings;
        this.dynamic = dynamic;
    }

    /** The mapping a column's field gets: the user's, or the one its type gives. */
    private ObjectNode wanted(String table, Field field) {
        ObjectNode override = overrides.field(table, field.name());
        return override != null ? override : mappings.field(field.schema());
    }

    /** A create-index body with the user's settings for the table ({@code schema.table}) and mappings of the given properties. */
    private ObjectNode newIndex(String table, ObjectNode properties) {
        ObjectNode body = JSON.createObjectNode();
        ObjectNode tableSettings = settings.forTable(table);
        if (!tableSettings.isEmpty()) {
            body.set("settings", tableSettings);
        }
        ObjectNode mappingsNode = body.putObject("mappings");
        mappingsNode.put("dynamic", dynamic);
        mappingsNode.set("properties", properties);
        return body;
    }

    /**
     * The physical index to write a row of this schema to, behind {@code alias}: created when
     * missing, with a field for every column. Null when the row is of columns the index cannot
     * take and older than the schema change its version was rebuilt for: a replay (a task that
     * took a partition over starts from Connect's committed offset) sends it again, and the
     * version's copy holds the row as it is now, so it is left out.
     *
     * @param version the external version the row is written with
     * @param table   the source table, for messages
     */
    public String writeIndex(String alias, Schema row, String table, long version) {
        KnownIndex k = known.get(alias);
        if (k == null) {
            k = lookup.find(alias);
            if (k == null) {
                k = create(alias, row, table);
            }
            known.put(alias, k);
        }
        KnownIndex target = k.writeTarget();
        if (target.mapped == row) {
            return target.physical;
        }
        if (!addMissing(alias, target, row, table, version)) {
            return null;
        }
        target.mapped = row;
        return target.physical;
    }

    /**
     * Starts building a new version of the alias's index from a copy of the table that follows
     * (a schema change its fields cannot take): an empty index {@code name_v<n+1>}, not behind the
     * alias, which every write of the table goes to from now on while searches still see the
     * current one. Versions an earlier, unfinished rebuild left are dropped: the copy comes whole
     * again. Nothing happens for a table that has no index yet (its copy creates it), nor for a
     * change the version behind the alias was rebuilt for already (a replay).
     *
     * @param origin the external version of the schema change, kept in the new version's {@code _meta}
     */
    public void beginRebuild(String alias, String table, long origin) {
        KnownIndex k = known.containsKey(alias) ? known.get(alias) : lookup.find(alias);
        if (k == null) {
            return;
        }
        known.put(alias, k);
        if (origin > 0 && k.origin >= origin) {
            // The change comes again (a replay after a task took a partition over); the version behind the alias was rebuilt for it.
            LOG.info("{} was rebuilt for this schema change of {} already; not again", k.physical, table);
            return;
        }
        if (origin > 0 && k.rebuild != null && k.rebuild.origin >= origin) {
            // The change comes again while its rebuild is under way: the copy that follows says whether it is the same copy.
            return;
        }
        startVersion(alias, k, table, origin, 0);
    }

    /**
     * A copy of the table into the stream begins (its truncate): the rows after it are the whole
     * table as of the copy. The version a schema change began for it takes the copy's identity.
     * A copy the version holds already is a replay and changes nothing. Any other copy is the
     * source copying the table again (it restarted during or after its copy, from before the
     * schema change): its rows are newer than those of the earlier copy, which carry the same
     * external version, and rows deleted in between are missing from it, so it gets a version
     * of its own, built as the first one was. Nothing happens for a table with no index (its
     * copy creates it).
     *
     * @param copy the copy's identity: its start time at the source
     */
    public void copyBegins(String alias, String table, long copy) {
        KnownIndex k = known.containsKey(alias) ? known.get(alias) : lookup.find(alias);
        if (k == null) {
            return;
        }
        known.put(alias, k);
        KnownIndex target = k.writeTarget();
        if (copy == 0 || target.copy == copy) {
            return;
        }
        if (target == k.rebuild && target.copy == 0) {
            ObjectNode meta = JSON.createObjectNode();
            meta.putObject("_meta").put(AliasLookup.ORIGIN, target.origin).put(AliasLookup.COPY, copy);
            ClusterClient.Answer answer = send("PUT", "/" + target.physical + "/_mapping", bytes(meta), "mark the copy of " + target.physical);
            if (!answer.ok()) {
                throw new ConnectException("Cannot record in index " + target.physical + " which copy of " + table + " it is built from: "
                        + "OpenSearch answered " + answer.status() + " " + answer.brief());
            }
            target.copy = copy;
            return;
        }
        LOG.info("{} is copied into the stream again (the source started its copy over after a restart): {} is built anew from "
                + "this copy", table, alias);
        startVersion(alias, k, table, target.origin, copy);
    }

    /** Drops what an unfinished rebuild left and creates the alias's next version, which every write goes to from now on. */
    private void startVersion(String alias, KnownIndex k, String table, long origin, long copy) {
        IndexVersions.Versions versions = IndexVersions.of(client, alias);
        for (int leftover : versions.unaliased()) {
            IndexVersions.drop(client, IndexNames.physical(alias, leftover));
        }
        String physical = IndexNames.physical(alias, versions.highest() + 1);
        ObjectNode body = newIndex(table, JSON.createObjectNode());
        ((ObjectNode) body.get("mappings")).putObject("_meta").put(AliasLookup.ORIGIN, origin).put(AliasLookup.COPY, copy);
        ClusterClient.Answer answer = send("PUT", "/" + physical, bytes(body), "create index " + physical);
        if (!answer.ok()) {
            throw new ConnectException("Cannot create index " + physical + " to rebuild " + alias + " for " + table + ": OpenSearch answered "
                    + answer.status() + " " + answer.brief());
        }
        k.rebuild = new KnownIndex(physical, new HashMap<>(), origin, copy);
        LOG.info("Rebuilding {} (for a schema change of {}) into {}, from a copy of the table; searches see {} until it is whole",
                alias, table, physical, k.physical);
    }

    /**
     * The copy is whole (every write before this is durable): the alias moves to the new version
     * in one step and the old one is dropped. False when no rebuild was under way.
     */
    public boolean finishRebuild(String alias) {
        KnownIndex k = known.containsKey(alias) ? known.get(alias) : lookup.find(alias);
        if (k == null || k.rebuild == null) {
            return false;
        }
        IndexVersions.swap(client, alias, k.physical, k.rebuild.physical);
        LOG.info("Alias {} moved to the rebuilt {}; {} dropped", alias, k.rebuild.physical, k.physical);
        known.put(alias, k.rebuild);
        return true;
    }

    private KnownIndex create(String alias, Schema row, String table) {
        String physical = IndexNames.physical(alias, 1);
        ObjectNode properties = JSON.createObjectNode();
        for (Field field : row.fields()) {
            properties.set(field.name(), wanted(table, field));
        }
        ObjectNode body = newIndex(table, properties);
        body.putObject("aliases").putObject(alias);
        ClusterClient.Answer answer = send("PUT", "/" + physical, bytes(body), "create index " + physical);
        if (!answer.ok()) {
            if (answer.text().contains("resource_already_exists_exception")) {
                KnownIndex other = lookup.find(alias); // another task created it first
                if (other != null) {
                    return other;
                }
            }
            throw new ConnectException("Cannot create index " + physical + " (alias " + alias + ") for " + table + ": OpenSearch answered "
                    + answer.status() + " " + answer.brief());
        }
        LOG.info("Created index {} behind alias {} for {} ({} fields)", physical, alias, table, properties.size());
        Map<String, String> fields = new HashMap<>();
        properties.fields().forEachRemaining(e -> fields.put(e.getKey(), e.getValue().path("type").asText()));
        return new KnownIndex(physical, fields, 0, 0);
    }

    /** Adds fields for columns the index lacks; refuses a column whose field has another type. */
    /** False when the row cannot be taken and is older than the version's origin (see {@link #writeIndex}). */
    private boolean addMissing(String alias, KnownIndex k, Schema row, String table, long version) {
        ObjectNode added = JSON.createObjectNode();
        for (Field field : row.fields()) {
            ObjectNode wanted = wanted(table, field);
            String type = wanted.path("type").asText();
            String existing = k.fields.get(field.name());
            if (existing == null) {
                added.set(field.name(), wanted);
            } else if (!existing.equals(type)) {
                if (version < k.origin) {
                    LOG.debug("A row of {} older than the rebuild of {} has column {} as {} (the index: {}); left out, the copy holds it",
                            table, k.physical, field.name(), type, existing);
                    return false;
                }
                throw new DataException("Column " + field.name() + " of " + table + " maps to an OpenSearch " + type + " field, but "
                        + "index " + k.physical + " (alias " + alias + ") has it as " + existing + ". Set ddl.copy.on=column_change on "
                        + "the source (the sluice command does for OpenSearch targets): a column change then copies the table into "
                        + "the stream and the index is rebuilt from it behind its alias. Or rebuild it yourself (delete the index and "
                        + "copy the table again)");
            }
        }
        if (added.isEmpty()) {
            return true;
        }
        ObjectNode body = JSON.createObjectNode();
        body.set("properties", added);
        ClusterClient.Answer answer = send("PUT", "/" + k.physical + "/_mapping", bytes(body), "add fields to " + k.physical);
        if (!answer.ok()) {
            throw new ConnectException("Cannot add fields " + String.join(", ", iterable(added)) + " of " + table + " to index " + k.physical
                    + ": OpenSearch answered " + answer.status() + " " + answer.brief());
        }
        added.fields().forEachRemaining(e -> k.fields.put(e.getKey(), e.getValue().path("type").asText()));
        LOG.info("Added fields {} of {} to index {}", String.join(", ", iterable(added)), table, k.physical);
        return true;
    }

    /**
     * Hands over the ids of every document in the index, a page at a time (after a refresh, so
     * that every write acknowledged so far is seen), for deletes the caller versions itself.
     */
    public void eachId(String index, int pageSize, IndexScroll.IdPage page) throws InterruptedException {
        new IndexScroll(client).eachId(index, pageSize, page);
    }

    /** A walk over some documents' ids, a page at a time. */
    @FunctionalInterface
    public interface IdPages {
        void each(IndexScroll.IdPage page) throws InterruptedException;
    }

    /** The ids of the index's documents the query (JSON) matches, a page at a time. */
    public void eachId(String index, int pageSize, String query, IndexScroll.IdPage page) throws InterruptedException {
        new IndexScroll(client).eachId(index, pageSize, query, page);
    }

    /**
     * Drops the alias's physical index and creates it afresh (a table copied again whole): no
     * document and no version of the earlier copy is left to refuse the new copy's rows.
     */
    public void recreate(String alias, Schema row, String table) {
        KnownIndex k = known.remove(alias);
        if (k == null) {
            k = lookup.find(alias);
        }
        if (k != null) {
            ClusterClient.Answer answer = send("DELETE", "/" + k.physical, null, "drop " + k.physical);
            if (!answer.ok() && answer.status() != 404) {
                throw new ConnectException("Cannot drop index " + k.physical + " to copy " + table + " again: OpenSearch answered "
                        + answer.status() + " " + answer.brief());
            }
        }
        known.put(alias, create(alias, row, table));
        known.get(alias).mapped = row;
    }

    /** The physical index the alias's writes go to now (a rebuild's, while one is under way); null when there is none. */
    public String writeIndexOf(String alias) {
        KnownIndex k = known.containsKey(alias) ? known.get(alias) : lookup.find(alias);
        if (k == null) {
            return null;
        }
        known.put(alias, k);
        return k.writeTarget().physical;
    }

    /** Whether the alias (or an index of its name) exists. */
    public boolean exists(String alias) {
        return known.containsKey(alias) || send("HEAD", "/" + alias, null, "look for index " + alias).status() == 200;
    }

    /**
     * Drops every index behind the alias and the versions beside it (a table dropped, copied again
     * from scratch, or an earlier table's index under a name a new table takes). False when there
     * was none.
     */
    public boolean dropAll(String alias) {
        known.remove(alias);
        IndexVersions.Versions versions = IndexVersions.of(client, alias);
        if (versions.all().isEmpty()) {
            return false;
        }
        for (int v : versions.all()) {
            IndexVersions.drop(client, IndexNames.physical(alias, v));
        }
        LOG.info("Dropped index {} ({} version(s))", alias, versions.all().size());
        return true;
    }

    /**
     * A table renamed: its indexes move under the new name's alias (cloned, which keeps every
     * document and its version, then the old ones dropped). An index the new name had already
     * (an earlier table's) is dropped first. Nothing happens when the old name has no index,
     * as when the rename comes again after a restart that followed its completion.
     */
    public void rename(String fromAlias, String toAlias, String table) {
        known.remove(fromAlias);
        known.remove(toAlias);
        IndexVersions.Versions versions = IndexVersions.of(client, fromAlias);
        if (versions.all().isEmpty()) {
            return;
        }
        if (dropAll(toAlias)) {
            LOG.warn("Index {} existed before table {} took its name: dropped, the table's own documents move there", toAlias, table);
        }
        IndexVersions.rename(client, fromAlias, toAlias, versions);
        LOG.info("Table {} renamed: its index {} is now {}", table, fromAlias, toAlias);
    }

    /** A document's _source as stored now (a realtime read); null when there is none. */
    public JsonNode source(String index, String id) {
        ClusterClient.Answer answer = send("GET", "/" + index + "/_doc/" + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8)
                .replace("+", "%20"), null, "read a document of " + index);
        if (answer.status() == 404) {
            return null;
        }
        JsonNode doc = read(answer);
        return doc.path("found").asBoolean(false) ? doc.path("_source") : null;
    }

    /** Forgets what is known (another task may have changed the indexes). */
    public void forget() {
        known.clear();
    }

    private ClusterClient.Answer send(String method, String path, byte[] body, String what) {
        return client.call(method, path, Map.of(), body, what);
    }

    private static JsonNode read(ClusterClient.Answer answer) {
        return ClusterClient.json(answer);
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Iterable<String> iterable(ObjectNode node) {
        return node::fieldNames;
    }

}
