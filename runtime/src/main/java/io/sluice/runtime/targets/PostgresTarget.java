package io.sluice.runtime.targets;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.status.TargetRecord;
import io.sluice.sink.postgres.PostgresSinkConnector;
import io.sluice.sink.postgres.PostgresSinkTask;
import io.sluice.sink.postgres.PostgresTargetState;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * A PostgreSQL target: its position table and snapshot records say where the pipeline is, the
 * snapshot's tables are checked to be there (and not emptied), dead letters go to a table beside
 * them, and a clean stop moves the target's sequences to the source's values.
 */
final class PostgresTarget implements Target {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx");

    private final Map<String, String> keys;
    /** Made when first needed: {@link #problems} reports bad keys without parsing them. */
    private PostgresTargetState state;

    PostgresTarget(Map<String, String> keys) {
        this.keys = keys;
    }

    private PostgresTargetState state() {
        if (state == null) {
            state = new PostgresTargetState(keys);
        }
        return state;
    }

    @Override
    public String display() {
        return state().display();
    }

    @Override
    public List<String> problems(Map<String, String> sourceKeys) {
        return Problems.of(new PostgresSinkConnector().validate(keys));
    }

    @Override
    public Recorded read(String source, boolean checkEmptied, Map<String, String> sourceKeys) throws Exception {
        TargetRecord r = state().record(source);
        if (!r.snapshotFinished() && !r.snapshotStarted()) {
            return new Recorded(false, false, null, r.streamed(), List.of(), List.of());
        }
        Map<String, Long> rows = state().rows(r.targets());
        return Recorded.of(r.snapshotFinished(), r.snapshotFinished() ? WHEN.format(r.finishedAt()) : null, r.streamed(), r.targets(),
                r.sources(), checkEmptied, rows::get, sourceKeys);
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
        return state().deadLetters(pipeline);
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
        try {
            long moved = state().advanceSequences(PostgresSourceConnector.sequenceValues(source));
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
        state().printStatus(pipeline, source, sourceLsn, out);
    }

    @Override
    public void forget(String source, PrintStream out) throws SQLException {
        state().forget(source).forEach(out::println);
    }
}
