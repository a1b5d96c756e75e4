package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.ClientPrograms;
import io.sluice.testing.postgres.PartitionedTables;
import io.sluice.testing.postgres.PostgresServer;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import io.sluice.testing.webhook.TestReceiver.Received;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A table of twelve monthly partitions is one table to the sinks that are not PostgreSQL:
 * {@code sluice run} into OpenSearch makes one index for it, whose documents equal the rows
 * after the snapshot and again after rows moved between partitions, were inserted into several
 * and deleted; into a webhook subscription, every payload names the partitioned table, and the
 * payloads, applied in order, rebuild it. The sources are other versions than the suite's:
 * PostgreSQL 18 for OpenSearch, 14 for webhooks.
 */
@ExtendWith(OpenSearchExtension.class)
class PartitionedTargetsIT {

    private static final Map<Integer, PostgresServer.Launched> SERVERS = new HashMap<>();

    private final Path work = Path.of(System.getProperty("sluice.test.workdir", "target/test-services"), "partitioned-" + System.currentTimeMillis());

    @AfterAll
    static void stopServers() {
        SERVERS.values().forEach(PostgresServer.Launched::close);
    }

    @Test
    void twelvePartitionsAreOneIndex(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(server(18), PartitionedTargetsIT.class);
        String prefix = source.name().toLowerCase() + ".";
        String index = prefix + "public.events";
        try {
            PartitionedTables.monthly(source, 4);
            SluiceProcess sluice = SluiceProcess.start(work, userPath(), "run", "--source", SluiceRuns.url(source), "--target", node.httpUrl(),
                    "--name", "parts_os", "--offsets", work.resolve("parts_os.offsets").toString(),
                    "--set", "source.status.update.interval.ms=200", "--set", "target.index.name.format=" + prefix + "${schema}.${table}");
            try {
                StandbyPairs.await(sluice, () -> sluice.output().contains("Streaming changes from slot"), "the snapshot");
                awaitDocuments(node, index, source, sluice);
                assertThat(aliases(node, prefix)).as("one index for the partitioned table").containsExactly(index);
                assertThat(indexes(node, prefix)).as("behind it, one versioned index").containsExactly(index + "_v1");
                changeAcrossPartitions(source);
                awaitDocuments(node, index, source, sluice);
                assertThat(aliases(node, prefix)).as("still one index").containsExactly(index);
                assertThat(indexes(node, prefix)).as("behind it, one versioned index").containsExactly(index + "_v1");
                partitionsComeAndGo(source);
                awaitDocuments(node, index, source, sluice);
                // March, detached, is a table of its own now, with an index of its own; attached partitions have none.
                awaitDocuments(node, prefix + "public.events_3", source, "events_3", sluice);
                assertThat(aliases(node, prefix)).as("the partitioned table's index, and the detached partition's")
                        .containsExactly(index, prefix + "public.events_3");
                assertThat(indexes(node, prefix)).as("the partitioned table's index was not rebuilt")
                        .containsExactlyInAnyOrder(index + "_v1", prefix + "public.events_3_v1");
                assertThat(sluice.output()).contains("Partition public.events_6 of public.events was dropped while attached");
                // February was a table of its own, written to, before it was attached: the stream carried it as such, however
                // far the catalog had moved on, and its index went with the ATTACH, its rows being the partitioned table's.
                assertThat(Files.readString(work.resolve(".sluice").resolve("sluice.log")))
                        .containsPattern("Created index \\S+events_2025_02_v1")
                        .containsPattern("Table \\S*events_2025_02\\S* dropped at \\S+: index \\S+events_2025_02 dropped");
                assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
            } finally {
                sluice.close();
            }
        } finally {
            TestDatabases.drop(source);
        }
    }

    @Test
    void twelvePartitionsAreOneWebhookTable() throws Exception {
        TestDatabase source = TestDatabases.create(server(14), PartitionedTargetsIT.class);
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new SecureRandom());
        try (TestReceiver receiver = new TestReceiver(List.of(secret))) {
            PartitionedTables.monthly(source, 4);
            SluiceProcess sluice = SluiceProcess.start(work, userPath(), "run", "--source", SluiceRuns.url(source), "--target", "webhook",
                    "--name", "parts_hooks", "--offsets", work.resolve("parts_hooks.offsets").toString(),
                    "--set", "source.status.update.interval.ms=200", "--set", "target.api.listen=127.0.0.1:" + freePort(),
                    "--set", "target.api.token=partitioned-it-token-0123456789",
                    "--set", "target.delivery.allow.networks=127.0.0.1/32", "--set", "target.subscriptions=events",
                    "--set", "target.subscription.events.url=" + receiver.url(), "--set", "target.subscription.events.secrets=" + secret,
                    "--set", "target.subscription.events.tables=public.events");
            try {
                StandbyPairs.await(sluice, () -> rebuilt(receiver).size() == 1200, "the snapshot at the receiver");
                changeAcrossPartitions(source);
                partitionsComeAndGo(source);
                Map<String, String> expected = rows(source);
                try {
                    StandbyPairs.await(sluice, () -> rebuilt(receiver).equals(expected), "every change at the receiver");
                } catch (AssertionError e) {
                    throw new AssertionError("Payloads that differ from the rows: " + difference(expected, rebuilt(receiver)), e);
                }
                assertThat(receiver.received()).allMatch(Received::verified);
                assertThat(receiver.accepted().stream().map(r -> r.json().path("table").asText()).distinct())
                        .as("every payload names the partitioned table").containsExactly("events");
                assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
            } finally {
                sluice.close();
            }
        } finally {
            TestDatabases.drop(source);
        }
    }

    /** Rows moved between partitions (a month later, December's to January's), inserted into several, updated, deleted. */
    private static void changeAcrossPartitions(TestDatabase db) throws Exception {
        db.execute("UPDATE events SET at = at + INTERVAL '1 month' WHERE id % 10 = 3 AND at < '2024-12-01'",
                "UPDATE events SET at = at - INTERVAL '11 months' WHERE id % 10 = 3 AND at >= '2024-12-01'",
                "INSERT INTO events SELECT 2000 + m, make_date(2024, m, 15), m, 'new' FROM generate_series(1, 12) m",
                "UPDATE events SET amount = amount + 1, note = 'changed' WHERE id % 10 = 5",
                "DELETE FROM events WHERE id % 10 = 7");
    }

    /**
     * Partitions created, attached with rows (columns in another order), detached (one to stay a
     * table of its own, one to be dropped in the same transaction, one written to while detached
     * and attached again) while streaming, with changes between. The sinks have every row of the
     * partitioned table as it is, and nothing of a partition that left it; a partition dropped
     * while attached is the one case PostgreSQL gives no rows for: it is emptied first, and the
     * warning named.
     */
    private static void partitionsComeAndGo(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE events_2025_01 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2025-02-01')",
                "INSERT INTO events SELECT 3000 + g, DATE '2025-01-01' + g, g, 'january' FROM generate_series(1, 20) g",
                "CREATE TABLE events_2025_02 (note text, amount numeric, at date NOT NULL, id int NOT NULL)",
                "INSERT INTO events_2025_02 SELECT 'before attach ' || g, g * 2, DATE '2025-02-01' + g, 4000 + g FROM generate_series(1, 25) g",
                "ALTER TABLE events ATTACH PARTITION events_2025_02 FOR VALUES FROM ('2025-02-01') TO ('2025-03-01')",
                "UPDATE events SET note = 'after attach' WHERE at >= '2025-02-01' AND id % 2 = 0",
                "ALTER TABLE events DETACH PARTITION events_3",
                "UPDATE events_3 SET note = 'detached' WHERE id % 2 = 0",
                "BEGIN; ALTER TABLE events DETACH PARTITION events_4; DROP TABLE events_4; COMMIT",
                "ALTER TABLE events DETACH PARTITION events_5",
                "INSERT INTO events_5 VALUES (5000, '2024-05-20', 1, 'while detached')",
                "DELETE FROM events_5 WHERE id % 3 = 0",
                "ALTER TABLE events ATTACH PARTITION events_5 FOR VALUES FROM ('2024-05-01') TO ('2024-06-01')",
                "UPDATE events SET amount = amount + 10 WHERE at >= '2024-05-01' AND at < '2024-06-01' AND id % 5 = 1",
                "DELETE FROM events_6",
                "DROP TABLE events_6",
                "INSERT INTO events VALUES (6000, '2024-07-15', 7, 'after the drop')");
    }

    /** Each row's key (id and date) and its amount and note, as text. */
    private static Map<String, String> rows(TestDatabase db) throws Exception {
        return rows(db, "events");
    }

    private static Map<String, String> rows(TestDatabase db, String table) throws Exception {
        Map<String, String> rows = new TreeMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, at::text, amount, note FROM " + table)) {
            while (rs.next()) {
                rows.put(rs.getInt(1) + "@" + rs.getString(2), new BigDecimal(rs.getString(3)).stripTrailingZeros().toPlainString() + " " + rs.getString(4));
            }
        }
        return rows;
    }

    private static String entry(JsonNode row) {
        return row.path("amount").asText().isEmpty() ? "" : new BigDecimal(row.path("amount").asText()).stripTrailingZeros().toPlainString()
                + " " + row.path("note").asText();
    }

    private static String key(JsonNode row) {
        return row.path("id").asInt() + "@" + row.path("at").asText();
    }

    /** The documents of the index as {@link #rows}; equal to the rows within 120 s. */
    private static void awaitDocuments(OpenSearchNode node, String index, TestDatabase source, SluiceProcess sluice) throws Exception {
        awaitDocuments(node, index, source, "events", sluice);
    }

    private static void awaitDocuments(OpenSearchNode node, String index, TestDatabase source, String table, SluiceProcess sluice)
            throws Exception {
        Map<String, String> expected = rows(source, table);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        Map<String, String> got = Map.of();
        while (System.nanoTime() < deadline) {
            got = new TreeMap<>();
            if (aliases(node, index).contains(index)) {
                for (JsonNode doc : IndexDocuments.all(node, index).values()) {
                    got.put(key(doc), entry(doc));
                }
            }
            if (got.equals(expected)) {
                return;
            }
            assertThat(sluice.alive()).as(sluice.output()).isTrue();
            Thread.sleep(300);
        }
        assertThat(difference(expected, got)).as("the index's documents are the rows").isEmpty();
    }

    /** At most 20 keys whose values differ (or are missing on one side), for a readable failure. */
    private static Map<String, String> difference(Map<String, String> expected, Map<String, String> got) {
        Map<String, String> differ = new TreeMap<>();
        java.util.Set<String> keys = new java.util.TreeSet<>(expected.keySet());
        keys.addAll(got.keySet());
        for (String k : keys) {
            if (!java.util.Objects.equals(expected.get(k), got.get(k)) && differ.size() < 20) {
                differ.put(k, "expected " + expected.get(k) + ", got " + got.get(k));
            }
        }
        return differ;
    }

    /** The receiver's payloads applied in order of arrival: what a subscriber rebuilds. */
    private static Map<String, String> rebuilt(TestReceiver receiver) {
        Map<String, String> table = new TreeMap<>();
        List<Received> accepted = new ArrayList<>(receiver.accepted());
        accepted.sort(java.util.Comparator.comparingLong(Received::arrivedMillis));
        for (Received r : accepted) {
            JsonNode body = r.json();
            JsonNode after = body.path("after");
            JsonNode before = body.path("before");
            String op = body.path("operation").asText();
            if (op.equals("delete")) {
                table.remove(key(before.isObject() ? before : body.path("key")));
            } else if (after.isObject()) {
                if (before.isObject() && !key(before).equals(key(after))) {
                    table.remove(key(before));
                }
                table.put(key(after), entry(after));
            }
        }
        return table;
    }

    /** The indexes whose names start with {@code prefix}. */
    private static List<String> indexes(OpenSearchNode node, String prefix) throws Exception {
        return cat(node, "/_cat/indices/" + prefix + "*?h=index&expand_wildcards=open");
    }

    /** The aliases whose names start with {@code prefix}: the indexes' names as the sink gives them. */
    private static List<String> aliases(OpenSearchNode node, String prefix) throws Exception {
        return cat(node, "/_cat/aliases/" + prefix + "*?h=alias");
    }

    private static List<String> cat(OpenSearchNode node, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(node.httpUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return Arrays.stream(r.body().split("\\s+")).filter(s -> !s.isBlank()).distinct().sorted().toList();
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    private static PostgresServer server(int major) {
        return SERVERS.computeIfAbsent(major, m -> PostgresServer.launch("partitioned-v" + m, m));
    }

    private static Map<String, String> userPath() {
        return StandbyPairs.userPath();
    }
}
