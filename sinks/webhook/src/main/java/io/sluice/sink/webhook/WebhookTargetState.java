package io.sluice.sink.webhook;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.pgstate.DeadLetterTable;
import io.sluice.sink.core.status.TargetRecord;
import io.sluice.sink.webhook.state.OutboxReader;
import io.sluice.sink.webhook.state.HeartbeatTable;
import io.sluice.sink.webhook.state.SnapshotTable;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.SubscriptionTable;
import io.sluice.sink.webhook.subscription.Subscription;

/**
 * The webhook sink's front door for the {@code sluice} command: what the state database records
 * of a source (its snapshot, whether streamed changes are in the outbox), its dead letters, its
 * status lines (each subscription: its state and how many changes wait for it), and forgetting a
 * source. Nothing outside the module reads the state database's tables.
 */
public final class WebhookTargetState {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx");

    private final StateDatabase state;

    /** @param keys the sink's configuration keys */
    public WebhookTargetState(Map<String, String> keys) {
        this.state = new WebhookSinkConfig(keys).state();
    }

    /** Where the state is kept, without secrets. */
    public String display() {
        return "webhooks (state in " + state.schema() + " of " + state.endpoint().display() + ")";
    }

    /** What the state database records of the source (its tables are made first when missing). */
    public TargetRecord record(String source) throws SQLException {
        state.create();
        try (Connection c = state.open("state")) {
            Optional<SnapshotTable.Snapshot> snapshot = new SnapshotTable(state).read(c, source);
            if (snapshot.isEmpty()) {
                return TargetRecord.nothing();
            }
            SnapshotTable.Snapshot s = snapshot.get();
            boolean started = s.startedAt() != null;
            return new TargetRecord(s.finished(), started && !s.finished(), s.finishedAt(), s.streamed(), List.of(), List.of());
        }
    }

    /** The dead-letter store of the {@code sluice} command, beside the outbox, for one pipeline. */
    public DeadLetterStore deadLetters(String pipeline) {
        return new DeadLetterTable(state.endpoint(), state.schema(), pipeline);
    }

    /** Prints the snapshot's record, the dead letters, and each subscription with its state and backlog. */
    public void printStatus(String pipeline, String source, PrintStream out) throws SQLException {
        try (Connection c = state.open("status")) {
            new SnapshotTable(state).read(c, source).ifPresentOrElse(
                    s -> out.println("  snapshot of " + s.database() + ": " + (s.finished() ? "finished " + WHEN.format(s.finishedAt())
                            : "writing since " + WHEN.format(s.startedAt())) + (s.streamed() ? "; streamed changes in the outbox" : "")),
                    () -> out.println("  snapshot: none recorded in " + state.schema() + ".webhook_snapshots"));
            try (DeadLetterTable deadLetters = new DeadLetterTable(state.endpoint(), state.schema(), pipeline)) {
                long kept = deadLetters.count(c);
                if (kept > 0) {
                    out.println("  dead letters: " + kept + " record(s) the sink could not take, kept in " + deadLetters.where());
                }
            }
            long last = new OutboxReader(state).last(c);
            List<Subscription> all = new SubscriptionTable(state).all(c);
            out.println("  target " + display() + ": " + all.size() + " subscription(s), outbox at row " + last);
            for (Subscription s : all) {
                out.println("    " + s.name() + " → " + s.spec().displayUrl() + ": " + s.status().key()
                        + (s.statusReason() != null ? " (" + s.statusReason() + ")" : "") + ", " + Math.max(0, last - s.position())
                        + " outbox row(s) past its place" + (s.failingSince() != null ? ", failing since " + s.failingSince() : "")
                        + (s.backfill() == null ? "" : "; backfill " + s.backfill().key() + (s.backfillNote() == null ? ""
                                : " (" + s.backfillNote() + ")")));
            }
        }
    }

    /** Forgets the snapshot record of the source; the line saying so, or empty when there was none. */
    public Optional<String> forget(String source) throws SQLException {
        try (Connection c = state.open("teardown")) {
            boolean heartbeat = new HeartbeatTable(state).forget(c, source);
            boolean snapshot = new SnapshotTable(state).forget(c, source);
            if (!snapshot && !heartbeat) {
                return Optional.empty();
            }
            return Optional.of(snapshot ? "Forgot the snapshot record of " + source + " in " + state.schema() + ".webhook_snapshots"
                    + (heartbeat ? ", and its newest heartbeat" : "")
                    : "Forgot the newest heartbeat of " + source + " in " + state.schema() + ".webhook_heartbeats");
        }
    }
}
