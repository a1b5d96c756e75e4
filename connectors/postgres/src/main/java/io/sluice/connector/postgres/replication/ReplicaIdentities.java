package io.sluice.connector.postgres.replication;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.naming.Identifiers;

/**
 * Selected tables whose updates and deletes PostgreSQL refuses once they are in a publication
 * that publishes them: no primary key under the default replica identity, replica identity
 * {@code NOTHING}, or an identity index that is gone. Their writers, not Sluice, would get the
 * error ("cannot update table ... because it does not have a replica identity"), so the start of
 * a pipeline says which tables and how to fix them. Inserts and truncates are not affected, so
 * an insert-only table (a log) is fine as it is: a warning, not a refusal.
 */
public final class ReplicaIdentities {

    private static final String QUERY = """
            SELECT n.nspname, c.relname, c.relreplident
              FROM pg_catalog.pg_class c
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE c.oid = ANY (?) AND c.relkind = 'r'
               AND (c.relreplident = 'n'
                    OR (c.relreplident = 'd' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND i.indisprimary))
                    OR (c.relreplident = 'i' AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND i.indisreplident)))
             ORDER BY n.nspname, c.relname""";

    private ReplicaIdentities() {
    }

    /** One message per selected table whose updates and deletes would be refused, naming the fix. */
    public static List<String> problems(Connection c, List<SelectedTable> tables) throws SQLException {
        List<String> out = new ArrayList<>();
        if (tables.isEmpty()) {
            return out;
        }
        Long[] oids = tables.stream().map(SelectedTable::oid).toArray(Long[]::new);
        try (PreparedStatement s = c.prepareStatement(QUERY)) {
            Array array = c.createArrayOf("oid", oids);
            s.setArray(1, array);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String table = Identifiers.quote(rs.getString(1), rs.getString(2));
                    String why = switch (rs.getString(3)) {
                        case "n" -> "has REPLICA IDENTITY NOTHING";
                        case "i" -> "has lost the index its replica identity used";
                        default -> "has no primary key and no replica identity index";
                    };
                    out.add(table + " " + why + ": once published, PostgreSQL refuses UPDATE and DELETE on it (inserts go on). "
                            + "If it gets them, give it a primary key, or run ALTER TABLE " + table + " REPLICA IDENTITY FULL "
                            + "(changes then carry the whole old row), or leave it out of table.include.list.");
                }
            }
        }
        return out;
    }
}
