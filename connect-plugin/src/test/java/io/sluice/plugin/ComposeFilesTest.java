package io.sluice.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.apache.kafka.connect.runtime.distributed.DistributedConfig;
import org.junit.jupiter.api.Test;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.runtime.cli.SluiceCommand;
import io.sluice.sink.postgres.PostgresSinkConfig;
import io.sluice.transforms.anonymize.Anonymize;

/**
 * The {@code docker/} folder, checked without a Docker engine: each compose file against the
 * part of the Compose specification it uses (a key this check does not know fails it, so a
 * misspelled key is caught), with every build context, Dockerfile, {@code COPY} source and
 * bind-mounted file present in the project, images pinned, ports and service names consistent;
 * the connector configurations and the worker's settings against Sluice's and Connect's
 * definitions; the {@code sluice} command's arguments against its parser. The Compose
 * specification's own JSON schema is not on Maven Central; see docker/README.md.
 */
class ComposeFilesTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path DOCKER = ROOT.resolve("docker");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final Set<String> TOP = Set.of("name", "services", "volumes", "networks");
    private static final Set<String> SERVICE = Set.of("image", "build", "command", "entrypoint", "environment", "ports", "volumes",
            "depends_on", "healthcheck", "restart", "working_dir");
    private static final Set<String> BUILD = Set.of("context", "dockerfile");
    private static final Set<String> HEALTHCHECK = Set.of("test", "interval", "timeout", "retries", "start_period");
    private static final Set<String> CONDITIONS = Set.of("service_started", "service_healthy", "service_completed_successfully");
    private static final Set<String> RESTART = Set.of("no", "always", "on-failure", "unless-stopped");
    private static final Pattern IMAGE = Pattern.compile("[a-z0-9][a-z0-9._/-]*:([A-Za-z0-9._-]+)");
    private static final Pattern PORT = Pattern.compile("(\\d{1,5}):(\\d{1,5})");
    private static final Pattern COPY = Pattern.compile("(?m)^COPY\\s+(?!--from)(.+)$");

    @Test
    void thereAreTheFourPipelines() throws IOException {
        assertThat(composeFiles()).extracting(p -> DOCKER.relativize(p).toString())
                .contains("compose/postgres-to-postgres/compose.yaml", "compose/kafka-connect/compose.yaml",
                        "compose/postgres-to-opensearch/compose.yaml", "compose/postgres-to-webhook/compose.yaml");
        for (Path compose : composeFiles()) {
            assertThat(compose.resolveSibling("README.md")).as("README beside " + compose).isRegularFile();
        }
    }

    @Test
    void composeFilesUseKnownKeysAndPointAtWhatExists() throws IOException {
        for (Path file : composeFiles()) {
            JsonNode compose = YAML.readTree(file.toFile());
            String where = DOCKER.relativize(file).toString();
            assertThat(names(compose)).as(where + ": top-level keys").isSubsetOf(TOP);
            Set<String> declaredVolumes = compose.has("volumes") ? names(compose.get("volumes")) : Set.of();
            JsonNode services = compose.get("services");
            assertThat(services).as(where + ": services").isNotNull();
            Set<String> hostPorts = new HashSet<>();
            for (String name : names(services)) {
                JsonNode service = services.get(name);
                String at = where + " service " + name;
                assertThat(names(service)).as(at + ": keys").isSubsetOf(SERVICE);
                assertThat(service.has("image") || service.has("build")).as(at + ": image or build").isTrue();
                if (service.has("image")) {
                    Matcher image = IMAGE.matcher(service.get("image").asText());
                    assertThat(image.matches()).as(at + ": image name:tag, got " + service.get("image").asText()).isTrue();
                    assertThat(image.group(1)).as(at + ": image pinned to a version").isNotEqualTo("latest");
                }
                if (service.has("build")) {
                    checkBuild(file, service.get("build"), at);
                }
                for (JsonNode port : list(service, "ports")) {
                    Matcher mapping = PORT.matcher(port.asText());
                    assertThat(mapping.matches()).as(at + ": port HOST:CONTAINER, got " + port.asText()).isTrue();
                    assertThat(hostPorts.add(mapping.group(1))).as(at + ": host port " + mapping.group(1) + " used once").isTrue();
                }
                for (JsonNode volume : list(service, "volumes")) {
                    String[] parts = volume.asText().split(":");
                    assertThat(parts.length).as(at + ": volume SOURCE:TARGET[:ro], got " + volume.asText()).isBetween(2, 3);
                    if (parts[0].startsWith(".") || parts[0].startsWith("/")) {
                        assertThat(file.getParent().resolve(parts[0]).normalize()).as(at + ": bind mount " + parts[0]).exists();
                    } else {
                        assertThat(declaredVolumes).as(at + ": named volume " + parts[0] + " declared").contains(parts[0]);
                    }
                }
                JsonNode dependsOn = service.get("depends_on");
                if (dependsOn != null) {
                    Set<String> needed = dependsOn.isArray() ? texts(dependsOn) : names(dependsOn);
                    assertThat(names(services)).as(at + ": depends_on names services").containsAll(needed);
                    if (dependsOn.isObject()) {
                        dependsOn.forEach(d -> assertThat(names(d)).as(at + ": depends_on keys").isSubsetOf(Set.of("condition")));
                        dependsOn.forEach(d -> assertThat(CONDITIONS).as(at + ": condition").contains(d.get("condition").asText()));
                    }
                }
                if (service.has("healthcheck")) {
                    assertThat(names(service.get("healthcheck"))).as(at + ": healthcheck keys").isSubsetOf(HEALTHCHECK);
                }
                if (service.has("restart")) {
                    assertThat(RESTART).as(at + ": restart").contains(service.get("restart").asText());
                }
                for (String key : List.of("environment")) {
                    if (service.has(key)) {
                        assertThat(service.get(key).isObject()).as(at + ": " + key + " as a map").isTrue();
                        service.get(key).forEach(v -> assertThat(v.isValueNode()).as(at + ": " + key + " values").isTrue());
                    }
                }
                for (String key : List.of("command", "entrypoint")) {
                    if (service.has(key)) {
                        JsonNode value = service.get(key);
                        assertThat(value.isTextual() || value.isArray() && allText(value)).as(at + ": " + key + " a string or strings").isTrue();
                    }
                }
                if (service.has("build") && service.get("build").path("dockerfile").asText().equals("docker/sluice/Dockerfile")
                        && service.has("command")) {
                    List<String> args = new ArrayList<>();
                    service.get("command").forEach(a -> args.add(a.asText()));
                    assertThatCode(() -> SluiceCommand.check(args.toArray(String[]::new))).as(at + ": sluice " + String.join(" ", args))
                            .doesNotThrowAnyException();
                }
            }
        }
    }

    /**
     * The PostgreSQL → PostgreSQL pipeline's monitoring wired end to end: Prometheus scrapes a service
     * on the port that service's {@code sluice run --metrics} serves, loads the rules file it mounts;
     * Grafana's data source is that Prometheus, and its dashboards folder holds the dashboard.
     */
    @Test
    void theMonitoredPipelineIsWiredEndToEnd() throws IOException {
        Path file = DOCKER.resolve("compose/postgres-to-postgres/compose.yaml");
        JsonNode services = YAML.readTree(file.toFile()).get("services");
        assertThat(names(services)).contains("sluice", "prometheus", "grafana");
        Map<String, Path> mounted = new HashMap<>();
        for (String service : List.of("prometheus", "grafana")) {
            for (JsonNode volume : list(services.get(service), "volumes")) {
                String[] parts = volume.asText().split(":");
                mounted.put(service + ":" + parts[1], file.getParent().resolve(parts[0]).normalize());
            }
        }
        JsonNode prometheus = YAML.readTree(mounted.get("prometheus:/etc/prometheus/prometheus.yml").toFile());
        for (JsonNode ruleFile : prometheus.path("rule_files")) {
            assertThat(mounted).as("rule file " + ruleFile.asText() + " mounted").containsKey("prometheus:" + ruleFile.asText());
        }
        assertThat(prometheus.path("rule_files").size()).isPositive();
        List<String> command = new ArrayList<>();
        services.get("sluice").get("command").forEach(a -> command.add(a.asText()));
        String metrics = command.get(command.indexOf("--metrics") + 1);
        assertThat(metrics).as("sluice serves metrics on every interface of its container").startsWith("0.0.0.0:");
        String port = metrics.substring(metrics.indexOf(':') + 1);
        assertThat(prometheus.at("/scrape_configs/0/static_configs/0/targets/0").asText()).isEqualTo("sluice:" + port);
        assertThat(prometheus.at("/scrape_configs/0/job_name").asText()).as("the job the SluiceDown alert names").isEqualTo("sluice");

        Path provisioning = mounted.get("grafana:/etc/grafana/provisioning");
        JsonNode datasource = YAML.readTree(provisioning.resolve("datasources/prometheus.yaml").toFile()).at("/datasources/0");
        assertThat(datasource.path("type").asText()).isEqualTo("prometheus");
        assertThat(datasource.path("url").asText()).isEqualTo("http://prometheus:9090");
        JsonNode provider = YAML.readTree(provisioning.resolve("dashboards/sluice.yaml").toFile()).at("/providers/0");
        Path dashboards = mounted.get("grafana:" + provider.at("/options/path").asText());
        assertThat(dashboards).as("the provider's folder is mounted").isNotNull();
        JsonNode dashboard = JSON.readTree(dashboards.resolve("sluice.json").toFile());
        assertThat(dashboard.path("uid").asText()).isEqualTo("sluice");
    }

    @Test
    void dockerfilesCopyWhatExists() throws IOException {
        try (Stream<Path> files = Files.walk(DOCKER)) {
            List<Path> dockerfiles = files.filter(p -> p.getFileName().toString().equals("Dockerfile")).toList();
            assertThat(dockerfiles).hasSize(2);
            for (Path dockerfile : dockerfiles) {
                String text = Files.readString(dockerfile);
                Matcher copy = COPY.matcher(text);
                while (copy.find()) {
                    String[] parts = copy.group(1).trim().split("\\s+");
                    for (int i = 0; i < parts.length - 1; i++) {
                        // Sources are relative to the build context, the repository's root.
                        assertThat(ROOT.resolve(parts[i]).normalize()).as(dockerfile + ": COPY " + parts[i]).exists();
                    }
                }
                assertThat(ROOT.resolve(".dockerignore")).as("the build context leaves local build output out").isRegularFile();
                Matcher modules = Pattern.compile("-pl (\\S+)").matcher(text);
                while (modules.find()) {
                    assertThat(ROOT.resolve(modules.group(1)).resolve("pom.xml")).as(dockerfile + ": module " + modules.group(1)).isRegularFile();
                }
            }
        }
    }

    @Test
    void connectorConfigurationsUseKeysSluiceAndConnectDefine() throws IOException {
        Path dir = DOCKER.resolve("compose/kafka-connect/connectors");
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> configs = files.filter(p -> p.toString().endsWith(".json")).toList();
            assertThat(configs).hasSize(2);
            for (Path file : configs) {
                JsonNode config = JSON.readTree(file.toFile());
                String connector = config.get("connector.class").asText();
                ConfigDef own;
                ConfigDef connect;
                if (connector.equals("io.sluice.connector.postgres.PostgresSourceConnector")) {
                    own = PostgresSourceConfig.CONFIG_DEF;
                    connect = SourceConnectorConfig.configDef();
                } else {
                    assertThat(connector).isEqualTo("io.sluice.sink.postgres.PostgresSinkConnector");
                    own = PostgresSinkConfig.CONFIG_DEF;
                    connect = SinkConnectorConfig.configDef();
                }
                for (String key : names(config)) {
                    assertThat(known(key, own, connect)).as(file.getFileName() + ": key " + key).isTrue();
                }
            }
        }
    }

    @Test
    void theWorkerSettingsAreConnectsOwn() throws IOException {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(DOCKER.resolve("connect/connect-distributed.properties"))) {
            props.load(in);
        }
        Map<String, String> settings = new HashMap<>();
        props.forEach((k, v) -> settings.put(k.toString(), v.toString()));
        DistributedConfig config = new DistributedConfig(settings);
        assertThat(config.values().keySet()).as("keys a distributed worker defines").containsAll(settings.keySet());
        assertThat(settings.get("plugin.path")).isEqualTo("/opt/connect-plugins");
        assertThat(Files.readString(DOCKER.resolve("connect/Dockerfile"))).contains("/opt/connect-plugins/");
    }

    private static boolean known(String key, ConfigDef own, ConfigDef connect) {
        if (own.names().contains(key) || connect.names().contains(key)) {
            return true;
        }
        if (key.startsWith("consumer.override.")) {
            return ConsumerConfig.configNames().contains(key.substring("consumer.override.".length()));
        }
        if (key.startsWith("producer.override.")) {
            return ProducerConfig.configNames().contains(key.substring("producer.override.".length()));
        }
        if (key.startsWith("topic.creation.default.")) {
            String rest = key.substring("topic.creation.default.".length());
            return Set.of("replication.factor", "partitions").contains(rest) || topicConfigs().contains(rest);
        }
        if (key.startsWith("transforms.")) {
            String rest = key.substring(key.indexOf('.', "transforms.".length()) + 1);
            return rest.equals("type") || new Anonymize<org.apache.kafka.connect.source.SourceRecord>().config().names().contains(rest);
        }
        return false;
    }

    private static Set<String> topicConfigs() {
        Set<String> names = new HashSet<>();
        for (java.lang.reflect.Field f : TopicConfig.class.getFields()) {
            if (f.getName().endsWith("_CONFIG")) {
                try {
                    names.add((String) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return names;
    }

    private static void checkBuild(Path compose, JsonNode build, String at) {
        assertThat(names(build)).as(at + ": build keys").isSubsetOf(BUILD);
        Path context = compose.getParent().resolve(build.get("context").asText()).normalize();
        assertThat(context.resolve("pom.xml")).as(at + ": build context is the repository's root").isRegularFile();
        assertThat(context.resolve(build.get("dockerfile").asText())).as(at + ": dockerfile").isRegularFile();
    }

    private static List<Path> composeFiles() throws IOException {
        try (Stream<Path> files = Files.walk(DOCKER.resolve("compose"))) {
            return files.filter(p -> p.getFileName().toString().equals("compose.yaml")).sorted().toList();
        }
    }

    private static Set<String> names(JsonNode node) {
        Set<String> names = new HashSet<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static Set<String> texts(JsonNode array) {
        Set<String> texts = new HashSet<>();
        array.forEach(v -> texts.add(v.asText()));
        return texts;
    }

    private static boolean allText(JsonNode array) {
        for (JsonNode v : array) {
            if (!v.isTextual()) {
                return false;
            }
        }
        return true;
    }

    private static Iterable<JsonNode> list(JsonNode service, String key) {
        JsonNode node = service.get(key);
        return node == null ? List.of() : node;
    }
}
