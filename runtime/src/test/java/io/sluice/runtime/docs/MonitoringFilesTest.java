package io.sluice.runtime.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.sluice.metrics.SluiceMetrics;
import io.sluice.runtime.metrics.AllMeters;
import org.junit.jupiter.api.Test;

/**
 * The alerting rules and the Grafana dashboard users are given (docker/monitoring, shown in
 * docs/operations.md), loaded as Prometheus and Grafana load them: the rules file's structure
 * (every rule named, with an expression, a duration, a severity and what to do), the dashboard's
 * (panels with ids, places and queries on the templated data source), and in every expression each
 * series named, each label matched and each label grouped by, against the families Sluice makes, the
 * JVM's, and the two the exporter and Prometheus add. A renamed metric or label fails here.
 */
class MonitoringFilesTest {

    private static final Path MONITORING = Path.of("..", "docker", "monitoring");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper JSON = new ObjectMapper();
    /** PromQL's functions, aggregations and keywords: not series. */
    private static final Set<String> PROMQL = Set.of("sum", "max", "min", "avg", "count", "topk", "bottomk", "rate", "irate", "increase",
            "deriv", "delta", "histogram_quantile", "absent", "absent_over_time", "and", "or", "unless", "by", "without", "on",
            "ignoring", "group_left", "group_right", "offset", "bool", "time", "vector", "scalar", "clamp_min", "clamp_max");
    private static final Set<String> ALWAYS = Set.of("instance", "job");

    @Test
    void theAlertingRulesLoad() throws Exception {
        JsonNode rules = YAML.readTree(MONITORING.resolve("sluice-alerts.yaml").toFile());
        Map<String, Set<String>> series = knownSeries();
        Set<String> names = new HashSet<>();
        List<String> wrong = new ArrayList<>();
        assertThat(rules.path("groups").size()).isPositive();
        for (JsonNode group : rules.path("groups")) {
            assertThat(group.path("name").asText()).isNotBlank();
            for (JsonNode rule : group.path("rules")) {
                String name = rule.path("alert").asText();
                assertThat(name).matches("Sluice[A-Z][A-Za-z]+");
                assertThat(names.add(name)).as("alert %s named once", name).isTrue();
                assertThat(rule.has("for") ? rule.get("for").asText() : "0m").as(name).matches("\\d+[smh]");
                assertThat(rule.path("labels").path("severity").asText()).as(name).isIn("warning", "critical");
                assertThat(rule.path("annotations").path("summary").asText()).as(name).isNotBlank();
                assertThat(rule.path("annotations").path("description").asText()).as(name).isNotBlank();
                wrong.addAll(check(name, rule.path("expr").asText(), series));
            }
        }
        assertThat(names).contains("SluiceEndToEndLagHigh", "SluiceSlotAtRisk", "SluiceDeadLettersGrowing",
                "SluiceWebhookSubscriptionDisabled", "SluiceDown", "SluiceConnectTaskFailed");
        assertThat(wrong).isEmpty();
    }

    @Test
    void theDashboardLoads() throws Exception {
        JsonNode dashboard = JSON.readTree(MONITORING.resolve("grafana/dashboards/sluice.json").toFile());
        assertThat(dashboard.path("uid").asText()).isEqualTo("sluice");
        assertThat(dashboard.path("title").asText()).isNotBlank();
        assertThat(dashboard.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
        assertThat(dashboard.at("/templating/list/0/type").asText()).isEqualTo("datasource");
        Map<String, Set<String>> series = knownSeries();
        Set<Integer> ids = new HashSet<>();
        List<String> wrong = new ArrayList<>();
        int queries = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            String title = panel.path("title").asText();
            assertThat(ids.add(panel.path("id").asInt())).as("panel id of %s used once", title).isTrue();
            assertThat(panel.path("type").asText()).as(title).isIn("row", "stat", "timeseries", "table");
            for (String key : List.of("x", "y", "w", "h")) {
                assertThat(panel.path("gridPos").has(key)).as("%s: gridPos.%s", title, key).isTrue();
            }
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            assertThat(panel.at("/datasource/uid").asText()).as(title).isEqualTo("${datasource}");
            assertThat(panel.path("targets").size()).as(title).isPositive();
            for (JsonNode target : panel.path("targets")) {
                assertThat(target.path("refId").asText()).as(title).isNotBlank();
                wrong.addAll(check(title, target.path("expr").asText(), series));
                queries++;
            }
        }
        assertThat(queries).isGreaterThan(20);
        assertThat(wrong).isEmpty();
    }

    @Test
    void theOperationsPageShowsTheRulesAsTheyAre() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "operations.md"), StandardCharsets.UTF_8);
        String rules = Files.readString(MONITORING.resolve("sluice-alerts.yaml"), StandardCharsets.UTF_8).strip();
        assertThat(page).contains("```yaml\n" + rules + "\n```").contains("docker/monitoring/grafana/dashboards/sluice.json");
        String exporter = Files.readString(Path.of("..", "docker", "connect", "sluice-jmx-exporter.yaml"), StandardCharsets.UTF_8);
        assertThat(exporter).as("the exporter makes the series the Connect alert reads").contains("name: kafka_connect_connector_failed_task_count");
    }

    /** Each series an expression names, each label it matches and groups by, against the known ones; what is wrong. */
    static List<String> check(String where, String expr, Map<String, Set<String>> series) {
        List<String> wrong = new ArrayList<>();
        assertThat(balanced(expr)).as("%s: brackets of %s", where, expr).isTrue();
        String text = expr.replaceAll("\"[^\"]*\"", "\"\"");
        // Label matchers belong to the series before them.
        Matcher selector = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{([^}]*)}").matcher(text);
        while (selector.find()) {
            Set<String> labels = series.get(selector.group(1));
            if (labels == null) {
                continue; // reported below
            }
            for (String matcher : selector.group(2).split(",")) {
                String label = matcher.replaceAll("[=!~].*", "").trim();
                if (!label.isEmpty() && !labels.contains(label) && !ALWAYS.contains(label)) {
                    wrong.add(where + ": " + selector.group(1) + " has no label " + label);
                }
            }
        }
        Matcher grouping = Pattern.compile("\\b(?:by|without|on|ignoring)\\s*\\(([^)]*)\\)").matcher(text);
        Set<String> allLabels = new HashSet<>(ALWAYS);
        series.values().forEach(allLabels::addAll);
        while (grouping.find()) {
            for (String label : grouping.group(1).split(",")) {
                if (!label.isBlank() && !allLabels.contains(label.trim())) {
                    wrong.add(where + ": no series has the label " + label.trim());
                }
            }
        }
        String bare = text.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(?:by|without|on|ignoring)\\s*\\([^)]*\\)", " ");
        Matcher word = Pattern.compile("\\b[a-zA-Z_:][a-zA-Z0-9_:]*\\b").matcher(bare);
        while (word.find()) {
            String name = word.group();
            if (!PROMQL.contains(name) && !series.containsKey(name)) {
                wrong.add(where + ": no series " + name + " in " + expr);
            }
        }
        return wrong;
    }

    private static boolean balanced(String expr) {
        java.util.ArrayDeque<Character> open = new java.util.ArrayDeque<>();
        boolean quoted = false;
        for (char c : expr.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && "([{".indexOf(c) >= 0) {
                open.push(c);
            } else if (!quoted && ")]}".indexOf(c) >= 0) {
                if (open.isEmpty() || "([{".indexOf(open.pop()) != ")]}".indexOf(c)) {
                    return false;
                }
            }
        }
        return open.isEmpty() && !quoted;
    }

    /** Every series name a scrape can hold, with its labels: Sluice's (as scraped), the JVM's, and those of the exporter and Prometheus. */
    static Map<String, Set<String>> knownSeries() {
        AllMeters.load();
        Map<String, Set<String>> series = new HashMap<>();
        for (SluiceMetrics.Described d : SluiceMetrics.described()) {
            Set<String> labels = new HashSet<>(d.labels());
            series.put(d.name(), labels);
            if (d.type().equals("histogram")) {
                Set<String> buckets = new HashSet<>(labels);
                buckets.add("le");
                series.put(d.name() + "_bucket", buckets);
                series.put(d.name() + "_count", labels);
                series.put(d.name() + "_sum", labels);
                series.put(d.name(), buckets); // on Connect, the JMX exporter keeps buckets under the histogram's name
            }
        }
        PrometheusRegistry jvm = new PrometheusRegistry();
        JvmMetrics.builder().register(jvm);
        for (MetricSnapshot s : jvm.scrape()) {
            Set<String> labels = new HashSet<>();
            s.getDataPoints().forEach(p -> p.getLabels().forEach(l -> labels.add(l.getName())));
            String name = s.getMetadata().getPrometheusName();
            series.put(s instanceof CounterSnapshot ? name + "_total" : name, labels);
            if (s instanceof SummarySnapshot || s instanceof HistogramSnapshot) {
                series.put(name + "_sum", labels);
                series.put(name + "_count", labels);
            }
        }
        series.put("up", Set.of());
        series.put("kafka_connect_connector_failed_task_count", Set.of("connector"));
        return series;
    }
}
