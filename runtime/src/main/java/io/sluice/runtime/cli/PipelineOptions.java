package io.sluice.runtime.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sluice.runtime.pipeline.PipelineSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The options every pipeline command takes: where from, where to, what, and any connector key. */
public final class PipelineOptions {

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(names = "--source", paramLabel = "URL", description = "The source database: postgres://user:password@host:5432/database")
    String source;

    @Option(names = "--target", paramLabel = "URL", description = "The target: a database, postgres://user:password@host:5432/database, "
            + "an OpenSearch cluster (docs/opensearch.md), https://user:password@host:9200, or webhook: subscribers named with "
            + "--set target.subscriptions=... (docs/webhooks.md)")
    String target;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A pipeline file (source:, target:, transforms:) instead of --source and --target; see docs/configuration.md")
    Path config;

    @Option(names = "--tables", paramLabel = "PATTERNS", description = "Tables to copy, e.g. 'public.*,sales.orders' (default: all)")
    String tables;

    @Option(names = "--exclude", paramLabel = "PATTERNS", description = "Tables to leave out, e.g. '*.audit_*'")
    String exclude;

    @Option(names = "--filter", paramLabel = "TABLE=CONDITION",
            description = "Copy and stream only the rows of TABLE that meet CONDITION, a SQL condition over its columns, e.g. "
                    + "--filter 'public.orders=amount > 100' (the source key table.filter.TABLE; repeat for more tables; docs/filters.md)")
    Map<String, String> filters = new LinkedHashMap<>();

    @Option(names = "--columns", paramLabel = "TABLE=COLUMNS",
            description = "Copy and stream only these columns of TABLE (and its key's), e.g. --columns 'public.customers=id,region' "
                    + "(the source key table.columns.TABLE; repeat for more tables; docs/filters.md)")
    Map<String, String> columns = new LinkedHashMap<>();

    @Option(names = "--subset", paramLabel = "TABLE=CONDITION",
            description = "Copy a staging subset: the rows of TABLE that meet CONDITION and the rows foreign keys tie to them, so "
                    + "none dangles, e.g. --subset \"public.customers=region = 'eu'\"; sluice run into PostgreSQL then keeps the changes "
                    + "of rows that belong to it (the source key subset.TABLE; repeat for more roots; docs/filters.md)")
    Map<String, String> subsets = new LinkedHashMap<>();

    @Option(names = "--threads", paramLabel = "N",
            description = "Reader connections on the source and COPY streams on the target (default 4)")
    Integer threads;

    @Option(names = "--table-exists", paramLabel = "MODE", completionCandidates = TableExistsModes.class,
            description = "What to do when target tables (or indexes) exist: ${COMPLETION-CANDIDATES} (default fail)")
    String tableExists;

    @Option(names = "--name", paramLabel = "NAME",
            description = "Names the pipeline: topic prefix and offsets file (default: the source database)")
    String name;

    @Option(names = "--offsets", paramLabel = "FILE", description = "Where progress is kept (default .sluice/<name>.offsets)")
    Path offsets;

    @Option(names = "--set", paramLabel = "source.KEY=VALUE|target.KEY=VALUE", mapFallbackValue = "",
            description = "Any key of the source or sink connector (docs/configuration.md); repeat for more")
    Map<String, String> settings = new LinkedHashMap<>();

    /** The values {@code --table-exists} takes, for help and completion. */
    static final class TableExistsModes implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.List.of("fail", "truncate", "append").iterator();
        }
    }

    /**
     * Checks, without reading any file, that the options say where from and where to, and that
     * every {@code --set} names its side.
     *
     * @throws ParameterException naming what to change
     */
    void check() {
        if (config == null && (source == null || target == null)) {
            throw new ParameterException(command.commandLine(), "sluice " + command.name() + " needs --source and --target, or --config");
        }
        settings.forEach((key, value) -> {
            if (!(key.startsWith("source.") && key.length() > "source.".length())
                    && !(key.startsWith("target.") && key.length() > "target.".length())) {
                throw new ParameterException(command.commandLine(), "--set takes source.KEY=VALUE or target.KEY=VALUE, got " + key
                        + (value.isEmpty() ? "" : "=" + value));
            }
        });
    }

    /**
     * The pipeline the options describe: the pipeline file's, with the options over it.
     *
     * @throws ParameterException when the options do not say where from and where to, or a {@code --set} names no side
     */
    public PipelineSpec spec() {
        check();
        Map<String, String> sourceSettings = new LinkedHashMap<>();
        Map<String, String> targetSettings = new LinkedHashMap<>();
        if (tables != null) {
            sourceSettings.put("table.include.list", tables);
        }
        if (exclude != null) {
            sourceSettings.put("table.exclude.list", exclude);
        }
        filters.forEach((table, condition) -> sourceSettings.put("table.filter." + table, condition));
        columns.forEach((table, list) -> sourceSettings.put("table.columns." + table, list));
        subsets.forEach((table, condition) -> sourceSettings.put("subset." + table, condition));
        if (threads != null) {
            sourceSettings.put("snapshot.max.threads", threads.toString());
            targetSettings.put("copy.parallelism", threads.toString());
        }
        if (tableExists != null) {
            targetSettings.put("table.exists", tableExists);
        }
        settings.forEach((key, value) -> {
            if (key.startsWith("source.") && key.length() > "source.".length()) {
                sourceSettings.put(key.substring("source.".length()), value);
            } else {
                targetSettings.put(key.substring("target.".length()), value); // check() saw to it that it names a side
            }
        });
        PipelineSpec base = config != null ? PipelineSpec.fromYaml(config) : null;
        Map<String, String> sourceKeys = new LinkedHashMap<>(base != null ? base.source() : Map.of());
        Map<String, String> targetKeys = new LinkedHashMap<>(base != null ? base.target() : Map.of());
        if (source != null) {
            sourceKeys.put("url", source);
        }
        if (target != null) {
            targetKeys.put("url", target);
        }
        sourceKeys.putAll(sourceSettings);
        targetKeys.putAll(targetSettings);
        String pipelineName = name != null ? name : base != null ? base.name() : null;
        return PipelineSpec.of(pipelineName, sourceKeys, targetKeys, base != null ? base.transforms() : Map.of(),
                offsets != null ? offsets : base != null ? base.offsets() : null);
    }
}
