package io.sluice.sink.postgres;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.sluice.schemas.envelope.SequenceEvents;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.schemas.postgres.Relations;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.metrics.ByteCounts;
import io.sluice.sink.core.pgstate.DeadLetterTable;
import io.sluice.sink.core.status.TargetRecord;
import io.sluice.sink.postgres.apply.SequenceAdvance;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.sink.postgres.state.SinkTables;
import io.sluice.sink.postgres.state.SnapshotRecords;

/**
 * The PostgreSQL sink's front door for the {@code sluice} command: what the target records of a
 * source (its snapshot, its applied position), its dead letters, its status lines, forgetting a
 * source, and moving its sequences. The sink task does the writing; this is all a caller needs
 * around it, so nothing outside the module reads the sink's own tables.
 */
public final class PostgresTargetState {

    private final PostgresSinkConfig config;
    private final SinkTables tables;

    /** @param keys the sink's configuration keys */
    public PostgresTargetState(Map<String, String> keys) {
        this.config = new PostgresSinkConfig(keys);
        this.tables = new SinkTables(config.positionTable(), config.connectorName());
    }

    /** The target's address without secrets. */
    public String display() {
        return config.endpoint().display();
    }

    public PgEndpoint endpoint() {
        return config.endpoint();
    }

    /** What the target records of the source. */
    public TargetRecord record(String source) throws SQLException {
        try (Connection c = PgConnect.open(config.endpoint(), "sluice state")) {
            SinkTables.Status status = tables.status(c, source);
            boolean streamed = status.applied().isPresent();
            if (status.snapshot().isEmpty()) {
                return new TargetRecord(false, false, null, streamed, List.of(), List.of());
            }
            SnapshotRecords.Snapshot s = status.snapshot().get();
            return new TargetRecord(s.finished(), !s.finished(), s.finishedAt(), streamed, s.targetTables(), s.sourceTables());
        }
    }

    /** Of each target table (quoted): -1 when it is gone, 0 when empty, 1 when it has rows. */
    public Map<String, Long> rows(List<String> targetTables) throws SQLException {
        Map<String, Long> rows = new LinkedHashMap<>();
        try (Connection c = PgConnect.open(config.endpoint(), "sluice state")) {
            for (String table : targetTables) {
                rows.put(table, !Relations.exists(c, table) ? -1L : Relations.isEmpty(c, table) ? 0L : 1L);
            }
        }
        return rows;
    }

    /** The dead-letter store of the {@code sluice} command on this target, for one pipeline. */
    public DeadLetterStore deadLetters(String pipeline) {
        return tables.deadLetters(config.endpoint(), pipeline);
    }

    /** Moves the target's sequences forward to these values (never back); how many moved. */
    public long advanceSequences(List<SequenceEvents.Value> values) throws SQLException {
        try (Connection to = PgConnect.open(config.endpoint(), "sluice sequences")) {
            return SequenceAdvance.advance(to, values);
        }
    }

    /**
     * Prints what the target records of the source: its snapshot, its dead letters, its newest
     * heartbeat (the end-to-end lag), and how far it has applied, with the apply rate over two seconds.
     */
    public void printStatus(String pipeline, String source, long sourceLsn, PrintStream out) throws SQLException, InterruptedException {
        try (Connection c = PgConnect.open(config.endpoint(), "sluice status")) {
            SinkTables.Status first = tables.status(c, source);
            first.snapshot().ifPresentOrElse(
                    s -> out.println("  snapshot of " + s.database() + " taken " + s.takenAt() + ": " + (s.finished() ? "finished "
                            + s.finishedAt() : "loading since " + s.startedAt()) + ", " + s.targetTables().size() + " tables (recorded on the target)"),
                    () -> out.println("  snapshot: none recorded on the target"));
            try (DeadLetterTable deadLetters = tables.deadLetters(config.endpoint(), pipeline)) {
                long kept = deadLetters.count(c);
                if (kept > 0) {
                    out.println("  dead letters: " + kept + " record(s) the target could not take, kept in " + deadLetters.where());
                }
            }
            tables.positions().heartbeats().read(c, source).ifPresent(at -> out.println("  end-to-end lag "
                    + String.format(Locale.ROOT, "%.1f s", Math.max(0, Duration.between(at, java.time.Instant.now()).toMillis()) / 1000.0)
                    + ": the newest heartbeat on the target was committed on the source at " + at));
            if (first.applied().isEmpty()) {
                out.println("  target " + display() + ": no change applied yet");
                return;
            }
            Thread.sleep(2000);
            AppliedPositions.Applied before = first.applied().get();
            AppliedPositions.Applied now = tables.status(c, source).applied().orElse(before);
            long behind = Math.max(0, sourceLsn - now.position().commitLsn());
            Duration since = Duration.between(now.appliedAt(), OffsetDateTime.now());
            out.println("  target " + display() + ": applied up to " + now.position().lsnText() + ", "
                    + String.format(Locale.ROOT, "%,d", now.changes()) + " changes in all, last applied "
                    + String.format(Locale.ROOT, "%.1f s", Math.max(0, since.toMillis()) / 1000.0) + " ago");
            out.println("  behind the source by " + ByteCounts.format(behind) + " of WAL; applying "
                    + String.format(Locale.ROOT, "%,.0f", (now.changes() - before.changes()) / 2.0) + " changes/s");
        }
    }

    /**
     * Whether the target records the source positions it has applied the source's changes
     * through (in the transactions that apply them), as the sink does unless it keeps Kafka
     * offsets instead ({@code position.mode=kafka}, on a Connect cluster).
     */
    public boolean recordsPositions(Connection c, String source) throws SQLException {
        return tables.positions().status(c, source).isPresent() || !tables.kafkaOffsets().any(c);
    }

    /**
     * How far the target has applied a source's changes.
     *
     * @param commitLsn the commit position of the newest transaction it has applied (0: none)
     * @param whole     whether it holds that transaction whole (a batch may end inside one)
     */
    public record Applied(long commitLsn, boolean whole) {
    }

    /**
     * How far the target has applied the source's changes, as {@code c} sees it (read it in the
     * transaction that reads the rows): the newer of the last change applied and the last
     * heartbeat applied (a transaction of its own, so whole).
     */
    public Applied appliedThrough(Connection c, String source) throws SQLException {
        long change = tables.positions().status(c, source).map(a -> a.position().commitLsn()).orElse(0L);
        long beat = tables.positions().heartbeats().readLsn(c, source).orElse(0L);
        return Long.compareUnsigned(change, beat) > 0 ? new Applied(change, tables.positions().whole(c, source)) : new Applied(beat, true);
    }

    /** Forgets the source (its position, its snapshot's record and claims; the tables and rows stay); one line per thing forgotten. */
    public List<String> forget(String source) throws SQLException {
        try (Connection c = PgConnect.open(config.endpoint(), "sluice teardown")) {
            return tables.forget(c, source);
        }
    }
}
