package io.sluice.runtime.targets;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.connector.postgres.schema.SequenceValues;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.metrics.ByteCounts;
import io.sluice.sink.postgres.PostgresSinkConfig;
import io.sluice.sink.postgres.PostgresSinkConnector;
import io.sluice.sink.postgres.PostgresSinkTask;
import io.sluice.sink.postgres.apply.SequenceAdvance;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.core.pgstate.DeadLetterTable;
import io.sluice.sink.postgres.state.SnapshotRecords;
import io.sluice.sink.postgres.state.SinkTables;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * A PostgreSQL target: its position table and snapshot records say where the pipeline is, the
 * snapshot's tables are checked to be there (and not emptied), dead letters go to a table beside
 * them, and a clean stop moves the target's sequences to the source's values.
 */
final class PostgresTarget implements Target {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx");

    private final Map<String, String> keys;
    /** Parsed when first needed: {@link #problems} reports bad keys without parsing. */
    private PostgresSinkConfig config;
    private SinkTables state;

    PostgresTarget(Map<String, String> keys) {
        this.keys = keys;
    }

    private PostgresSinkConfig config() {
        if (config == null) {
            config = new PostgresSinkConfig(keys);
            state = new SinkTables(config.positionTable(), config.connectorName());
        }
        return config;
    }

    private SinkTables state() {
        config();
        return state;
    }

    @Override
    public String display() {
        return config().endpoint().display();
    }

    @Override
    public List<String> problems(Map<String, String> sourceKeys) {
        return Problems.of(new PostgresSinkConnector().validate(keys));
    }

    @Override
    public Recorded read(String source, boolean checkEmptied, Map<String, String> sourceKeys) throws Exception {
        try (Connection c = PgConnect.open(config().endpoint(), "sluice state")) {
            SinkTables.Status status = state().status(c, source);
            Optional<SnapshotRecords.Snapshot> snapshot = status.snapshot();
            boolean position = status.applied().isPresent();
            if (snapshot.isEmpty()) {
                return new Recorded(false, false, null, position, List.of(), List.of());
            }
            SnapshotRecords.Snapshot s = snapshot.get();
            return Recorded.of(s.finished(), s.finished() ? WHEN.format(s.finishedAt()) : null, position, s.targetTables(), s.sourceTables(),
                    checkEmptied, table -> !SourceTables.exists(c, table) ? -1 : SourceTables.isEmpty(c, table) ? 0 : 1, sourceKeys);
        }
    }

    @Override
    public RunningSink start(SinkTaskContext context) {
        PostgresSinkTask task = new PostgresSinkTask();
        task.initialize(context);
        task.start(keys);
        return new RunningSink(task, task::bytesLoaded, task::batchStatus);
    }

    @Override
    public DeadLetterStore deadLetters(String pipeline) {
        return state().deadLetters(config().endpoint(), pipeline);
    }

    /**
     * Moves the target's sequences to the source's values as they are now, past every row
     * streamed: while running they follow every {@code sequences.interval.ms}, and a cut-over
     * after a stop must not hand out ids the source already used.
     */
    @Override
    public void afterCleanStop(Map<String, String> sourceKeys, PrintStream out) {
        PostgresSourceConfig source = new PostgresSourceConfig(sourceKeys);
        if (source.sequencesIntervalMillis() <= 0) {
            return;
        }
        try (Connection from = PgConnect.open(PostgresSourceConnector.endpoint(source), "sluice sequences");
             Connection to = PgConnect.open(config().endpoint(), "sluice sequences")) {
            long moved = SequenceAdvance.advance(to, SequenceValues.read(from, source.allSequences(),
                    new TableSelector(source.includes(), source.excludes())).values());
            if (moved > 0) {
                out.println("Moved " + moved + " sequence(s) of the target forward to the source's values.");
            }
        } catch (SQLException | RuntimeException e) {
            // The stop promises sequences past the source's; without them a cut-over could hand out used ids.
            throw new IllegalStateException("every change was applied, but the target's sequences could not be moved to the source's "
                    + "values (" + e.getMessage() + "), so ids the target hands out may collide with the source's", e);
        }
    }

    @Override
    public void printStatus(String pipeline, String source, long sourceLsn, PrintStream out) throws Exception {
        try (Connection c = PgConnect.open(config().endpoint(), "sluice status")) {
            SinkTables.Status first = state().status(c, source);
            first.snapshot().ifPresentOrElse(
                    s -> out.println("  snapshot of " + s.database() + " taken " + s.takenAt() + ": " + (s.finished() ? "finished "
                            + s.finishedAt() : "loading since " + s.startedAt()) + ", " + s.targetTables().size() + " tables (recorded on the target)"),
                    () -> out.println("  snapshot: none recorded on the target"));
            try (DeadLetterTable deadLetters = state().deadLetters(config().endpoint(), pipeline)) {
                long kept = deadLetters.count(c);
                if (kept > 0) {
                    out.println("  dead letters: " + kept + " record(s) the target could not take, kept in " + deadLetters.where());
                }
            }
            if (first.applied().isEmpty()) {
                out.println("  target " + display() + ": no change applied yet");
                return;
            }
            Thread.sleep(2000);
            AppliedPositions.Applied before = first.applied().get();
            AppliedPositions.Applied now = state().status(c, source).applied().orElse(before);
            long behind = Math.max(0, sourceLsn - now.position().commitLsn());
            Duration since = Duration.between(now.appliedAt(), OffsetDateTime.now());
            out.println("  target " + display() + ": applied up to " + now.position().lsnText() + ", "
                    + String.format(Locale.ROOT, "%,d", now.changes()) + " changes in all, last applied "
                    + String.format(Locale.ROOT, "%.1f s", Math.max(0, since.toMillis()) / 1000.0) + " ago");
            out.println("  behind the source by " + ByteCounts.format(behind) + " of WAL; applying "
                    + String.format(Locale.ROOT, "%,.0f", (now.changes() - before.changes()) / 2.0) + " changes/s");
        }
    }

    @Override
    public void forget(String source, PrintStream out) throws SQLException {
        try (Connection c = PgConnect.open(config().endpoint(), "sluice teardown")) {
            state().forget(c, source).forEach(out::println);
        }
    }
}
