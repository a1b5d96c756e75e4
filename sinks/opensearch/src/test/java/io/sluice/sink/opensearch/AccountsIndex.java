package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.TestDatabase;

/** The tests' accounts table (id, balance, note) and its index. */
final class AccountsIndex {

    private AccountsIndex() {
    }

    /** Every row of accounts is a document with its id and values, and there is no other document. */
    static void assertSame(TestDatabase source, OpenSearchNode node, String index) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, balance, note FROM accounts")) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getLong(2) + "|" + rs.getString(3));
            }
        }
        Map<String, String> docs = new HashMap<>();
        IndexDocuments.all(node, index).forEach((id, src) -> {
            assertThat(src.path("id").asText()).as("the id field of document " + id).isEqualTo(id);
            docs.put(id, src.path("balance").asLong() + "|" + src.path("note").asText());
        });
        assertThat(docs).hasSameSizeAs(rows).isEqualTo(rows);
    }
}
