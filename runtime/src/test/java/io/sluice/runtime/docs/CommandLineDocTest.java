package io.sluice.runtime.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

import io.sluice.runtime.cli.SluiceCommand;
import io.sluice.runtime.cli.Streams;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docs/cli.md is the help the commands print, so the two cannot drift apart: this test renders
 * it and fails when the file differs. To regenerate after changing a command:
 * {@code ./mvnw -q -pl runtime -am test -Dtest=CommandLineDocTest -Dsluice.docs.write=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class CommandLineDocTest {

    private static final Path DOC = Path.of("..", "docs", "cli.md");

    @Test
    void theCommandLineReferenceIsTheGeneratedHelp() throws Exception {
        String generated = render();
        if (Boolean.getBoolean("sluice.docs.write")) {
            Files.writeString(DOC, generated, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(DOC)).as("docs/cli.md exists").isTrue();
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8)).as("docs/cli.md is generated; regenerate it (see this test's Javadoc)")
                .isEqualTo(generated);
    }

    static String render() {
        Streams streams = new Streams(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new CompletableFuture<>());
        CommandLine cli = SluiceCommand.commandLine(streams);
        StringBuilder doc = new StringBuilder("""
                # The `sluice` command line

                <!-- Generated from the commands (runtime/src/main/java/io/sluice/runtime/cli) by CommandLineDocTest: edit the
                     commands' annotations, then regenerate (see that test). -->

                Each command's help, exactly as `./sluice COMMAND --help` prints it. Every pipeline command takes
                `--source` and `--target` (or `--config pipeline.yaml`, whose keys are those of
                [configuration.md](configuration.md)), and `--set source.KEY=VALUE` / `--set target.KEY=VALUE`
                for any connector key. Tab completion in bash and zsh: `source <(./sluice generate-completion)`.

                """);
        section(doc, "sluice", cli);
        for (String name : new String[] {"run", "snapshot", "init", "status", "teardown", "webhooks"}) {
            section(doc, "sluice " + name, cli.getSubcommands().get(name));
        }
        CommandLine webhooks = cli.getSubcommands().get("webhooks");
        for (String name : new String[] {"create", "update", "replay", "deliveries"}) {
            section(doc, "sluice webhooks " + name, webhooks.getSubcommands().get(name));
        }
        return doc.toString();
    }

    private static void section(StringBuilder doc, String title, CommandLine command) {
        command.setUsageHelpAutoWidth(false);
        command.setUsageHelpWidth(110);
        doc.append("## `").append(title).append("`\n\n```text\n").append(command.getUsageMessage().lines().map(String::stripTrailing)
                .collect(java.util.stream.Collectors.joining("\n")).stripTrailing()).append("\n```\n\n");
    }
}
