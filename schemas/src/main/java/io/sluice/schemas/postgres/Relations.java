package io.sluice.schemas.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Questions about one table of a database, by its quoted, qualified name. */
public final class Relations {

    private Relations() {
    }

    /** Whether the table exists (whatever the search path). */
    public static boolean exists(Connection c, String quotedTable) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.to_regclass(?) IS NOT NULL")) {
            s.setString(1, quotedTable);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** Whether the table has no row (it reads one row at most). */
    public static boolean isEmpty(Connection c, String quotedTable) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT NOT EXISTS (SELECT 1 FROM " + quotedTable + ")")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }
}
