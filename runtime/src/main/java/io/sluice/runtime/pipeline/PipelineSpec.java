package io.sluice.runtime.pipeline;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

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

    /** A pipeline file with one target ({@code target:}, or {@code targets:} naming one). */
    public static PipelineSpec fromYaml(Path file) {
        PipelineFile read = PipelineFile.read(file);
        if (read.targets().size() != 1) {
            throw new IllegalArgumentException("Pipeline file " + file + " names " + read.targets().size() + " targets ("
                    + String.join(", ", read.targets().keySet()) + "): this command takes one; several are for sluice run");
        }
        var only = read.targets().entrySet().iterator().next();
        return of(read.name(), read.source(), only.getValue(), read.transformsOf(only.getKey()), read.offsets());
    }

    /**
     * A pipeline with several targets: each completed as {@link #of} completes one, then one
     * source for all. What each target asks of the source is reconciled: the root's name for a
     * partitioned table unless every target is PostgreSQL, a copy on a column change when any
     * target is OpenSearch, raw COPY tuples only when every target is PostgreSQL without transforms
     * (Anonymize rewrites them where they are, which would reach the other targets), and the
     * webhook state tables of every target left out.
     *
     * @param targets    per target name, its keys
     * @param transforms per target name, its transforms
     * @throws IllegalArgumentException when two targets ask the source for different things no rule settles, or two are one
     */
    public static java.util.List<NamedTarget> fanOut(String name, Map<String, String> source, Map<String, Map<String, String>> targets,
                                                     Map<String, Map<String, String>> transforms, Path offsets) {
        Map<String, PipelineSpec> each = new LinkedHashMap<>();
        targets.forEach((target, keys) -> {
            if (!target.matches("[A-Za-z0-9_-]+")) {
                throw new IllegalArgumentException("Target name '" + target + "' may use letters, digits, _ and - only");
            }
            each.put(target, of(name, source, keys, transforms.getOrDefault(target, Map.of()), offsets));
        });
        if (each.size() == 1) {
            var only = each.entrySet().iterator().next();
            return java.util.List.of(new NamedTarget(only.getKey(), only.getValue()));
        }
        Map<String, String> where = new LinkedHashMap<>();
        each.forEach((target, spec) -> {
            String at = spec.sink().display();
            String other = where.putIfAbsent(at, target);
            if (other != null) {
                throw new IllegalArgumentException("Targets " + other + " and " + target + " are both " + at + ": give each target a place "
                        + "of its own");
            }
        });
        Map<String, String> shared = new LinkedHashMap<>(each.values().iterator().next().source());
        boolean allPostgres = each.values().stream().allMatch(s -> s.targetKind() == TargetKind.POSTGRES);
        boolean anyTransforms = each.values().stream().anyMatch(s -> !s.transforms().isEmpty());
        for (var entry : each.entrySet()) {
            Map<String, String> src = entry.getValue().source();
            java.util.Set<String> keys = new java.util.LinkedHashSet<>(shared.keySet());
            keys.addAll(src.keySet());
            for (String key : keys) {
                String mine = src.get(key);
                String theirs = shared.get(key);
                if (java.util.Objects.equals(mine, theirs)) {
                    continue;
                }
                switch (key) {
                    case "publish.via.partition.root" -> shared.put(key, String.valueOf(!allPostgres || Boolean.parseBoolean(mine)
                            || Boolean.parseBoolean(theirs)));
                    case "ddl.copy.on" -> shared.put(key, "column_change".equals(mine) || "column_change".equals(theirs) ? "column_change"
                            : mine != null ? mine : theirs);
                    case "snapshot.raw.tuples" -> shared.put(key, "false");
                    case "table.exclude.list" -> {
                        java.util.Set<String> all = new java.util.LinkedHashSet<>();
                        for (String list : new String[] {theirs, mine}) {
                            if (list != null && !list.isBlank()) {
                                all.addAll(java.util.List.of(list.strip().split("\\s*,\\s*")));
                            }
                        }
                        shared.put(key, String.join(",", all));
                    }
                    default -> throw new IllegalArgumentException("Targets ask the source for different " + key + " (" + theirs + " and "
                            + mine + ", target " + entry.getKey() + "): set source." + key + " for the pipeline");
                }
            }
        }
        if (anyTransforms || !allPostgres) {
            shared.put("snapshot.raw.tuples", "false");
        }
        java.util.List<NamedTarget> out = new java.util.ArrayList<>();
        each.forEach((target, spec) -> {
            Map<String, String> tgt = new LinkedHashMap<>(spec.target());
            if (!targets.get(target).containsKey(MetricsConfig.TARGET_NAME)) {
                tgt.put(MetricsConfig.TARGET_NAME, spec.name() + "." + target);
            }
            out.add(new NamedTarget(target, new PipelineSpec(spec.name(), Map.copyOf(shared), Map.copyOf(tgt), spec.transforms(),
                    spec.offsets(), spec.targetKind())));
        });
        return java.util.List.copyOf(out);
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
            // One stream in source order, whose record offsets start over with every run: the outbox keeps source positions.
            tgt.put("position.mode", "source");
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

    /** This pipeline with no transforms of its own: with several targets each applies its own. */
    public PipelineSpec withoutTransforms() {
        return new PipelineSpec(name, source, target, Map.of(), offsets, targetKind);
    }
}
