package io.sluice.runtime.targets;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.schemas.postgres.PgConnect;

/** Questions about tables a target's snapshot came from, asked of the source (or of a PostgreSQL target). */
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
                if (source != null && exists(c, source) && !isEmpty(c, source)) {
                    emptied.add(targets.get(i));
                }
            }
        }
        return emptied;
    }

    static boolean exists(Connection c, String quotedTable) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, quotedTable);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    static boolean isEmpty(Connection c, String quotedTable) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT NOT EXISTS (SELECT 1 FROM " + quotedTable + ")")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }
}
