package io.sluice.runtime.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.runtime.targets.Target;
import io.sluice.runtime.targets.TargetKind;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.metrics.MetricsConfig;

/**
 * What a pipeline runs: the source connector's configuration, the sink's, the transforms, and
 * where offsets are kept. The keys are the connectors' own, so a pipeline moves to a Kafka
 * Connect cluster unchanged; {@code url} is a shortcut for the connection keys.
 *
 * <pre>
 * name: shop                      # topic prefix, and the name of the offsets file
 * source:
 *   url: postgres://user:password@host:5432/shop
 *   table.include.list: public.*
 * target:
 *   url: postgres://user:password@host:5432/shop_copy   # or https://user:password@host:9200 (OpenSearch)
 *   table.exists: truncate
 * transforms:                     # Kafka Connect transform keys, as on a connector
 *   transforms: route
 *   transforms.route.type: org.apache.kafka.connect.transforms.RegexRouter
 * offsets: .sluice/shop.offsets
 * </pre>
 */
public record PipelineSpec(String name, Map<String, String> source, Map<String, String> target, Map<String, String> transforms,
                           Path offsets, TargetKind targetKind) {

    /** Keys that take one value per table: in a pipeline file, a mapping of tables to values. */
    private static final java.util.Set<String> PER_TABLE = java.util.Set.of("table.filter", "table.columns", "subset");

    public static PipelineSpec fromYaml(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read pipeline file " + file + ": " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("Pipeline file " + file + " must be a YAML mapping with source: and target:");
        }
        for (var field : (Iterable<String>) root::fieldNames) {
            if (!java.util.Set.of("name", "source", "target", "transforms", "offsets").contains(field)) {
                throw new IllegalArgumentException("Pipeline file " + file + ": unknown key '" + field
                        + "'; expected name, source, target, transforms, offsets");
            }
        }
        Map<String, String> source = section(root, "source", file);
        Map<String, String> target = section(root, "target", file);
        Map<String, String> transforms = root.has("transforms") ? section(root, "transforms", file) : Map.of();
        String name = root.hasNonNull("name") ? root.get("name").asText() : null;
        Path offsets = root.hasNonNull("offsets") ? Path.of(root.get("offsets").asText()) : null;
        return of(name, source, target, transforms, offsets);
    }

    private static Map<String, String> section(JsonNode root, String key, Path file) {
        JsonNode node = root.get(key);
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("Pipeline file " + file + " needs a '" + key + ":' mapping");
        }
        Map<String, String> map = new LinkedHashMap<>();
        node.properties().forEach(e -> {
            if (PER_TABLE.contains(e.getKey()) && e.getValue().isObject()) {
                // table.filter: {public.orders: "amount > 100"} is table.filter.public.orders = amount > 100
                e.getValue().properties().forEach(t -> map.put(e.getKey() + "." + t.getKey(), t.getValue().asText()));
            } else {
                map.put(e.getKey(), e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString());
            }
        });
        return map;
    }

    /**
     * When the webhook sink's state database is the source database, its tables (the outbox, the
     * delivery log) are left out of the source's tables: else every delivery would be a change to
     * deliver, without end.
     */
    private static void excludeStateTables(Map<String, String> src, Map<String, String> tgt) {
        String stateUrl = tgt.get("state.url");
        PgEndpoint state = PgEndpoint.parse(stateUrl.startsWith("jdbc:") ? stateUrl.substring(5) : stateUrl);
        boolean sameDatabase = state.database().equals(src.get("database.dbname")) && state.port() == Integer.parseInt(
                src.getOrDefault("database.port", "5432")) && state.host().equalsIgnoreCase(src.getOrDefault("database.hostname", ""));
        if (sameDatabase) {
            String pattern = tgt.getOrDefault("state.schema", "sluice") + ".*";
            String excluded = src.getOrDefault("table.exclude.list", "");
            src.put("table.exclude.list", excluded.isBlank() ? pattern : excluded + "," + pattern);
        }
    }

    /** The source's connection keys as a URL, for a state database that is the source's. */
    private static String sourceUrl(Map<String, String> src) {
        java.util.function.Function<String, String> enc = v -> java.net.URLEncoder.encode(v == null ? "" : v,
                java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
        String host = src.getOrDefault("database.hostname", "localhost");
        return "postgres://" + enc.apply(src.get("database.user")) + ":" + enc.apply(src.get("database.password")) + "@"
                + (host.contains(":") ? "[" + host + "]" : host) + ":" + src.getOrDefault("database.port", "5432") + "/"
                + enc.apply(src.get("database.dbname")) + "?sslmode=" + src.getOrDefault("database.sslmode", "prefer");
    }

    /** The pipeline's target, as the command drives it. */
    /** The source's name, its topic prefix: sinks record its snapshot and positions under it (the pipeline's name unless set apart). */
    public String sourceName() {
        return source.get("topic.prefix");
    }

    public Target sink() {
        return Target.of(targetKind, target);
    }

    /**
     * Completes a pipeline: expands {@code url}, names it after the source database when no
     * name is given, and places offsets in {@code .sluice/<name>.offsets}. The target's kind
     * comes from {@code type} or the target URL's scheme.
     */
    public static PipelineSpec of(String name, Map<String, String> source, Map<String, String> target, Map<String, String> transforms,
                                  Path offsets) {
        Map<String, String> src = new LinkedHashMap<>(source);
        String url = src.remove("url");
        if (url != null) {
            PgEndpoint endpoint = PgEndpoint.parse(url);
            src.putIfAbsent("database.hostname", endpoint.host());
            src.putIfAbsent("database.port", Integer.toString(endpoint.port()));
            src.putIfAbsent("database.user", endpoint.user());
            src.putIfAbsent("database.password", endpoint.password());
            src.putIfAbsent("database.dbname", endpoint.database());
            src.putIfAbsent("database.sslmode", endpoint.sslMode());
        }
        if (!src.containsKey("database.dbname")) {
            throw new IllegalArgumentException("The source needs url: postgres://user:password@host:port/database (or database.* keys)");
        }
        String pipelineName = name != null ? name : src.getOrDefault("topic.prefix", src.get("database.dbname")).replaceAll("[^a-zA-Z0-9._-]", "_");
        src.putIfAbsent("topic.prefix", pipelineName);
        TargetKind kind = TargetKind.of(target);
        if (kind == TargetKind.OPENSEARCH) {
            // An index cannot change a field in place: a column change copies the table, which becomes a new index version.
            src.putIfAbsent("ddl.copy.on", "column_change");
        }
        // A partitioned table is one index, one webhook table (the source's default); the PostgreSQL target rebuilds the tree
        // partition by partition, each loaded in parallel and frozen, which rows carrying the root's name could not be.
        src.putIfAbsent("publish.via.partition.root", String.valueOf(kind != TargetKind.POSTGRES));
        if (kind == TargetKind.POSTGRES && PipelineTransforms.onlyAnonymize(transforms)) {
            // PostgreSQL to PostgreSQL: rows travel as raw COPY tuples, which Anonymize rewrites where they are; any other
            // transform reads rows as structs.
            src.putIfAbsent("snapshot.raw.tuples", "true");
        }

        // One process keeps the source's order across tables: barriers are for a cluster's partitions.
        src.put("barriers.topic.partitions", "0");

        Map<String, String> tgt = new LinkedHashMap<>(target);
        tgt.remove(TargetKind.TYPE);
        tgt.putIfAbsent(MetricsConfig.TARGET_NAME, pipelineName);
        String targetUrl = tgt.remove("url");
        if (kind == TargetKind.WEBHOOK) {
            // The outbox, subscriptions and delivery log go to the source database unless another is named.
            tgt.putIfAbsent("state.url", url != null ? url : sourceUrl(src));
            tgt.putIfAbsent("name", pipelineName);
            excludeStateTables(src, tgt);
            Path offsetsFile = offsets != null ? offsets : Path.of(".sluice", pipelineName + ".offsets");
            return new PipelineSpec(pipelineName, src, tgt, Map.copyOf(transforms), offsetsFile, kind);
        }
        if (targetUrl != null) {
            tgt.putIfAbsent("connection.url", targetUrl);
        }
        if (!tgt.containsKey("connection.url")) {
            throw new IllegalArgumentException("The target needs url: " + kind.urlExample());
        }
        if (kind == TargetKind.POSTGRES) {
            // One stream in source order, whose record offsets start over with every run: the target keeps source positions.
            tgt.put("position.mode", "source");
        }
        Path offsetsFile = offsets != null ? offsets : Path.of(".sluice", pipelineName + ".offsets");
        return new PipelineSpec(pipelineName, src, tgt, Map.copyOf(transforms), offsetsFile, kind);
    }
}
