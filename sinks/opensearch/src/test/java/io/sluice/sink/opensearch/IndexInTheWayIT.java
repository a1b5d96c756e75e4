package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.sink.opensearch.client.ClusterAddress;
import io.sluice.sink.opensearch.client.ClusterClient;
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
 * An index of the user's under the name the sink keeps an alias by is refused, naming it and
 * what to do, and left as it was; once it is gone, the sink makes its first version behind the
 * alias. (That a name answering for an alias is not taken for such an index — another task made
 * the alias between two requests — rests on the index answer being keyed by the index's own name.)
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class IndexInTheWayIT {

    @Test
    void anIndexUnderTheAliasNameIsRefusedAndTheSinksOwnAliasIsNot(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(IndexInTheWayIT.class);
        String prefix = source.name().toLowerCase() + "-";
        try (ClusterClient client = new ClusterClient(ClusterAddress.parse(node.httpUrl(), null, null, null, null, true, 30_000), 1, 30_000)) {
            source.execute("CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a')");
            assertThat(client.send("PUT", "/" + prefix + "public.t", Map.of(), "{}".getBytes()).ok()).isTrue();
            Map<String, String> sinkProps = Pipes.sinkProps(node, "index.name.format", prefix + "${schema}.${table}");
            // Appending gets past the snapshot's check of existing names, to the index the rows go to.
            Map<String, String> appending = new java.util.HashMap<>(sinkProps);
            appending.put("table.exists", "append");
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(new ConcurrentHashMap<>(), Pipes.sourceProps(source, "inway"), appending)) {
                assertThatThrownBy(() -> {
                    for (int i = 0; i < 200; i++) {
                        pipe.pump();
                    }
                }).hasMessageContaining("has an index named " + prefix + "public.t").hasMessageContaining("index.name.format");
            }
            assertThat(IndexDocuments.count(node, prefix + "public.t")).as("the user's index untouched").isZero();

            client.send("DELETE", "/" + prefix + "public.t", Map.of(), null);
            try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(new ConcurrentHashMap<>(), Pipes.sourceProps(source, "inway2"), sinkProps)) {
                Pipes.pumpUntil(pipe, "t", 2, () -> source.execute("INSERT INTO t VALUES (2, 'b')"));
                pipe.commit();
            }
            assertThat(IndexDocuments.count(node, prefix + "public.t")).isEqualTo(2);
            assertThat(ClusterClient.json(client.send("GET", "/_alias/" + prefix + "public.t", Map.of(), null)).has(prefix + "public.t_v1"))
                    .as("the alias over the sink's first version").isTrue();
        } finally {
            TestDatabases.drop(source);
        }
    }
}
