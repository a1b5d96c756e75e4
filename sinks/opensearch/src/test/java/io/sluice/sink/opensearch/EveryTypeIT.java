package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A row per supported type and edge value ({@link TypeColumns}), end to end from PostgreSQL into
 * a real OpenSearch node: copied by the snapshot (values read in binary), then the same values
 * streamed again (pgoutput's text) as new rows and as updates rotating every column's values
 * between the snapshot's rows, and a row deleted. After each phase the index holds one document
 * per row, each field what PostgreSQL says it must be, findable by a search exactly where its
 * value is indexable ({@link TypeChecker}); the checker is shown to see a wrong field.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class EveryTypeIT {

    @Test
    void everyTypeEndsInTheIndexAsPostgresHasIt(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(EveryTypeIT.class);
        String prefix = source.name().toLowerCase() + "-";
        String alias = prefix + "public.every_type";
        int rows = TypeColumns.rows();
        try {
            source.execute(TypeColumns.SETUP);
            source.execute(TypeColumns.create("every_type"));
            source.execute(TypeColumns.inserts("every_type", 1).toArray(String[]::new));
            source.execute("CREATE TABLE marker (id int PRIMARY KEY)");
            TypeChecker checker = new TypeChecker(source, node, "every_type", alias);
            Map<String, String> sinkProps = Pipes.sinkProps(node, "index.name.format", prefix + "${schema}.${table}",
                    "errors.tolerance", "none");
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(new ConcurrentHashMap<>(), Pipes.sourceProps(source, "types"), sinkProps)) {
                Pipes.pumpUntil(pipe, "marker", 1, () -> source.execute("INSERT INTO marker VALUES (1)"));
                pipe.commit();
                assertThat(checker.differences()).as("after the snapshot").isEmpty();

                List<String> changes = new ArrayList<>(TypeColumns.inserts("every_type", rows + 1));
                StringBuilder rotate = new StringBuilder("UPDATE every_type t SET (");
                StringBuilder from = new StringBuilder(") = (SELECT ");
                for (TypeColumns.Column c : TypeColumns.COLUMNS) {
                    rotate.append(rotate.charAt(rotate.length() - 1) == '(' ? "" : ", ").append(c.name());
                    from.append(from.charAt(from.length() - 1) == ' ' ? "" : ", ").append("o.").append(c.name());
                }
                changes.add(rotate.append(from).append(" FROM every_type o WHERE o.id = t.id % ").append(rows).append(" + 1) WHERE t.id <= ")
                        .append(rows).toString());
                changes.add("DELETE FROM every_type WHERE id = " + (2 * rows));
                changes.add("INSERT INTO marker VALUES (2)");
                source.execute(changes.toArray(String[]::new));
                Pipes.pumpUntil(pipe, "marker", 2, () -> { });
                pipe.commit();
            }
            assertThat(source.queryLong("SELECT count(*) FROM every_type")).isEqualTo(2L * rows - 1);
            assertThat(checker.differences()).as("after streamed inserts, updates and a delete").isEmpty();

            // The checker sees a field that differs.
            HttpResponse<String> put = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(node.httpUrl() + "/" + alias
                    + "/_update/1?refresh=true")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"doc\":{\"i4\":7}}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            assertThat(checker.differences()).singleElement().asString().startsWith("row 1 field i4: expected");
        } finally {
            TestDatabases.drop(source);
        }
    }
}
