package io.sluice.runtime.pipeline;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.sink.postgres.PostgresSinkConfig;
import io.sluice.sink.postgres.state.SnapshotRecords;
import io.sluice.sink.postgres.state.TargetState;

/**
 * Reads what the target records of a pipeline (its snapshot, its streaming position) and checks
 * that the tables the snapshot loaded are still there: what {@link StartingPoint} decides by.
 */
final class PipelineTarget {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx");

    private final PipelineSpec spec;
    private final PostgresSinkConfig target;
    private final TargetState state;

    PipelineTarget(PipelineSpec spec) {
        this.spec = spec;
        this.target = new PostgresSinkConfig(spec.target());
        this.state = new TargetState(target.positionTable(), target.connectorName());
    }

    /** The target's address, for messages. */
    String display() {
        return target.endpoint().display();
    }

    /**
     * What the target holds of the pipeline.
     *
     * @param checkEmptied also ask whether tables the snapshot filled are empty while the source's are not (the snapshot
     *                     command: a copy nobody streams into should not lose its rows)
     */
    StartingPoint.Target read(boolean checkEmptied) throws SQLException {
        try (Connection c = PgConnect.open(target.endpoint(), "sluice state")) {
            TargetState.Status status = state.status(c, spec.name());
            Optional<SnapshotRecords.Snapshot> snapshot = status.snapshot();
            boolean position = status.applied().isPresent();
            if (snapshot.isEmpty()) {
                return new StartingPoint.Target(false, false, null, position, List.of(), List.of());
            }
            SnapshotRecords.Snapshot s = snapshot.get();
            List<String> missing = new ArrayList<>();
            List<String> empty = new ArrayList<>();
            List<String> emptySources = new ArrayList<>();
            for (int i = 0; i < s.targetTables().size(); i++) {
                String table = s.targetTables().get(i);
                if (!exists(c, table)) {
                    missing.add(table);
                } else if (checkEmptied && s.finished() && isEmpty(c, table)) {
                    empty.add(table);
                    emptySources.add(i < s.sourceTables().size() ? s.sourceTables().get(i) : null);
                }
            }
            List<String> emptied = empty.isEmpty() ? List.of() : emptiedOnTarget(empty, emptySources);
            return new StartingPoint.Target(s.finished(), !s.finished(), s.finished() ? WHEN.format(s.finishedAt()) : null, position,
                    missing, emptied);
        }
    }

    /** Of the target tables found empty, those whose source table has rows. */
    private List<String> emptiedOnTarget(List<String> empty, List<String> sources) throws SQLException {
        PostgresSourceConfig config = new PostgresSourceConfig(spec.source());
        List<String> emptied = new ArrayList<>();
        try (Connection c = PgConnect.open(PostgresSourceConnector.endpoint(config), "sluice state")) {
            for (int i = 0; i < empty.size(); i++) {
                String source = sources.get(i);
                if (source != null && exists(c, source) && !isEmpty(c, source)) {
                    emptied.add(empty.get(i));
                }
            }
        }
        return emptied;
    }

    private static boolean exists(Connection c, String quotedTable) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, quotedTable);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static boolean isEmpty(Connection c, String quotedTable) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT NOT EXISTS (SELECT 1 FROM " + quotedTable + ")")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }
}
