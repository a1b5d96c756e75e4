package io.sluice.runtime.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;

import io.sluice.schemas.SluiceVersion;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code sluice} command line: one class per subcommand, help and version generated from
 * their annotations (so the help cannot drift from what the commands take), and a completion
 * script for bash and zsh. Exit codes: 0 done, 1 the run failed, 2 the command line or the
 * pipeline's configuration is wrong.
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, scope = CommandLine.ScopeType.INHERIT, versionProvider = SluiceCommand.Version.class, usageHelpAutoWidth = true,
        synopsisSubcommandLabel = "COMMAND",
        description = {"Copies a PostgreSQL database to another and keeps it in step: a consistent, parallel snapshot, then "
                + "every change from logical decoding.",
                "Every command takes --source and --target (or --config pipeline.yaml); `sluice COMMAND --help` lists its options."},
        commandListHeading = "%nCommands:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:the run failed; the message says why, and the same command goes on from where it stopped",
                "2:the command line or the pipeline's configuration is wrong; the message says what to change"},
        footer = {"", "Documentation: docs/configuration.md (every key), docs/connect.md (on a Kafka Connect cluster)."})
public final class SluiceCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "No command given");
    }

    /** The version the build stamped. */
    public static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"sluice " + SluiceVersion.get()};
        }
    }

    /** {@code sluice version}, as {@code sluice --version}. */
    @Command(name = "version", description = "Prints the version.")
    static final class VersionCommand implements Callable<Integer> {
        private final Streams streams;

        VersionCommand(Streams streams) {
            this.streams = streams;
        }

        @Override
        public Integer call() {
            streams.out().println(new Version().getVersion()[0]);
            return 0;
        }
    }

    /**
     * The subcommands, in the order help lists them. Each is made when it is added: picocli builds
     * a command's model by reflection over its annotations, which for all of them took about a
     * quarter of a second of every command's start (the webhook commands 0.16 s of it, with their
     * JSON mapper; docs/benchmarks-history.md, "a quicker start").
     */
    private static final List<Map.Entry<String, Function<Streams, Object>>> SUBCOMMANDS = List.of(
            Map.entry("run", RunCommand::new),
            Map.entry("snapshot", SnapshotCommand::new),
            Map.entry("init", InitCommand::new),
            Map.entry("status", StatusCommand::new),
            Map.entry("resync", ResyncCommand::new),
            Map.entry("verify", VerifyCommand::new),
            Map.entry("teardown", TeardownCommand::new),
            Map.entry("webhooks", WebhooksCommand::commandLine),
            Map.entry("version", VersionCommand::new),
            Map.entry("help", streams -> new CommandLine.HelpCommand()),
            Map.entry("generate-completion", streams -> new AutoComplete.GenerateCompletion()));

    /** Commands that need all the others: they list them. */
    private static final Set<String> LISTING = Set.of("help", "generate-completion");

    /** The command line, writing to the streams given; a running pipeline stops when {@code streams.stop()} completes. */
    public static CommandLine commandLine(Streams streams) {
        return commandLine(streams, List.of());
    }

    /**
     * The command line for these arguments: when they start with a command that does not list
     * the others, only that command is made, so that {@code sluice snapshot} does not wait for
     * the models of commands it will not run. Anything else (no command, an option, a mistyped
     * command, help) gets them all, for the listing and the suggestions.
     */
    static CommandLine commandLine(Streams streams, List<String> args) {
        String first = args.isEmpty() ? "" : args.get(0);
        boolean alone = !LISTING.contains(first) && SUBCOMMANDS.stream().anyMatch(c -> c.getKey().equals(first));
        CommandLine cli = new CommandLine(new SluiceCommand());
        for (Map.Entry<String, Function<Streams, Object>> subcommand : SUBCOMMANDS) {
            if (!alone || subcommand.getKey().equals(first)) {
                cli.addSubcommand(subcommand.getKey(), subcommand.getValue().apply(streams));
            }
        }
        CommandLine completion = cli.getSubcommands().get("generate-completion");
        if (completion != null) {
            completion.getCommandSpec().usageMessage()
                    .description("Prints a completion script for bash and zsh: source <(sluice generate-completion)");
        }
        cli.setOut(new PrintWriter(streams.out(), true));
        cli.setErr(new PrintWriter(streams.err(), true));
        // A mistake gets its message, picocli's guess at what was meant, and the usage of the command it was made in.
        cli.setParameterExceptionHandler((e, given) -> {
            CommandLine command = e.getCommandLine();
            command.getErr().println("sluice: " + e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, command.getErr());
            command.getErr().println();
            command.usage(command.getErr());
            return 2;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            commandLine.getErr().println("sluice: " + e);
            return 1;
        });
        return cli;
    }

    /**
     * Parses a command line and checks its pipeline options without running anything or reading
     * any file (for checks of command lines written elsewhere, such as docker-compose files).
     *
     * @throws ParameterException saying what is wrong
     */
    public static void check(String... args) {
        Streams quiet = new Streams(System.out, System.err, new java.util.concurrent.CompletableFuture<>());
        CommandLine.ParseResult parsed = commandLine(quiet).parseArgs(args);
        while (parsed.hasSubcommand()) {
            parsed = parsed.subcommand();
        }
        if (parsed.commandSpec().userObject() instanceof PipelineCommand command) {
            command.options.check();
        }
    }

    /** Runs a command line and returns its exit code. */
    public static int execute(Streams streams, String... args) {
        return commandLine(streams, List.of(args)).execute(args);
    }
}
