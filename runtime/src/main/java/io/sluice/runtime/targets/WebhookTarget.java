package io.sluice.runtime.targets;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.pgstate.DeadLetterTable;
import io.sluice.sink.webhook.WebhookSinkConfig;
import io.sluice.sink.webhook.WebhookSinkConnector;
import io.sluice.sink.webhook.WebhookSinkTask;
import io.sluice.sink.webhook.state.OutboxReader;
import io.sluice.sink.webhook.state.SnapshotTable;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.SubscriptionTable;
import io.sluice.sink.webhook.subscription.Subscription;
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
    private StateDatabase state;

    WebhookTarget(Map<String, String> keys) {
        this.keys = keys;
    }

    private StateDatabase state() {
        if (state == null) {
            state = new WebhookSinkConfig(keys).state();
        }
        return state;
    }

    @Override
    public String display() {
        return "webhooks (state in " + state().schema() + " of " + state().endpoint().display() + ")";
    }

    @Override
    public List<String> problems(Map<String, String> sourceKeys) {
        List<String> problems = new java.util.ArrayList<>(Problems.of(new WebhookSinkConnector().validate(keys)));
        if (Boolean.parseBoolean(sourceKeys.getOrDefault("snapshot.raw.tuples", "false"))) {
            problems.add("snapshot.raw.tuples: raw COPY tuples are for PostgreSQL targets; webhooks need decoded rows: remove "
                    + "snapshot.raw.tuples from the source");
        }
        return problems;
    }

    @Override
    public Recorded read(String source, boolean checkEmptied, Map<String, String> sourceKeys) throws SQLException {
        state().create();
        try (Connection c = state().open("state")) {
            Optional<SnapshotTable.Snapshot> snapshot = new SnapshotTable(state()).read(c, source);
            if (snapshot.isEmpty()) {
                return Recorded.nothing();
            }
            SnapshotTable.Snapshot s = snapshot.get();
            boolean started = s.startedAt() != null;
            return new Recorded(s.finished(), started && !s.finished(), s.finished() ? WHEN.format(s.finishedAt()) : null, s.streamed(),
                    List.of(), List.of());
        }
    }

    @Override
    public RunningSink start(SinkTaskContext context) {
        WebhookSinkTask task = new WebhookSinkTask();
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
        return new DeadLetterTable(state().endpoint(), state().schema(), pipeline);
    }

    @Override
    public void printStatus(String pipeline, String source, long sourceLsn, PrintStream out) throws Exception {
        try (Connection c = state().open("status")) {
            new SnapshotTable(state()).read(c, source).ifPresentOrElse(
                    s -> out.println("  snapshot of " + s.database() + ": " + (s.finished() ? "finished " + WHEN.format(s.finishedAt())
                            : "writing since " + WHEN.format(s.startedAt())) + (s.streamed() ? "; streamed changes in the outbox" : "")),
                    () -> out.println("  snapshot: none recorded in " + state().schema() + ".webhook_snapshots"));
            try (DeadLetterTable deadLetters = new DeadLetterTable(state().endpoint(), state().schema(), pipeline)) {
                long kept = deadLetters.count(c);
                if (kept > 0) {
                    out.println("  dead letters: " + kept + " record(s) the sink could not take, kept in " + deadLetters.where());
                }
            }
            long last = new OutboxReader(state()).last(c);
            List<Subscription> all = new SubscriptionTable(state()).all(c);
            out.println("  target " + display() + ": " + all.size() + " subscription(s), outbox at row " + last);
            for (Subscription s : all) {
                out.println("    " + s.name() + " → " + s.spec().displayUrl() + ": " + s.status().key()
                        + (s.statusReason() != null ? " (" + s.statusReason() + ")" : "") + ", " + Math.max(0, last - s.position())
                        + " outbox row(s) past its place" + (s.failingSince() != null ? ", failing since " + s.failingSince() : ""));
            }
        }
    }

    @Override
    public void forget(String source, PrintStream out) throws SQLException {
        try (Connection c = state().open("teardown")) {
            if (new SnapshotTable(state()).forget(c, source)) {
                out.println("Forgot the snapshot record of " + source + " in " + state().schema() + ".webhook_snapshots");
            }
        }
    }
}
