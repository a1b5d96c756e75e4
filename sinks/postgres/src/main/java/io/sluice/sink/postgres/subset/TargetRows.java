package io.sluice.sink.postgres.subset;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a staging subset asks the target: which rows it has (one query per table and set of
 * columns, the values cast to the columns' types so the key's index serves), and its foreign
 * keys. On a connection of its own, opened when first asked.
 */
final class TargetRows implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TargetRows.class);
    /** Rows per lookup statement. */
    private static final int LOOKUP_ROWS = 1000;

    private final PgEndpoint endpoint;
    private Connection connection;
    private TargetLinks links;

    TargetRows(PgEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** The target's foreign keys and column types. */
    TargetLinks links() throws SQLException {
        connection();
        return links;
    }

    /** The target's schema changed. */
    void forget() {
        if (links != null) {
            links.forget();
        }
    }

    /** Which of the rows the target has now: those it has map to true, the others are absent. */
    Map<RowRef, Boolean> present(Collection<RowRef> rows) throws SQLException {
        Map<String, List<RowRef>> byShape = new LinkedHashMap<>();
        for (RowRef ref : rows) {
            byShape.computeIfAbsent(ref.table() + "\0" + String.join("\0", ref.columns()), k -> new ArrayList<>()).add(ref);
        }
        Map<RowRef, Boolean> found = new HashMap<>();
        for (List<RowRef> group : byShape.values()) {
            RowRef first = group.get(0);
            Map<String, String> types = links().types(first.table());
            for (int from = 0; from < group.size(); from += LOOKUP_ROWS) {
                List<RowRef> part = group.subList(from, Math.min(group.size(), from + LOOKUP_ROWS));
                StringJoiner row = new StringJoiner(", ", "(", ")");
                row.add("?::int");
                StringJoiner names = new StringJoiner(", ", "v(\"$n\", ", ")");
                StringJoiner join = new StringJoiner(" AND ");
                for (int k = 0; k < first.columns().size(); k++) {
                    String type = types.get(first.columns().get(k));
                    if (type == null) {
                        throw new ConnectException("Target table " + first.table() + " has no column " + first.columns().get(k)
                                + ", which a staging subset's foreign key references");
                    }
                    row.add("?::" + type);
                    names.add("\"$" + k + "\"");
                    join.add("t." + Identifiers.quote(first.columns().get(k)) + " = v.\"$" + k + "\"");
                }
                StringJoiner values = new StringJoiner(", ");
                for (int i = 0; i < part.size(); i++) {
                    values.add(row.toString());
                }
                String sql = "SELECT v.\"$n\" FROM (VALUES " + values + ") " + names + " WHERE EXISTS (SELECT 1 FROM " + first.table()
                        + " t WHERE " + join + ")";
                try (PreparedStatement s = connection().prepareStatement(sql)) {
                    int p = 1;
                    for (int i = 0; i < part.size(); i++) {
                        s.setInt(p++, i);
                        for (String v : part.get(i).values()) {
                            s.setString(p++, v);
                        }
                    }
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            found.put(part.get(rs.getInt(1)), true);
                        }
                    }
                }
            }
        }
        return found;
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = PgConnect.open(endpoint, "sluice subset");
            connection.setAutoCommit(true);
            links = new TargetLinks(connection);
        }
        return connection;
    }

    @Override
    public void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("Closing the subset's connection", e);
            }
        }
    }
}
