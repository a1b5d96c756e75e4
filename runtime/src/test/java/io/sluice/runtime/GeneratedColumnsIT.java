package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresServer;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Generated columns reach a sink that is not PostgreSQL as PostgreSQL publishes them, the same
 * in the snapshot and the stream: from 18, stored ones (the publication's
 * {@code publish_generated_columns = stored}) with their computed value, virtual ones never;
 * before 18, none. Each index's documents hold the generated field exactly when the version
 * publishes it, after the snapshot and after updates (a document rewritten by a change must
 * not lose a field its snapshot document had).
 */
@ExtendWith(OpenSearchExtension.class)
class GeneratedColumnsIT {

    private final Path work = Path.of(System.getProperty("sluice.test.workdir", "target/test-services"), "generated-" + System.currentTimeMillis());

    @Test
    void from18StoredGeneratedColumnsAreInEveryDocument(OpenSearchNode node) throws Exception {
        try (PostgresServer.Launched server = PostgresServer.launch("generated-v18", 18)) {
            TestDatabase source = TestDatabases.create(server, GeneratedColumnsIT.class);
            priced(source);
            source.execute("ALTER TABLE priced ADD COLUMN half numeric GENERATED ALWAYS AS (price / 2) VIRTUAL");
            indexAndUpdate(node, source, "gen18", true);
        }
    }

    @Test
    void before18NoGeneratedColumnIsInAnyDocument(OpenSearchNode node) throws Exception {
        // A server of 17 of its own: the suite's shared one may be 18 (-Dsluice.test.postgres).
        try (PostgresServer.Launched server = PostgresServer.launch("generated-v17", 17)) {
            TestDatabase source = TestDatabases.create(server, GeneratedColumnsIT.class);
            assertThat(source.server().majorVersion()).isLessThan(18);
            priced(source);
            indexAndUpdate(node, source, "gen_old", false);
        }
    }

    private static void priced(TestDatabase source) throws Exception {
        source.execute("CREATE TABLE priced (id int PRIMARY KEY, price numeric NOT NULL, total numeric GENERATED ALWAYS AS (price * 2) STORED)",
                "INSERT INTO priced (id, price) SELECT g, g FROM generate_series(1, 50) g");
    }

    private void indexAndUpdate(OpenSearchNode node, TestDatabase source, String name, boolean storedPublished) throws Exception {
        String prefix = source.name().toLowerCase() + ".";
        String index = prefix + "public.priced";
        SluiceProcess sluice = SluiceProcess.start(work, StandbyPairs.userPath(), "run", "--source", SluiceRuns.url(source), "--target",
                node.httpUrl(), "--name", name, "--offsets", work.resolve(name + ".offsets").toString(),
                "--set", "source.status.update.interval.ms=200", "--set", "target.index.name.format=" + prefix + "${schema}.${table}");
        try {
            StandbyPairs.await(sluice, () -> sluice.output().contains("Streaming changes from slot"), "the snapshot");
            awaitDocuments(node, index, sluice, 50, doc -> doc.path("price").asInt() == doc.path("id").asInt());
            assertFields(IndexDocuments.all(node, index), storedPublished);
            source.execute("UPDATE priced SET price = price + 100 WHERE id <= 25");
            awaitDocuments(node, index, sluice, 50, doc -> doc.path("price").asInt() == doc.path("id").asInt() + (doc.path("id").asInt() <= 25 ? 100 : 0));
            assertFields(IndexDocuments.all(node, index), storedPublished);
            assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
        } finally {
            sluice.close();
        }
    }

    private static void assertFields(Map<String, JsonNode> docs, boolean storedPublished) {
        for (JsonNode doc : docs.values()) {
            assertThat(doc.has("half")).as("a virtual column is never published: %s", doc).isFalse();
            if (storedPublished) {
                assertThat(doc.path("total").asDouble()).as("the stored column's computed value: %s", doc).isEqualTo(doc.path("price").asDouble() * 2);
            } else {
                assertThat(doc.has("total")).as("before 18 no generated column is published: %s", doc).isFalse();
            }
        }
    }

    private static void awaitDocuments(OpenSearchNode node, String index, SluiceProcess sluice, int count,
                                       java.util.function.Predicate<JsonNode> current) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            Map<String, JsonNode> docs;
            try {
                docs = IndexDocuments.all(node, index);
            } catch (RuntimeException | java.io.IOException e) {
                docs = Map.of(); // the index is not made yet
            }
            if (docs.size() == count && docs.values().stream().allMatch(current)) {
                return;
            }
            assertThat(sluice.alive()).as(sluice.output()).isTrue();
            assertThat(System.nanoTime()).as("documents of " + index + " within 120 s: " + docs.values()).isLessThan(deadline);
            Thread.sleep(300);
        }
    }
}
