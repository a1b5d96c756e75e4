package io.sluice.runtime.targets;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.Relations;

/** Questions about tables a target's snapshot came from, asked of the source. */
final class SourceTables {

    private SourceTables() {
    }

    /**
     * Of the targets found empty, those whose source table has rows: emptied on the target, not empty at the source.
     *
     * @param sources the quoted source table of each target, in the same order (null when unknown)
     */
    static List<String> withRows(Map<String, String> sourceKeys, List<String> targets, List<String> sources) throws SQLException {
        PostgresSourceConfig config = new PostgresSourceConfig(sourceKeys);
        List<String> emptied = new ArrayList<>();
        try (Connection c = PgConnect.open(PostgresSourceConnector.endpoint(config), "sluice state")) {
            for (int i = 0; i < targets.size(); i++) {
                String source = sources.get(i);
                if (source != null && Relations.exists(c, source) && !Relations.isEmpty(c, source)) {
                    emptied.add(targets.get(i));
                }
            }
        }
        return emptied;
    }
}
