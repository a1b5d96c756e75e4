package io.sluice.runtime.targets;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.status.TargetRecord;
import io.sluice.sink.webhook.WebhookSinkConnector;
import io.sluice.sink.webhook.WebhookSinkTask;
import io.sluice.sink.webhook.WebhookTargetState;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Webhook subscribers as a pipeline's target: the state database records the snapshot and
 * whether streamed changes are in the outbox (which says where a run starts), dead letters go
 * to a table beside the outbox, and status shows each subscription: its state and how many
 * changes wait for it. The slot is confirmed only past what the outbox holds, not past what
 * receivers got: a receiver that is down holds no WAL.
 */
final class WebhookTarget implements Target {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx");

    private final Map<String, String> keys;
    private WebhookTargetState state;

    WebhookTarget(Map<String, String> keys) {
        this.keys = keys;
    }

    private WebhookTargetState state() {
        if (state == null) {
            state = new WebhookTargetState(keys);
        }
        return state;
    }

    @Override
    public String display() {
        return state().display();
    }

    @Override
    public List<String> problems(Map<String, String> sourceKeys) {
        List<String> problems = new java.util.ArrayList<>(Problems.of(new WebhookSinkConnector().validate(keys)));
        if (Boolean.parseBoolean(sourceKeys.getOrDefault("snapshot.raw.tuples", "false"))) {
            problems.add("snapshot.raw.tuples: raw COPY tuples are for PostgreSQL targets; webhooks need decoded rows: remove "
                    + "snapshot.raw.tuples from the source");
        }
        problems.addAll(SubsetStreaming.problems(sourceKeys, "webhooks"));
        return problems;
    }

    @Override
    public Recorded read(String source, boolean checkEmptied, Map<String, String> sourceKeys) throws SQLException {
        TargetRecord r = state().record(source);
        return new Recorded(r.snapshotFinished(), r.snapshotStarted(), r.snapshotFinished() ? WHEN.format(r.finishedAt()) : null,
                r.streamed(), List.of(), List.of());
    }

    @Override
    public RunningSink start(SinkTaskContext context) {
        return start(context, null);
    }

    /** Backfills are asked of the source the run streams from: at once, with the subscription's tables. */
    @Override
    public RunningSink startStreaming(SinkTaskContext context, SourceAdmin source) {
        return start(context, source);
    }

    private RunningSink start(SinkTaskContext context, SourceAdmin source) {
        WebhookSinkTask task = new WebhookSinkTask();
        if (source != null) {
            task.backfillsThrough(source::requestBackfill);
        }
        task.initialize(context);
        task.start(keys);
        return new RunningSink(task, task::bytesWritten, () -> task.changesWritten() + " changes in the outbox" + deliveryLine(task));
    }

    private static String deliveryLine(WebhookSinkTask task) {
        StringBuilder s = new StringBuilder();
        task.deliveryCounts().forEach((name, counts) -> s.append("; ").append(name).append(": ").append(counts[0]).append(" delivered")
                .append(counts[1] > 0 ? ", " + counts[1] + " failed" : ""));
        return s.toString();
    }

    @Override
    public DeadLetterStore deadLetters(String pipeline) {
        return state().deadLetters(pipeline);
    }

    @Override
    public void printStatus(String pipeline, String source, long sourceLsn, PrintStream out) throws Exception {
        state().printStatus(pipeline, source, out);
    }

    @Override
    public void forget(String source, PrintStream out) throws SQLException {
        state().forget(source).ifPresent(out::println);
    }
}
