package io.sluice.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.sluice.runtime.pipeline.NamedTarget;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.schemas.SluiceVersion;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The command line as a user meets it: options map to the connectors' keys, mistakes end with
 * exit code 2 and a message that names what to change, and help, version and the completion
 * script come from the commands themselves.
 */
class SluiceCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Streams streams = new Streams(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), new CompletableFuture<>());

    @Test
    void optionsMapToConnectorKeys() {
        PipelineSpec spec = spec("snapshot", "--source", "postgres://u@h/s", "--target=postgres://u@h/t", "--tables", "public.*",
                "--exclude", "*.audit_*", "--threads", "6", "--table-exists", "append", "--set", "target.batch.max.bytes=1048576",
                "--set", "source.slot.name=mine", "--name", "shop", "--fresh");
        assertThat(spec.source()).containsEntry("database.hostname", "h").containsEntry("database.dbname", "s")
                .containsEntry("table.include.list", "public.*")
                .containsEntry("table.exclude.list", "*.audit_*").containsEntry("snapshot.max.threads", "6")
                .containsEntry("slot.name", "mine");
        assertThat(spec.target()).containsEntry("copy.parallelism", "6")
                .containsEntry("table.exists", "append").containsEntry("batch.max.bytes", "1048576");
        assertThat(spec.name()).isEqualTo("shop");
    }

    @Test
    void aCommandLineThatSaysNotWhereFromOrWhereToIsRefusedWithExitCode2() {
        assertThatThrownBy(() -> spec("snapshot", "--source", "x")).hasMessageContaining("--target");
        assertThatThrownBy(() -> spec("run", "--source", "x", "--target", "y", "--set", "nope=1"))
                .hasMessageContaining("source.KEY=VALUE").hasMessageContaining("nope=1");
        assertThat(SluiceCommand.execute(streams, "status", "--source", "postgres://u@h/s")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("sluice status needs --source and --target, or --config")
                .contains("Usage: sluice status");
    }

    @Test
    void aMistypedOptionOrCommandShowsUsageWithExitCode2() {
        assertThat(SluiceCommand.execute(streams, "snapshot", "--sorce", "x")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("sluice: Unknown options: '--sorce'").contains("--source")
                .contains("Usage: sluice snapshot");
        err.reset();
        assertThat(SluiceCommand.execute(streams, "snapshots")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("snapshots").contains("Usage: sluice");
        err.reset();
        assertThat(SluiceCommand.execute(streams)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("No command given");
    }

    @Test
    void theHelpListsEveryCommandItsOptionsAndTheExitCodes() {
        assertThat(SluiceCommand.execute(streams, "--help")).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        assertThat(help).contains("Commands:").contains("run").contains("snapshot").contains("init").contains("status")
                .contains("teardown").contains("generate-completion").contains("Exit codes:");
        out.reset();
        assertThat(SluiceCommand.execute(streams, "run", "--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--source=URL").contains("--target=[NAME=]URL").contains("--config=FILE")
                .contains("--set=source.KEY=VALUE|target.KEY=VALUE").contains("--fresh").contains("truncate")
                .contains("Exit codes:");
        out.reset();
        assertThat(SluiceCommand.execute(streams, "help", "status")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: sluice status");
    }

    @Test
    void aCommandMadeAloneReadsAndHelpsAsWithAllTheOthers() {
        CommandLine all = SluiceCommand.commandLine(streams);
        for (String name : List.of("run", "snapshot", "init", "status", "teardown", "webhooks", "version")) {
            CommandLine alone = SluiceCommand.commandLine(streams, List.of(name, "--help"));
            assertThat(alone.getSubcommands()).as(name).containsOnlyKeys(name);
            assertThat(alone.getSubcommands().get(name).getUsageMessage()).as(name)
                    .isEqualTo(all.getSubcommands().get(name).getUsageMessage());
        }
        CommandLine webhooks = SluiceCommand.commandLine(streams, List.of("webhooks", "list"));
        assertThat(webhooks.getSubcommands().get("webhooks").getSubcommands().get("replay").getUsageMessage())
                .isEqualTo(all.getSubcommands().get("webhooks").getSubcommands().get("replay").getUsageMessage());
        for (List<String> args : List.of(List.<String>of(), List.of("--help"), List.of("help", "status"), List.of("snapshots"),
                List.of("generate-completion"))) {
            assertThat(SluiceCommand.commandLine(streams, args).getSubcommands()).as(String.join(" ", args))
                    .containsOnlyKeys(all.getSubcommands().keySet());
        }
    }

    @Test
    void theVersionIsTheBuildsBothWays() {
        assertThat(SluiceCommand.execute(streams, "--version")).isZero();
        assertThat(SluiceCommand.execute(streams, "version")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8).lines()).containsExactly("sluice " + SluiceVersion.get(),
                "sluice " + SluiceVersion.get());
    }

    @Test
    void theCompletionScriptCompletesTheCommands() {
        assertThat(SluiceCommand.execute(streams, "generate-completion")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("complete -F").contains("snapshot").contains("teardown")
                .contains("--table-exists");
    }

    @Test
    void targetsAreNamedAndScopedSettingsReachTheirTargetOnly() {
        CommandLine cli = SluiceCommand.commandLine(streams);
        ParseResult parsed = cli.parseArgs("run", "--source", "postgres://u@h/s", "--target", "replica=postgres://u@r/t", "--target",
                "https://a:b@search:9200", "--target", "postgres://u@other/t", "--set", "target.replica.table.exists=truncate",
                "--set", "target.batch.max.bytes=1048576");
        PipelineCommand command = (PipelineCommand) parsed.subcommand().commandSpec().userObject();
        List<NamedTarget> targets = command.options.targets();
        assertThat(targets).extracting(NamedTarget::name).containsExactly("replica", "opensearch", "postgres");
        assertThat(targets.get(0).spec().target()).containsEntry("table.exists", "truncate").containsEntry("batch.max.bytes", "1048576");
        assertThat(targets.get(2).spec().target()).doesNotContainKey("table.exists").containsEntry("batch.max.bytes", "1048576");

        assertThat(SluiceCommand.execute(streams, "snapshot", "--source", "postgres://u@h/s", "--target", "postgres://u@a/t",
                "--target", "postgres://u@b/t")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("takes one target").contains("several targets are for sluice run");
        err.reset();
        assertThat(SluiceCommand.execute(streams, "run", "--source", "postgres://u@h/s", "--target", "a=postgres://u@a/t",
                "--target", "a=postgres://u@b/t")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Two targets are named a");
    }

    @Test
    void aTargetOfThePipelineFileIsPickedByItsName(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("fan.yaml");
        java.nio.file.Files.writeString(file, "source:\n  url: postgres://u@h/s\ntargets:\n  replica:\n    url: postgres://u@r/t\n"
                + "    table.exists: truncate\n  search:\n    url: https://a:b@search:9200\n");
        PipelineSpec replica = spec("verify", "--config", file.toString(), "--target", "replica");
        assertThat(replica.target()).containsEntry("connection.url", "postgres://u@r/t").containsEntry("table.exists", "truncate");
        PipelineSpec search = spec("verify", "--config", file.toString(), "--target", "search");
        assertThat(search.targetKind()).isEqualTo(io.sluice.runtime.targets.TargetKind.OPENSEARCH);
        assertThat(SluiceCommand.execute(streams, "verify", "--config", file.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("takes one target").contains("replica, search");
    }

    private PipelineSpec spec(String... args) {
        CommandLine cli = SluiceCommand.commandLine(streams);
        ParseResult parsed = cli.parseArgs(args);
        PipelineCommand command = (PipelineCommand) parsed.subcommand().commandSpec().userObject();
        return command.options.spec();
    }
}
