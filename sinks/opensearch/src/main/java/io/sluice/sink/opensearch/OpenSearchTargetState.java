package io.sluice.sink.opensearch;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.status.TargetRecord;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.index.IndexNames;
import io.sluice.sink.opensearch.index.MappingCheck;
import io.sluice.sink.opensearch.mapping.FieldMappings;
import io.sluice.sink.opensearch.state.DeadLetterDocuments;
import io.sluice.sink.opensearch.state.HeartbeatDocuments;
import io.sluice.sink.opensearch.state.SnapshotDocuments;

/**
 * The OpenSearch sink's front door for the {@code sluice} command: what the state index records
 * of a source (its snapshot and the aliases it filled), how many documents those hold, existing
 * indexes whose fields differ from what the sink would write, the dead letters, the status lines,
 * and forgetting a source. Nothing outside the module talks to the cluster for the sink.
 */
public final class OpenSearchTargetState {

    /** How long the command's own questions (what the cluster holds, status) wait for a busy or unreachable cluster. */
    private static final long QUESTION_RETRY_MILLIS = 30_000;

    private final OpenSearchSinkConfig config;

    /** @param keys the sink's configuration keys */
    public OpenSearchTargetState(Map<String, String> keys) {
        this.config = new OpenSearchSinkConfig(keys);
    }

    /** The cluster's address without secrets. */
    public String display() {
        return config.address().display();
    }

    private ClusterClient client() {
        return new ClusterClient(config.address(), 1, QUESTION_RETRY_MILLIS);
    }

    /**
     * Existing indexes whose fields differ from what the sink would write the tables with (another
     * type, or an override given since), one line each. None when the snapshot makes existing
     * indexes again ({@code table.exists=truncate}).
     *
     * @param topicPrefix the source's name, which index names may hold
     */
    public List<String> mappingDifferences(List<TableSchema> tables, String topicPrefix) {
        if (tables.isEmpty() || config.existingIndexes() == OpenSearchSinkConfig.ExistingIndexes.TRUNCATE) {
            return List.of();
        }
        List<String> differences = new ArrayList<>();
        IndexNames names = new IndexNames(config.indexNameFormat());
        try (ClusterClient client = client()) {
            MappingCheck check = new MappingCheck(client, new FieldMappings(config.mappingOptions()), config.mappingOverrides());
            for (TableSchema table : tables) {
                String alias = names.aliasOf(topicPrefix, table.schemaName(), table.tableName());
                differences.addAll(check.differences(alias, table.schemaName() + "." + table.tableName(), table.valueSchema()));
            }
        }
        return differences;
    }

    /** What the state index records of the source; its targets are the aliases of the indexes the snapshot filled. */
    public TargetRecord record(String source) {
        try (ClusterClient client = client()) {
            Optional<SnapshotDocuments.Snapshot> snapshot = new SnapshotDocuments(client, config.stateIndex()).read(source);
            if (snapshot.isEmpty()) {
                return TargetRecord.nothing();
            }
            SnapshotDocuments.Snapshot s = snapshot.get();
            List<String> sources = s.sourceTables().stream().map(t -> Identifiers.quote(t.substring(0, t.indexOf('.')),
                    t.substring(t.indexOf('.') + 1))).toList();
            return new TargetRecord(s.finished(), !s.finished(), s.finishedAt(), false, s.aliases(), sources);
        }
    }

    /** The documents behind each alias (after a refresh, so that what was just written counts); -1 where there is no index. */
    public Map<String, Long> documents(List<String> aliases) {
        Map<String, Long> documents = new LinkedHashMap<>();
        try (ClusterClient client = client()) {
            for (String alias : aliases) {
                documents.put(alias, documents(client, alias));
            }
        }
        return documents;
    }

    private static long documents(ClusterClient client, String alias) {
        ClusterClient.Answer refreshed = client.call("POST", "/" + alias + "/_refresh", Map.of(), null, "refresh " + alias);
        if (refreshed.status() == 404) {
            return -1;
        }
        return ClusterClient.json(client.call("GET", "/" + alias + "/_count", Map.of(), null, "count the documents of " + alias))
                .path("count").asLong();
    }

    /** The dead-letter index of the {@code sluice} command, for one pipeline. */
    public DeadLetterStore deadLetters(String pipeline) {
        // Dead letters wait for the cluster as long as the writes do: a record refused is kept, not dropped.
        return new DeadLetterDocuments(new ClusterClient(config.address(), 1, config.retryTimeoutMillis()), config.deadLetterIndex(),
                pipeline, true);
    }

    /** Prints the snapshot's record, the dead letters and the documents in the snapshot's indexes. */
    public void printStatus(String pipeline, String source, PrintStream out) {
        try (ClusterClient client = client()) {
            Optional<SnapshotDocuments.Snapshot> snapshot = new SnapshotDocuments(client, config.stateIndex()).read(source);
            snapshot.ifPresentOrElse(
                    s -> out.println("  snapshot of " + s.database() + " taken " + s.takenAt() + ": " + (s.finished() ? "finished "
                            + s.finishedAt() : "indexing since " + s.startedAt()) + ", " + s.aliases().size() + " indexes (recorded in "
                            + config.stateIndex() + ")"),
                    () -> out.println("  snapshot: none recorded in " + config.stateIndex()));
            DeadLetterDocuments deadLetters = new DeadLetterDocuments(client, config.deadLetterIndex(), pipeline, false);
            long kept = deadLetters.count();
            if (kept > 0) {
                out.println("  dead letters: " + kept + " record(s) OpenSearch would not index, kept in " + deadLetters.where());
            }
            long documents = 0;
            for (String alias : snapshot.map(SnapshotDocuments.Snapshot::aliases).orElse(List.of())) {
                documents += Math.max(0, documents(client, alias));
            }
            out.println("  target " + display() + ": " + String.format(java.util.Locale.ROOT, "%,d", documents) + " documents in the "
                    + "snapshot's indexes; the slot's confirmed position is how far they are (every change before it is indexed)");
        }
    }

    /** Forgets the snapshot record of the source; the line saying so, or empty when there was none. */
    public Optional<String> forget(String source) {
        try (ClusterClient client = client()) {
            boolean heartbeat = new HeartbeatDocuments(client, config.stateIndex()).forget(source);
            boolean snapshot = new SnapshotDocuments(client, config.stateIndex()).forget(source);
            if (!snapshot && !heartbeat) {
                return Optional.empty();
            }
            return Optional.of((snapshot ? "Forgot the snapshot record of " + source + (heartbeat ? " and its newest heartbeat" : "")
                    : "Forgot the newest heartbeat of " + source) + " in index " + config.stateIndex());
        }
    }
}
