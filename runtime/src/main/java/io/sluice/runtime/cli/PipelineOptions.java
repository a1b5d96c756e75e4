package io.sluice.runtime.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sluice.runtime.pipeline.NamedTarget;
import io.sluice.runtime.pipeline.PipelineFile;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.targets.TargetKind;
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

    @Option(names = "--target", paramLabel = "[NAME=]URL", description = "The target: a database, postgres://user:password@host:5432/database, "
            + "an OpenSearch cluster (docs/opensearch.md), https://user:password@host:9200, or webhook: subscribers named with "
            + "--set target.subscriptions=... (docs/webhooks.md). sluice run takes it repeated, each target named (NAME=URL, "
            + "default: its kind) and fed from one slot (docs/fan-out.md); with --config, a target's name alone picks that target of the file")
    List<String> targets = new ArrayList<>();

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
        if (config == null && (source == null || targets.isEmpty())) {
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
     * The pipeline the options describe, for a command that takes one target.
     *
     * @throws ParameterException when the options do not say where from and where to, or a {@code --set} names no side
     * @throws IllegalArgumentException when they name several targets
     */
    public PipelineSpec spec() {
        List<NamedTarget> all = targets();
        if (all.size() > 1) {
            throw new IllegalArgumentException("sluice " + command.name() + " takes one target, and " + all.size() + " are given ("
                    + String.join(", ", all.stream().map(NamedTarget::name).toList()) + "): several targets are for sluice run; name "
                    + "one with --target");
        }
        return all.get(0).spec();
    }

    /**
     * The pipeline the options describe, per target: the pipeline file's, with the options over
     * it. {@code --target} given replaces the file's targets (a name alone picks that target of the
     * file); {@code --set target.KEY=VALUE} sets
     * a key of every target, {@code --set target.NAME.KEY=VALUE} one of the target NAME.
     *
     * @throws ParameterException when the options do not say where from and where to, or a {@code --set} names no side
     */
    public List<NamedTarget> targets() {
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
        PipelineFile base = config != null ? PipelineFile.read(config) : null;
        Map<String, String> sourceKeys = new LinkedHashMap<>(base != null ? base.source() : Map.of());
        if (source != null) {
            sourceKeys.put("url", source);
        }
        sourceKeys.putAll(sourceSettings);
        Map<String, Map<String, String>> targetKeys = new LinkedHashMap<>();
        Map<String, Map<String, String>> transforms = new LinkedHashMap<>();
        // Targets of the pipeline file picked by their names alone: the pipeline is the file's, all of its targets asking the
        // source for what they need (as they do when it runs), and the command gets the ones picked.
        List<String> picked = base == null || targets.isEmpty() || !base.targets().keySet().containsAll(targets) ? List.of() : targets;
        if (!targets.isEmpty() && picked.isEmpty()) {
            for (String given : targets) {
                Matcher named = NAMED.matcher(given);
                String url = named.matches() ? named.group(2) : given;
                String targetName = named.matches() ? named.group(1) : defaultName(url, targetKeys.keySet());
                Map<String, String> keys = new LinkedHashMap<>();
                if (base != null && base.targets().size() == 1 && targets.size() == 1) {
                    // One target over a file's one: the file's keys for it, with the URL given.
                    keys.putAll(base.targets().values().iterator().next());
                    targetName = named.matches() ? targetName : base.targets().keySet().iterator().next();
                } else if (base != null && base.targets().containsKey(targetName)) {
                    keys.putAll(base.targets().get(targetName));
                }
                keys.put("url", url);
                if (targetKeys.put(targetName, keys) != null) {
                    throw new ParameterException(command.commandLine(), "Two targets are named " + targetName + ": name each, --target NAME=URL");
                }
                transforms.put(targetName, base != null ? base.transformsOf(base.targets().containsKey(targetName) ? targetName
                        : PipelineFile.SINGLE) : Map.of());
            }
        } else {
            base.targets().forEach((target, keys) -> {
                targetKeys.put(target, new LinkedHashMap<>(keys));
                transforms.put(target, base.transformsOf(target));
            });
        }
        targetSettings.forEach((key, value) -> {
            int dot = key.indexOf('.');
            String scope = dot > 0 ? key.substring(0, dot) : null;
            if (scope != null && targetKeys.size() > 1 && targetKeys.containsKey(scope)) {
                targetKeys.get(scope).put(key.substring(dot + 1), value);
            } else {
                targetKeys.values().forEach(keys -> keys.put(key, value));
            }
        });
        String pipelineName = name != null ? name : base != null ? base.name() : null;
        List<NamedTarget> all = PipelineSpec.fanOut(pipelineName, sourceKeys, targetKeys, transforms,
                offsets != null ? offsets : base != null ? base.offsets() : null);
        return picked.isEmpty() ? all : all.stream().filter(t -> picked.contains(t.name())).toList();
    }

    /** NAME=URL, where a URL's scheme cannot hold '='. */
    private static final Pattern NAMED = Pattern.compile("([A-Za-z0-9_-]+)=(.+)");

    /** A target's name when none is given: its kind, numbered from the second of a kind on. */
    private static String defaultName(String url, java.util.Set<String> taken) {
        String kind = TargetKind.of(Map.of("url", url)).name().toLowerCase(java.util.Locale.ROOT);
        String name = kind;
        for (int n = 2; taken.contains(name); n++) {
            name = kind + n;
        }
        return name;
    }
}
