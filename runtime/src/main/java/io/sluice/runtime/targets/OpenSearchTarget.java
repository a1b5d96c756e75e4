package io.sluice.runtime.targets;

import java.io.PrintStream;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.status.TargetRecord;
import io.sluice.sink.opensearch.OpenSearchSinkConfig;
import io.sluice.sink.opensearch.OpenSearchSinkConnector;
import io.sluice.sink.opensearch.OpenSearchSinkTask;
import io.sluice.sink.opensearch.OpenSearchTargetState;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * An OpenSearch target: the state index records which snapshot the indexes hold, the indexes
 * it names are checked to be there (and not emptied), and dead letters go to the sink's
 * dead-letter index. It records no streaming position: every write carries its source position
 * as the document's version, and the replication slot is confirmed only past what is indexed.
 */
final class OpenSearchTarget implements Target {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx");

    private final Map<String, String> keys;
    /** Made when first needed: {@link #problems} reports bad keys without parsing them. */
    private OpenSearchTargetState state;

    OpenSearchTarget(Map<String, String> keys) {
        this.keys = keys;
    }

    /** The same, for questions a person or the runtime waits on: it gives up on an unreachable cluster soon. */
    private OpenSearchTargetState asking;

    private OpenSearchTargetState state() {
        if (state == null) {
            state = new OpenSearchTargetState(keys);
        }
        return state;
    }

    /**
     * The state with its retries bounded to {@value #ASKING_RETRY_MILLIS} ms (or less, as the keys
     * say): the sink's own retries wait out an outage for retry.timeout.ms (30 minutes by default),
     * which {@code sluice status}, or the runtime asking whether a target left behind is back,
     * must not.
     */
    private OpenSearchTargetState asking() {
        if (asking == null) {
            Map<String, String> bounded = new java.util.HashMap<>(keys);
            long configured = new OpenSearchSinkConfig(keys).retryTimeoutMillis(); // its default and its checks, as the sink reads it
            bounded.put(OpenSearchSinkConfig.RETRY_TIMEOUT, Long.toString(Math.min(configured, ASKING_RETRY_MILLIS)));
            asking = new OpenSearchTargetState(bounded);
        }
        return asking;
    }

    private static final long ASKING_RETRY_MILLIS = 10_000;

    @Override
    public String display() {
        return state().display();
    }

    @Override
    public List<String> problems(Map<String, String> sourceKeys) {
        List<String> problems = new ArrayList<>(Problems.of(new OpenSearchSinkConnector().validate(keys)));
        if (Boolean.parseBoolean(sourceKeys.getOrDefault("snapshot.raw.tuples", "false"))) {
            problems.add("snapshot.raw.tuples: raw COPY tuples are for PostgreSQL targets; OpenSearch needs decoded rows: remove "
                    + "snapshot.raw.tuples from the source");
        }
        problems.addAll(SubsetStreaming.problems(sourceKeys, "OpenSearch"));
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
        List<String> differences = state().mappingDifferences(tables, sourceKeys.getOrDefault("topic.prefix", ""));
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

    @Override
    public Recorded read(String source, boolean checkEmptied, Map<String, String> sourceKeys) throws Exception {
        TargetRecord r = state().record(source);
        if (!r.snapshotFinished() && !r.snapshotStarted()) {
            return Recorded.nothing();
        }
        Map<String, Long> documents = state().documents(r.targets());
        return Recorded.of(r.snapshotFinished(), r.snapshotFinished() ? WHEN.format(r.finishedAt()) : null, false,
                r.targets().stream().map(a -> "index " + a).toList(), r.sources(), checkEmptied,
                index -> documents.get(index.substring("index ".length())), sourceKeys);
    }

    @Override
    public void answer(String source, Map<String, String> sourceKeys) {
        asking().record(source);
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
        return state().deadLetters(pipeline);
    }

    @Override
    public void printStatus(String pipeline, String source, long sourceLsn, PrintStream out) {
        asking().printStatus(pipeline, source, out);
    }

    @Override
    public void forget(String source, PrintStream out) {
        state().forget(source).ifPresent(out::println);
    }
}
