package io.sluice.sink.core.pgstate;

import java.sql.SQLException;

/**
 * Whether a failure says a table (or its schema) does not exist. Sluice's own tables on the
 * target are made on first write, so reading one that is missing means nothing was written yet.
 */
public final class MissingRelation {

    private MissingRelation() {
    }

    public static boolean is(SQLException e) {
        // undefined_table, invalid_schema_name
        return "42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState());
    }
}
