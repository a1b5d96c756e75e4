package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.sink.opensearch.client.AwsSigV4;
import io.sluice.sink.opensearch.client.SignatureCheckingProxy;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every request the sink makes, signed with AWS Signature Version 4 and checked by a proxy that
 * recomputes the signature from what arrived ({@link SignatureCheckingProxy}): the snapshot's and
 * the stream's {@code _bulk} writes, document reads by ids that need encoding (a change leaving a
 * TOASTed value out reads the stored document), a TRUNCATE's scroll, a rename's clone, the
 * sink's own records. None may be refused. Keys the proxy does not know are refused at start,
 * with a message about the keys, the region and the domain's access policy.
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class AwsSignedIT {

    private static final AwsSigV4.Credentials KEYS = new AwsSigV4.Credentials("AKIDSLUICETEST", "wJalr/XUtn+FEMI=K7MDENG", "session/token+=");

    @Test
    void everyRequestIsSignedAsAmazonOpenSearchServiceChecksIt(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(AwsSignedIT.class);
        String prefix = source.name().toLowerCase() + "-";
        try (SignatureCheckingProxy proxy = new SignatureCheckingProxy(node, "eu-west-1", KEYS)) {
            source.execute("CREATE TABLE items (id text PRIMARY KEY, v text, big text)",
                    "ALTER TABLE items ALTER COLUMN big SET STORAGE EXTERNAL",
                    "INSERT INTO items SELECT 'id ' || g || ' /?#&+%ü', 'v' || g, repeat('big', 3000) FROM generate_series(1, 200) g",
                    "CREATE TABLE scratch (id int PRIMARY KEY)", "INSERT INTO scratch VALUES (1), (2)",
                    "CREATE TABLE marker (id int PRIMARY KEY)");
            Map<String, String> sinkProps = Pipes.sinkProps(node, "connection.url", proxy.httpUrl(),
                    "index.name.format", prefix + "${schema}.${table}", "connection.aws.region", "eu-west-1",
                    "connection.aws.access.key.id", KEYS.accessKeyId(), "connection.aws.secret.access.key", KEYS.secretAccessKey(),
                    "connection.aws.session.token", KEYS.sessionToken());
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(new ConcurrentHashMap<>(), Pipes.sourceProps(source, "aws"), sinkProps)) {
                Pipes.pumpUntil(pipe, "marker", 1, () -> source.execute("INSERT INTO marker VALUES (1)"));
                source.execute("UPDATE items SET v = v || '!' WHERE id LIKE 'id 1%'", // big is left out: the stored value is read
                        "TRUNCATE scratch", "INSERT INTO scratch VALUES (3)",
                        "ALTER TABLE scratch RENAME TO scratch2",
                        "INSERT INTO marker VALUES (2)");
                Pipes.pumpUntil(pipe, "marker", 2, () -> { });
                pipe.commit();
            }
            assertThat(proxy.refused()).as("requests whose signature did not hold; the last: %s", proxy.lastRefusal()).isZero();
            assertThat(proxy.verified()).isGreaterThan(20);
            Map<String, String> rows = new HashMap<>();
            try (Connection c = source.connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id, v, length(big) FROM items")) {
                while (rs.next()) {
                    rows.put(rs.getString(1), rs.getString(2) + "|" + rs.getInt(3));
                }
            }
            Map<String, String> docs = new HashMap<>();
            IndexDocuments.all(node, prefix + "public.items").forEach((id, doc) -> docs.put(id, doc.path("v").asText() + "|"
                    + doc.path("big").asText().length()));
            assertThat(docs).isEqualTo(rows);
            assertThat(IndexDocuments.all(node, prefix + "public.scratch2").keySet()).containsExactly("3");

            Map<String, String> wrong = new HashMap<>(sinkProps);
            wrong.put("connection.aws.secret.access.key", "not the secret");
            OpenSearchSinkTask task = new OpenSearchSinkTask();
            assertThatThrownBy(() -> task.start(wrong)).hasMessageContaining("AWS Signature Version 4")
                    .hasMessageContaining("access policy").hasMessageNotContaining("not the secret");
        } finally {
            TestDatabases.drop(source);
        }
    }
}
