package io.sluice.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.sluice.testing.Workdir;
import io.sluice.testing.kafka.ConnectCluster;

/**
 * The plugin archive as a user installs it: unzipped onto the {@code plugin.path} of a real
 * Connect worker whose class path holds nothing of Sluice, with {@code plugin.discovery=service_load}
 * (KIP-898), so the worker can only find the connectors and transforms through the archive's
 * {@code META-INF/services} manifests. The worker's REST API then lists them, and validates their
 * configurations reporting every error at once.
 */
class PluginArchiveIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String VERSION = System.getProperty("sluice.version");
    private static final String SOURCE = "io.sluice.connector.postgres.PostgresSourceConnector";
    private static final String SINK = "io.sluice.sink.postgres.PostgresSinkConnector";
    private static final String OPENSEARCH_SINK = "io.sluice.sink.opensearch.OpenSearchSinkConnector";
    private static final String WEBHOOK_SINK = "io.sluice.sink.webhook.WebhookSinkConnector";
    private static final String ANONYMIZE = "io.sluice.transforms.anonymize.Anonymize";
    private static final String OPERATION_IS = "io.sluice.transforms.predicate.OperationIs";
    private static final String CONVERTER = "io.sluice.schemas.converter.BinaryConverter";

    private static Path pluginDir;
    private static ConnectCluster cluster;

    @BeforeAll
    static void installAndStart() throws IOException {
        Path archive = Paths.get(System.getProperty("sluice.plugin.archive"));
        assertThat(archive).as("built by ./mvnw package").exists();
        Path pluginPath = Paths.get("target", "plugin-path").toAbsolutePath();
        if (Files.exists(pluginPath)) {
            Workdir.deleteTree(pluginPath);
        }
        Workdir.unzip(archive, pluginPath);
        try (Stream<Path> top = Files.list(pluginPath)) {
            List<Path> dirs = top.toList();
            assertThat(dirs).as("one top directory, named like the archive").hasSize(1);
            pluginDir = dirs.get(0);
        }
        assertThat(pluginDir.getFileName().toString()).isEqualTo("sluice-kafka-connect-sluice-" + VERSION);
        cluster = ConnectCluster.start("plugin-archive", 1,
                Map.of("plugin.path", pluginPath.toString(), "plugin.discovery", "service_load"));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theManifestDescribesTheComponent() throws IOException {
        JsonNode manifest = JSON.readTree(pluginDir.resolve("manifest.json").toFile());
        assertThat(manifest.path("name").asText()).isEqualTo("kafka-connect-sluice");
        assertThat(manifest.path("version").asText()).isEqualTo(VERSION);
        assertThat(manifest.path("owner").path("username").asText()).isEqualTo("sluice");
        List<String> types = new ArrayList<>();
        manifest.path("component_types").forEach(t -> types.add(t.asText()));
        assertThat(types).containsExactlyInAnyOrder("source", "sink", "transform");
        assertThat(manifest.path("title").asText()).isNotBlank();
        assertThat(manifest.path("description").asText()).contains("PostgreSQL");
        assertThat(pluginDir.resolve("doc/README.md")).content().contains(VERSION).doesNotContain("${");
        assertThat(pluginDir.resolve("doc/configuration.md")).content().contains(SOURCE, SINK, OPENSEARCH_SINK, WEBHOOK_SINK, ANONYMIZE,
                OPERATION_IS);
        assertThat(pluginDir.resolve("doc/opensearch.md")).exists();
        assertThat(pluginDir.resolve("doc/webhooks.md")).exists();
    }

    @Test
    void libHoldsThePluginAndNothingTheWorkerProvides() throws IOException {
        List<Path> jars;
        try (Stream<Path> lib = Files.list(pluginDir.resolve("lib"))) {
            jars = lib.toList();
        }
        List<String> names = jars.stream().map(p -> p.getFileName().toString()).toList();
        assertThat(names).anyMatch(n -> n.startsWith("sluice-connector-postgres-"))
                .anyMatch(n -> n.startsWith("sluice-sink-postgres-"))
                .anyMatch(n -> n.startsWith("sluice-sink-opensearch-"))
                .anyMatch(n -> n.startsWith("opensearch-java-"))
                .anyMatch(n -> n.startsWith("sluice-sink-webhook-"))
                .anyMatch(n -> n.startsWith("sluice-transforms-"))
                .anyMatch(n -> n.startsWith("postgresql-"))
                .noneMatch(n -> n.startsWith("kafka") || n.startsWith("connect-") || n.startsWith("slf4j") || n.startsWith("logback"));
        Map<String, Set<String>> services = new HashMap<>();
        for (Path jar : jars) {
            try (JarFile file = new JarFile(jar.toFile())) {
                for (ZipEntry e : file.stream().toList()) {
                    // A class of Kafka's own packages in the plugin would shadow or clash with the worker's.
                    assertThat(e.getName()).as("%s in %s", e.getName(), jar.getFileName())
                            .doesNotStartWith("org/apache/kafka/").doesNotStartWith("org/slf4j/");
                    if (e.getName().startsWith("META-INF/services/org.apache.kafka.connect.")) {
                        String service = e.getName().substring("META-INF/services/".length());
                        try (InputStream in = file.getInputStream(e)) {
                            for (String line : new String(in.readAllBytes()).split("\n")) {
                                if (!line.isBlank() && !line.strip().startsWith("#")) {
                                    services.computeIfAbsent(service, k -> new HashSet<>()).add(line.strip());
                                }
                            }
                        }
                    }
                }
            }
        }
        assertThat(services.get("org.apache.kafka.connect.source.SourceConnector")).contains(SOURCE);
        assertThat(services.get("org.apache.kafka.connect.sink.SinkConnector")).contains(SINK, OPENSEARCH_SINK, WEBHOOK_SINK);
        assertThat(services.get("org.apache.kafka.connect.transforms.Transformation")).contains(ANONYMIZE);
        assertThat(services.get("org.apache.kafka.connect.transforms.predicates.Predicate")).contains(OPERATION_IS);
        assertThat(services.get("org.apache.kafka.connect.storage.Converter")).contains(CONVERTER);
    }

    @Test
    void aWorkerWithNothingOfSluiceOnItsClassPathFindsEveryComponentInTheArchive() throws Exception {
        assertThatThrownBy(() -> Class.forName(SOURCE)).as("the test's own class path holds no Sluice classes")
                .isInstanceOf(ClassNotFoundException.class);
        JsonNode plugins = get("connector-plugins?connectorsOnly=false");
        Map<String, JsonNode> byClass = new HashMap<>();
        plugins.forEach(p -> byClass.put(p.path("class").asText(), p));
        assertThat(byClass).containsKeys(SOURCE, SINK, OPENSEARCH_SINK, WEBHOOK_SINK, ANONYMIZE, OPERATION_IS, CONVERTER);
        assertThat(byClass.get(WEBHOOK_SINK).path("type").asText()).isEqualTo("sink");
        assertThat(byClass.get(OPENSEARCH_SINK).path("type").asText()).isEqualTo("sink");
        assertThat(byClass.get(SOURCE).path("type").asText()).isEqualTo("source");
        assertThat(byClass.get(SINK).path("type").asText()).isEqualTo("sink");
        assertThat(byClass.get(ANONYMIZE).path("type").asText()).isEqualTo("transformation");
        assertThat(byClass.get(OPERATION_IS).path("type").asText()).isEqualTo("predicate");
        assertThat(byClass.get(CONVERTER).path("type").asText()).isEqualTo("converter");
        for (String c : List.of(SOURCE, SINK, OPENSEARCH_SINK, WEBHOOK_SINK, ANONYMIZE, OPERATION_IS, CONVERTER)) {
            assertThat(byClass.get(c).path("version").asText()).as(c).isEqualTo(VERSION);
        }
    }

    @Test
    void theSourceConfigurationIsValidatedThroughRestWithEveryErrorAtOnce() throws Exception {
        Map<String, String> config = config(SOURCE, "bad-source",
                "database.port", "99999",
                "snapshot.mode", "sometimes",
                "topic.prefix", "no spaces allowed",
                "transforms", "anon",
                "transforms.anon.type", ANONYMIZE,
                "transforms.anon.rules", "public.customers.email = nosuch()\npublic.customers = email",
                "transforms.anon.mode", "lenient");
        JsonNode result = validate("PostgresSourceConnector", config);
        Map<String, List<String>> errors = errors(result);
        assertThat(errors).containsKeys("database.hostname", "database.user", "database.dbname", "database.port", "snapshot.mode",
                "topic.prefix", "transforms.anon.rules", "transforms.anon.mode");
        assertThat(errors.get("transforms.anon.rules")).anyMatch(e -> e.contains("nosuch"));
        assertThat(result.path("error_count").asInt()).isGreaterThanOrEqualTo(8);
        assertThat(documented(result)).as("every key has documentation").isTrue();
    }

    /**
     * A worker validates row filters against the database as {@code sluice run} does: what
     * PostgreSQL would refuse is reported on {@code table.include.list}, naming the key; a filter
     * it takes gives no error.
     */
    @Test
    void rowFiltersAreValidatedThroughRestNamingTheKey() throws Exception {
        try (io.sluice.testing.postgres.PostgresServer.Launched server = io.sluice.testing.postgres.PostgresServer.launch("plugin-filters")) {
            io.sluice.plugin.docs.Psql psql = new io.sluice.plugin.docs.Psql(server);
            psql.run("postgres", "CREATE DATABASE filters");
            psql.run("filters", "CREATE TABLE filtered_orders (id int PRIMARY KEY, region text)");
            Map<String, String> config = config(SOURCE, "filtered", "topic.prefix", "filtered", "table.include.list",
                    "public.filtered_orders", "table.filter.public.filtered_orders", "region = 'eu'", "database.hostname", server.host(),
                    "database.port", String.valueOf(server.port()), "database.user", server.user(), "database.password", server.password(),
                    "database.dbname", "filters", "database.sslmode", "disable");
            Map<String, List<String>> errors = errors(validate("PostgresSourceConnector", config));
            assertThat(errors).containsOnlyKeys("table.include.list");
            assertThat(errors.get("table.include.list")).anyMatch(e -> e.contains("table.filter.public.filtered_orders uses region")
                    && e.contains("REPLICA IDENTITY FULL"));

            config.put("table.filter.public.filtered_orders", "id % 2 = 0");
            JsonNode taken = validate("PostgresSourceConnector", config);
            assertThat(taken.path("error_count").asInt()).as("a filter on the key: %s", errors(taken)).isZero();

            config.put("table.filter.filtered_orders", "id > 1");
            assertThat(errors(validate("PostgresSourceConnector", config)).get("table.include.list"))
                    .anyMatch(e -> e.contains("table.filter.filtered_orders must name a table"));
        }
    }

    /**
     * On a worker, a row filter and a column list hold from the source connector to the
     * PostgreSQL sink: the target table has the listed columns and exactly the rows the filter
     * takes, also after updates that move rows in and out of it.
     */
    @Test
    void aRowFilterAndAColumnListHoldThroughAWorker() throws Exception {
        try (io.sluice.testing.postgres.PostgresServer.Launched server = io.sluice.testing.postgres.PostgresServer.launch("plugin-flow")) {
            io.sluice.plugin.docs.Psql psql = new io.sluice.plugin.docs.Psql(server);
            psql.run("postgres", "CREATE DATABASE flow_src");
            psql.run("postgres", "CREATE DATABASE flow_dst");
            psql.run("flow_src", "CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount numeric, secret text);"
                    + "INSERT INTO orders SELECT g, CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END, g, 'hidden' FROM generate_series(1, 200) g;");
            Map<String, String> source = config(SOURCE, "flow-source", "tasks.max", "1", "topic.prefix", "flow",
                    "table.include.list", "public.orders", "table.filter.public.orders", "id % 2 = 0",
                    "table.columns.public.orders", "region, amount", "ddl.capture", "false",
                    "database.hostname", server.host(), "database.port", String.valueOf(server.port()), "database.user", server.user(),
                    "database.password", server.password(), "database.dbname", "flow_src", "database.sslmode", "disable",
                    "key.converter", CONVERTER, "value.converter", CONVERTER,
                    "topic.creation.default.replication.factor", "1", "topic.creation.default.partitions", "1",
                    "barriers.topic.partitions", "1");
            Map<String, String> sink = config(SINK, "flow-sink", "tasks.max", "1", "topics.regex", "flow\\..*",
                    "key.converter", CONVERTER, "value.converter", CONVERTER, "consumer.override.metadata.max.age.ms", "1000",
                    "connection.url", "postgres://" + server.host() + ":" + server.port() + "/flow_dst?sslmode=disable",
                    "connection.username", server.user(), "connection.password", server.password());
            try {
                put("flow-source", source);
                put("flow-sink", sink);
                String even = "SELECT coalesce(string_agg(id || region, ',' ORDER BY id), '') || '|' || coalesce(sum(amount), 0) FROM orders";
                awaitSame(psql, even + " WHERE id % 2 = 0", even, "the snapshot's even orders");
                // Key changes move rows in (3 -> 1004) and out (4 -> 1005) of the filter.
                psql.run("flow_src", "UPDATE orders SET region = 'apac' WHERE id <= 9; UPDATE orders SET id = 1004 WHERE id = 3;"
                        + "UPDATE orders SET id = 1005 WHERE id = 4; UPDATE orders SET amount = amount + 1, secret = 'moved' WHERE id % 10 = 0;"
                        + "DELETE FROM orders WHERE id > 190 AND id < 1000; INSERT INTO orders VALUES (2000, 'eu', 5, 'x'), (2001, 'us', 6, 'y');");
                awaitSame(psql, even + " WHERE id % 2 = 0", even, "the even orders after the changes");
                assertThat(psql.query("flow_dst", "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM "
                        + "information_schema.columns WHERE table_schema = 'public' AND table_name = 'orders'")).isEqualTo("id,region,amount");
                assertThat(get("connectors/flow-sink/status").path("tasks").get(0).path("state").asText()).isEqualTo("RUNNING");
            } finally {
                delete("flow-sink");
                delete("flow-source");
            }
        }
    }

    /**
     * On a worker, a table is re-synced through the source's signal table, as a Connect user
     * does it (an INSERT): the target's copy, corrupted behind Sluice's back, ends equal while
     * changes go on, with the table's topic in three partitions, two sink tasks and barriers.
     */
    @Test
    void aTableIsResyncedThroughTheSignalTableOnAWorker() throws Exception {
        try (io.sluice.testing.postgres.PostgresServer.Launched server = io.sluice.testing.postgres.PostgresServer.launch("plugin-resync")) {
            io.sluice.plugin.docs.Psql psql = new io.sluice.plugin.docs.Psql(server);
            psql.run("postgres", "CREATE DATABASE flow_src");
            psql.run("postgres", "CREATE DATABASE flow_dst");
            psql.run("flow_src", "CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL, amount numeric);"
                    + "INSERT INTO orders SELECT g, CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END, g FROM generate_series(1, 3000) g;");
            Map<String, String> source = config(SOURCE, "resync-source", "tasks.max", "1", "topic.prefix", "resync",
                    "table.include.list", "public.orders", "ddl.capture", "false", "resync.chunk.rows", "200",
                    "database.hostname", server.host(), "database.port", String.valueOf(server.port()), "database.user", server.user(),
                    "database.password", server.password(), "database.dbname", "flow_src", "database.sslmode", "disable",
                    "key.converter", CONVERTER, "value.converter", CONVERTER,
                    "topic.creation.default.replication.factor", "1", "topic.creation.default.partitions", "3",
                    "barriers.topic.partitions", "3");
            Map<String, String> sink = config(SINK, "resync-sink", "tasks.max", "2", "topics.regex", "resync\\..*",
                    "key.converter", CONVERTER, "value.converter", CONVERTER, "consumer.override.metadata.max.age.ms", "1000",
                    "connection.url", "postgres://" + server.host() + ":" + server.port() + "/flow_dst?sslmode=disable",
                    "connection.username", server.user(), "connection.password", server.password());
            String all = "SELECT count(*) || ':' || coalesce(sum(hashtext(id || region || amount)), 0) FROM orders";
            try {
                put("resync-source", source);
                put("resync-sink", sink);
                awaitSame(psql, all, all, "the snapshot");
                psql.run("flow_dst", "DELETE FROM orders WHERE id % 97 = 0; UPDATE orders SET amount = -1 WHERE id % 89 = 0;"
                        + "INSERT INTO orders VALUES (0, 'xx', 0), (1500000, 'xx', 0);");
                psql.run("flow_src", "INSERT INTO sluice_signals.requests (pipeline, kind, target) VALUES ('resync', 'resync', 'public.orders')");
                for (int i = 0; i < 20; i++) {
                    psql.run("flow_src", "UPDATE orders SET amount = amount + 1 WHERE id % 20 = " + i + "; INSERT INTO orders VALUES ("
                            + (5000 + i) + ", 'eu', " + i + ")");
                }
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
                while (!psql.query("flow_src", "SELECT state FROM sluice_signals.requests").equals("done")) {
                    assertThat(System.nanoTime()).as("the re-sync done: " + psql.query("flow_src", "SELECT state || ' ' || chunks || ' ' "
                            + "|| coalesce(message, '') FROM sluice_signals.requests")).isLessThan(deadline);
                    Thread.sleep(200);
                }
                awaitSame(psql, all, all, "the orders after the re-sync");
                assertThat(get("connectors/resync-sink/status").path("tasks").get(0).path("state").asText()).isEqualTo("RUNNING");
                assertThat(get("connectors/resync-sink/status").path("tasks").get(1).path("state").asText()).isEqualTo("RUNNING");
            } finally {
                delete("resync-sink");
                delete("resync-source");
            }
        }
    }

    private static void awaitSame(io.sluice.plugin.docs.Psql psql, String sourceQuery, String targetQuery, String what) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
        String want = null;
        String got = null;
        while (System.nanoTime() < deadline) {
            want = psql.query("flow_src", sourceQuery);
            try {
                got = psql.query("flow_dst", targetQuery);
            } catch (IllegalStateException e) {
                got = "no table yet";
            }
            if (want.equals(got)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("Timed out waiting for " + what + ": source " + want + ", target " + got);
    }

    private static void put(String name, Map<String, String> config) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.restUrl("connectors/" + name + "/config")))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 201);
    }

    private static void delete(String name) throws Exception {
        HTTP.send(HttpRequest.newBuilder(URI.create(cluster.restUrl("connectors/" + name))).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theSinkConfigurationIsValidatedThroughRestWithEveryErrorAtOnce() throws Exception {
        Map<String, String> config = config(SINK, "bad-sink",
                "topics", "shop.public.customers",
                "copy.parallelism", "0",
                "table.exists", "sometimes",
                "position.table", "no_schema");
        JsonNode result = validate("PostgresSinkConnector", config);
        Map<String, List<String>> errors = errors(result);
        assertThat(errors).containsKeys("connection.url", "copy.parallelism", "table.exists", "position.table");
        assertThat(result.path("error_count").asInt()).isGreaterThanOrEqualTo(4);
        assertThat(documented(result)).isTrue();
    }

    @Test
    void theOpenSearchSinkConfigurationIsValidatedThroughRestWithEveryErrorAtOnce() throws Exception {
        Map<String, String> config = config(OPENSEARCH_SINK, "bad-search",
                "topics", "shop.public.customers",
                "connection.url", "ftp://search:21",
                "mapping.numeric", "decimal",
                "bulk.in.flight", "0",
                "table.exists", "sometimes");
        JsonNode result = validate("OpenSearchSinkConnector", config);
        Map<String, List<String>> errors = errors(result);
        assertThat(errors).containsKeys("connection.url", "mapping.numeric", "bulk.in.flight", "table.exists");
        assertThat(errors.get("connection.url")).anyMatch(e -> e.contains("https://host:port"));
        assertThat(result.path("error_count").asInt()).isGreaterThanOrEqualTo(4);
        assertThat(documented(result)).isTrue();
    }

    @Test
    void theWebhookSinkConfigurationIsValidatedThroughRestWithEveryErrorAtOnce() throws Exception {
        Map<String, String> config = config(WEBHOOK_SINK, "bad-hooks",
                "topics", "shop.public.customers",
                "state.url", "mysql://db/state",
                "delivery.allow.networks", "the office",
                "api.listen", "nowhere",
                "subscriptions", "a");
        JsonNode result = validate("WebhookSinkConnector", config);
        Map<String, List<String>> errors = errors(result);
        assertThat(errors).containsKeys("state.url", "delivery.allow.networks", "api.listen", "subscriptions");
        assertThat(errors.get("subscriptions")).anyMatch(e -> e.contains("subscription.a.url is missing"))
                .anyMatch(e -> e.contains("subscription.a.secrets is missing"));
        assertThat(result.path("error_count").asInt()).isGreaterThanOrEqualTo(5);
        assertThat(documented(result)).isTrue();
    }

    private static Map<String, String> config(String connectorClass, String name, String... keysAndValues) {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", connectorClass);
        config.put("name", name);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            config.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return config;
    }

    private static JsonNode validate(String plugin, Map<String, String> config) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(cluster.restUrl("connector-plugins/" + plugin + "/config/validate")))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config)))
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static JsonNode get(String resource) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(cluster.restUrl(resource))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    /** Per key, the errors the worker reports. */
    private static Map<String, List<String>> errors(JsonNode result) {
        Map<String, List<String>> errors = new HashMap<>();
        for (JsonNode c : result.path("configs")) {
            List<String> messages = new ArrayList<>();
            c.path("value").path("errors").forEach(e -> messages.add(e.asText()));
            if (!messages.isEmpty()) {
                errors.put(c.path("value").path("name").asText(), messages);
            }
        }
        return errors;
    }

    /** Whether every key of Sluice's own (not Connect's common ones) comes with documentation. */
    private static boolean documented(JsonNode result) {
        boolean all = true;
        for (JsonNode c : result.path("configs")) {
            JsonNode definition = c.path("definition");
            if (definition.isMissingNode()) {
                continue;
            }
            all &= !definition.path("documentation").asText("").isBlank();
        }
        return all;
    }
}
