package io.sluice.runtime.targets;

import java.io.PrintStream;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.opensearch.OpenSearchSinkConfig;
import io.sluice.sink.opensearch.OpenSearchSinkConnector;
import io.sluice.sink.opensearch.OpenSearchSinkTask;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.index.IndexNames;
import io.sluice.sink.opensearch.index.MappingCheck;
import io.sluice.sink.opensearch.mapping.FieldMappings;
import io.sluice.sink.opensearch.state.DeadLetterDocuments;
import io.sluice.sink.opensearch.state.SnapshotDocuments;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * An OpenSearch target: the state index records which snapshot the indexes hold, the indexes
 * it names are checked to be there (and not emptied), and dead letters go to the sink's
 * dead-letter index. It records no streaming position: every write carries its source position
 * as the document's version, and the replication slot is confirmed only past what is indexed.
 */
final class OpenSearchTarget implements Target {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx");

    /** How long the command's own questions (what the cluster holds, status) wait for a busy or unreachable cluster. */
    private static final long QUESTION_RETRY_MILLIS = 30_000;

    private final Map<String, String> keys;
    /** Parsed when first needed: {@link #problems} reports bad keys without parsing. */
    private OpenSearchSinkConfig config;

    OpenSearchTarget(Map<String, String> keys) {
        this.keys = keys;
    }

    private OpenSearchSinkConfig config() {
        if (config == null) {
            config = new OpenSearchSinkConfig(keys);
        }
        return config;
    }

    @Override
    public String display() {
        return config().address().display();
    }

    @Override
    public List<String> problems(Map<String, String> sourceKeys) {
        List<String> problems = new ArrayList<>(Problems.of(new OpenSearchSinkConnector().validate(keys)));
        if (Boolean.parseBoolean(sourceKeys.getOrDefault("snapshot.raw.tuples", "false"))) {
            problems.add("snapshot.raw.tuples: raw COPY tuples are for PostgreSQL targets; OpenSearch needs decoded rows: remove "
                    + "snapshot.raw.tuples from the source");
        }
        List<TableSchema> tables = selectedTables(sourceKeys);
        problems.addAll(keylessTables(tables));
        if (problems.isEmpty()) {
            problems.addAll(mappingDifferences(tables, sourceKeys));
        }
        return problems;
    }

    /**
     * Existing indexes whose fields differ from what the sink would write (another type, or an
     * override given since): all at once, before anything runs. Not when the snapshot makes
     * existing indexes again (table.exists=truncate).
     */
    private List<String> mappingDifferences(List<TableSchema> tables, Map<String, String> sourceKeys) {
        if (tables.isEmpty() || config().existingIndexes() == OpenSearchSinkConfig.ExistingIndexes.TRUNCATE) {
            return List.of();
        }
        List<String> differences = new ArrayList<>();
        IndexNames names = new IndexNames(config().indexNameFormat());
        String prefix = sourceKeys.getOrDefault("topic.prefix", "");
        try (ClusterClient client = client()) {
            MappingCheck check = new MappingCheck(client, new FieldMappings(config().mappingOptions()), config().mappingOverrides());
            for (TableSchema table : tables) {
                String alias = names.aliasOf(prefix, table.schemaName(), table.tableName());
                differences.addAll(check.differences(alias, table.schemaName() + "." + table.tableName(), table.valueSchema()));
            }
        }
        if (differences.isEmpty()) {
            return List.of();
        }
        return List.of("mapping.overrides: " + String.join("; ", differences.subList(0, Math.min(10, differences.size())))
                + (differences.size() > 10 ? "; and " + (differences.size() - 10) + " more" : "") + ". Copy into new indexes "
                + "(--fresh --table-exists truncate), delete those indexes, or give mapping.overrides that match them");
    }

    /** The source's selected tables, read once for the checks; empty when the source cannot be read (its own checks say why). */
    private static List<TableSchema> selectedTables(Map<String, String> sourceKeys) {
        try {
            return PostgresSourceConnector.selectedSchemas(new PostgresSourceConfig(sourceKeys));
        } catch (java.sql.SQLException | RuntimeException e) {
            return List.of();
        }
    }

    /**
     * Selected tables without a key: their rows have no document id, so each would be refused;
     * said at start, all at once, rather than row by row into the dead letters.
     */
    private static List<String> keylessTables(List<TableSchema> tables) {
        List<String> keyless = new ArrayList<>();
        for (TableSchema table : tables) {
            if (table.keyColumns().isEmpty()) {
                keyless.add(table.schemaName() + "." + table.tableName());
            }
        }
        if (keyless.isEmpty()) {
            return List.of();
        }
        return List.of("tables: " + keyless.size() + " selected table(s) have no primary key or replica identity index, so "
                + "their rows have no document id: " + String.join(", ", keyless.subList(0, Math.min(10, keyless.size())))
                + (keyless.size() > 10 ? ", …" : "") + ". Give them a primary key (or REPLICA IDENTITY USING INDEX on a unique index), "
                + "or leave them out with --exclude (table.exclude.list)");
    }

    private ClusterClient client() {
        return new ClusterClient(config().address(), 1, QUESTION_RETRY_MILLIS);
    }

    @Override
    public Recorded read(String source, boolean checkEmptied, Map<String, String> sourceKeys) throws Exception {
        try (ClusterClient client = client()) {
            Optional<SnapshotDocuments.Snapshot> snapshot = new SnapshotDocuments(client, config().stateIndex()).read(source);
            if (snapshot.isEmpty()) {
                return Recorded.nothing();
            }
            SnapshotDocuments.Snapshot s = snapshot.get();
            List<String> sources = s.sourceTables().stream().map(t -> Identifiers.quote(t.substring(0, t.indexOf('.')),
                    t.substring(t.indexOf('.') + 1))).toList();
            return Recorded.of(s.finished(), s.finished() ? WHEN.format(s.finishedAt()) : null, false,
                    s.aliases().stream().map(a -> "index " + a).toList(), sources, checkEmptied,
                    index -> documents(client, index.substring("index ".length())), sourceKeys);
        }
    }

    /** The documents of an index (after a refresh, so that what was just written counts); -1 when it does not exist. */
    private static long documents(ClusterClient client, String alias) {
        ClusterClient.Answer refreshed = client.call("POST", "/" + alias + "/_refresh", Map.of(), null, "refresh " + alias);
        if (refreshed.status() == 404) {
            return -1;
        }
        return ClusterClient.json(client.call("GET", "/" + alias + "/_count", Map.of(), null, "count the documents of " + alias))
                .path("count").asLong();
    }

    @Override
    public RunningSink start(SinkTaskContext context) {
        OpenSearchSinkTask task = new OpenSearchSinkTask();
        task.initialize(context);
        task.start(keys);
        return new RunningSink(task, task::bytesSent, task::batchStatus);
    }

    @Override
    public DeadLetterStore deadLetters(String pipeline) {
        // Dead letters wait for the cluster as long as the writes do: a record refused is kept, not dropped.
        return new DeadLetterDocuments(new ClusterClient(config().address(), 1, config().retryTimeoutMillis()), config().deadLetterIndex(),
                pipeline, true);
    }

    @Override
    public void printStatus(String pipeline, String source, long sourceLsn, PrintStream out) {
        try (ClusterClient client = client()) {
            Optional<SnapshotDocuments.Snapshot> snapshot = new SnapshotDocuments(client, config().stateIndex()).read(source);
            snapshot.ifPresentOrElse(
                    s -> out.println("  snapshot of " + s.database() + " taken " + s.takenAt() + ": " + (s.finished() ? "finished "
                            + s.finishedAt() : "indexing since " + s.startedAt()) + ", " + s.aliases().size() + " indexes (recorded in "
                            + config().stateIndex() + ")"),
                    () -> out.println("  snapshot: none recorded in " + config().stateIndex()));
            DeadLetterDocuments deadLetters = new DeadLetterDocuments(client, config().deadLetterIndex(), pipeline, false);
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

    @Override
    public void forget(String source, PrintStream out) {
        try (ClusterClient client = client()) {
            if (new SnapshotDocuments(client, config().stateIndex()).forget(source)) {
                out.println("Forgot the snapshot record of " + source + " in index " + config().stateIndex());
            }
        }
    }
}
