package io.sluice.sink.postgres.state;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.pgstate.BarrierTables;
import io.sluice.sink.core.pgstate.DeadLetterTable;

/**
 * Sluice's own tables on the target, all in the schema of the position table: the applied
 * source positions, the Kafka offsets (on a cluster), the record of each snapshot, the tables an
 * unfinished snapshot created, and the ordering barriers. The target is the truth: a restart, a
 * rebalance and {@code sluice status} read it here, and {@code sluice teardown} forgets a source here.
 */
public final class SinkTables {

    private final AppliedPositions positions;
    private final SnapshotRecords snapshots;
    private final SnapshotClaims claims;
    private final String connector;

    /**
     * @param positionTable the position table's qualified name; the other tables go in its schema
     * @param connector     the sink connector's name (its Kafka offsets and barriers keep apart from another's)
     */
    public SinkTables(String positionTable, String connector) {
        this.positions = new AppliedPositions(positionTable);
        this.snapshots = new SnapshotRecords(positions.schema());
        this.claims = new SnapshotClaims(positions.schema());
        this.connector = connector;
    }

    /** The schema the tables are in. */
    public String schema() {
        return positions.schema();
    }

    /** The applied source positions (the position table). */
    public AppliedPositions positions() {
        return positions;
    }

    /** The record of each source's snapshot: when it was taken, loaded and finished, and its tables. */
    public SnapshotRecords snapshots() {
        return snapshots;
    }

    /** Which target tables an unfinished snapshot created, so that a new one may drop them. */
    public SnapshotClaims claims() {
        return claims;
    }

    /** The Kafka offsets the target has per topic partition (on a Kafka Connect cluster). */
    public KafkaOffsets kafkaOffsets() {
        return new KafkaOffsets(positions.schema(), connector);
    }

    /** The batch sizes this connector's tuners last settled on, where the next run starts. */
    public BatchSizes batchSizes(PgEndpoint endpoint) {
        return new BatchSizes(endpoint, positions.schema(), connector);
    }

    /** The arrivals at and releases of ordering barriers. */
    public BarrierTables barriers() {
        return new BarrierTables(positions.schema(), connector);
    }

    /** The dead-letter store of the {@code sluice} command on this target, for one pipeline. */
    public DeadLetterTable deadLetters(PgEndpoint endpoint, String pipeline) {
        return new DeadLetterTable(endpoint, positions.schema(), pipeline);
    }

    /** What the target holds of a source, for {@code sluice status}. */
    public record Status(Optional<SnapshotRecords.Snapshot> snapshot, Optional<AppliedPositions.Applied> applied) {
    }

    public Status status(Connection c, String source) throws SQLException {
        return new Status(snapshots.read(c, source), positions.status(c, source));
    }

    /**
     * Forgets a source (its position, its snapshot's record and claims); the target's tables and
     * rows stay. A snapshot torn down unfinished leaves its tables to the user: a new run must not
     * drop them. Returns what was forgotten, one line each.
     */
    public List<String> forget(Connection c, String source) throws SQLException {
        List<String> forgotten = new ArrayList<>();
        if (positions.forget(c, source)) {
            forgotten.add("Forgot the applied position of " + source + " in " + positions.name());
        }
        if (positions.heartbeats().forget(c, source)) {
            forgotten.add("Forgot the newest applied heartbeat of " + source + " in " + positions.heartbeats().name());
        }
        claims.release(c, source);
        if (snapshots.forget(c, source)) {
            forgotten.add("Forgot the record of the snapshot of " + source);
        }
        return forgotten;
    }
}
