package io.sluice.runtime.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The command line: a command and its options, with one message for the first thing wrong. */
public record Arguments(String command, String source, String target, Path config, String name, Path offsets, boolean fresh,
                        Map<String, String> sourceSettings, Map<String, String> targetSettings) {

    public static final String USAGE = """
            Usage:
              sluice run --source URL --target URL [options]
              sluice snapshot --source URL --target URL [options]
              sluice init|status|teardown --source URL --target URL [options]
              sluice version
              (any command takes --config pipeline.yaml instead of --source and --target)

            run       keeps a PostgreSQL database in step with another: a consistent snapshot (when
                      the pipeline has none yet), then every change, streamed from a replication
                      slot, until stopped (Ctrl-C or SIGTERM; the same command goes on later).
                      The source needs wal_level=logical and a user with the REPLICATION attribute.
            snapshot  copies once: a consistent snapshot read in parallel, loaded with binary COPY,
                      then indexes and constraints built in parallel.
            init      checks the source can stream and creates the publication (run does it too).
            status    the slot's lag, the target's applied position and the apply rate.
            teardown  drops the pipeline's slot and publication and forgets its progress; the
                      target's tables stay.

              --source URL          postgres://user:password@host:5432/database
              --target URL          postgres://user:password@host:5432/database
              --config FILE         a pipeline file (source:, target:, transforms:); see docs/configuration.md
              --tables PATTERNS     tables to copy, e.g. 'public.*,sales.orders' (default: all)
              --exclude PATTERNS    tables to leave out, e.g. '*.audit_*'
              --threads N           reader connections on the source and COPY streams on the target (default 4)
              --table-exists MODE   fail (default), truncate or append, when target tables exist
              --name NAME           names the pipeline: topic prefix and offsets file (default: source database)
              --offsets FILE        where progress is kept (default .sluice/<name>.offsets)
              --fresh               forget an earlier run of this pipeline (its offsets and slot) and copy again
              --set source.KEY=VALUE, --set target.KEY=VALUE
                                    any key of the source or sink connector (docs/configuration.md)
            """;

    /** Thrown for a command line that cannot be run; the message says why. */
    public static final class UsageException extends Exception {
        public UsageException(String message) {
            super(message);
        }
    }

    public static Arguments parse(String[] args) throws UsageException {
        if (args.length == 0) {
            throw new UsageException("No command given");
        }
        String command = args[0];
        if (List.of("--help", "-h", "help").contains(command)) {
            throw new UsageException(null);
        }
        String source = null;
        String target = null;
        Path config = null;
        String name = null;
        Path offsets = null;
        boolean fresh = false;
        Map<String, String> sourceSettings = new LinkedHashMap<>();
        Map<String, String> targetSettings = new LinkedHashMap<>();
        List<String> rest = new ArrayList<>(List.of(args).subList(1, args.length));
        for (int i = 0; i < rest.size(); i++) {
            String option = rest.get(i);
            String value = null;
            int eq = option.indexOf('=');
            if (option.startsWith("--") && eq > 0) {
                value = option.substring(eq + 1);
                option = option.substring(0, eq);
            }
            if (option.equals("--fresh")) {
                fresh = true;
                continue;
            }
            if (option.equals("--help") || option.equals("-h")) {
                throw new UsageException(null);
            }
            if (value == null) {
                if (i + 1 >= rest.size()) {
                    throw new UsageException(option + " needs a value");
                }
                value = rest.get(++i);
            }
            switch (option) {
                case "--source" -> source = value;
                case "--target" -> target = value;
                case "--config" -> config = Path.of(value);
                case "--name" -> name = value;
                case "--offsets" -> offsets = Path.of(value);
                case "--tables" -> sourceSettings.put("table.include.list", value);
                case "--exclude" -> sourceSettings.put("table.exclude.list", value);
                case "--threads" -> {
                    sourceSettings.put("snapshot.max.threads", value);
                    targetSettings.put("copy.parallelism", value);
                }
                case "--table-exists" -> targetSettings.put("table.exists", value);
                case "--set" -> {
                    int split = value.indexOf('=');
                    if (split < 0 || !(value.startsWith("source.") || value.startsWith("target."))) {
                        throw new UsageException("--set takes source.KEY=VALUE or target.KEY=VALUE, got " + value);
                    }
                    String key = value.substring(value.indexOf('.') + 1, split);
                    (value.startsWith("source.") ? sourceSettings : targetSettings).put(key, value.substring(split + 1));
                }
                default -> throw new UsageException("Unknown option " + option);
            }
        }
        if (List.of("snapshot", "run", "init", "status", "teardown").contains(command)) {
            if (config == null && (source == null || target == null)) {
                throw new UsageException("sluice " + command + " needs --source and --target, or --config");
            }
        } else if (!command.equals("version")) {
            throw new UsageException("Unknown command " + command);
        }
        return new Arguments(command, source, target, config, name, offsets, fresh, sourceSettings, targetSettings);
    }
}
