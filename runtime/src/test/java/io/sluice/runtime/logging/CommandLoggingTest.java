package io.sluice.runtime.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.status.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

/**
 * The sluice command's logging, as its users read it: the progress display on standard output,
 * warnings on standard error, everything at INFO in the log file, Kafka's chatter left out, and
 * the engine's report of a failed run in the file only (the command says in a line what failed).
 */
class CommandLoggingTest {

    @TempDir
    Path directory;

    @Test
    void eachMessageGoesWhereTheCommandShowsIt() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter()); // what logback's SLF4J provider gives the context it makes
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            CommandLogging.apply(context, directory.toString());
            context.getLogger("io.sluice.runtime.progress.ProgressDisplay").info("42 of 100 tables copied");
            Logger sink = context.getLogger("io.sluice.sink.postgres.PostgresWriter");
            sink.info("batch size 16 MB");
            sink.warn("the target is slow");
            context.getLogger("org.apache.kafka.connect.runtime.Worker").info("worker chatter");
            context.getLogger("org.apache.kafka.connect.runtime.Worker").warn("worker trouble");
            Logger engine = context.getLogger("io.debezium.embedded.async.AsyncEmbeddedEngine");
            engine.error("Engine has failed with ", new IllegalStateException("the target is gone"));
            engine.error("Flush of the offsets failed, canceling the flush.");
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
            context.stop();
        }
        assertThat(out.toString(StandardCharsets.UTF_8).lines()).singleElement().asString().matches("\\d\\d:\\d\\d:\\d\\d 42 of 100 tables copied");
        assertThat(err.toString(StandardCharsets.UTF_8).lines()).satisfiesExactly(
                line -> assertThat(line).matches("\\d\\d:\\d\\d:\\d\\d WARN  the target is slow"),
                line -> assertThat(line).matches("\\d\\d:\\d\\d:\\d\\d WARN  worker trouble"),
                line -> assertThat(line).matches("\\d\\d:\\d\\d:\\d\\d ERROR Flush of the offsets failed, canceling the flush."));
        assertThat(context.getStatusManager().getCopyOfStatusList()).noneMatch(s -> s.getLevel() >= Status.WARN);
        String file = Files.readString(directory.resolve("sluice.log"));
        assertThat(file).contains("INFO  i.s.runtime.progress.ProgressDisplay - 42 of 100 tables copied")
                .contains("INFO  i.s.sink.postgres.PostgresWriter - batch size 16 MB").contains("WARN  i.s.sink.postgres.PostgresWriter - the target is slow")
                .contains("worker trouble").doesNotContain("worker chatter")
                .contains("ERROR i.d.e.async.AsyncEmbeddedEngine - Engine has failed with").contains("IllegalStateException: the target is gone");
    }

    @Test
    void aConfigurationOfOnesOwnWins() {
        // Tests have test-support's logback-test.xml on the class path, as a user may have -Dlogback.configurationFile.
        CommandLogging logging = new CommandLogging();
        LoggerContext context = new LoggerContext();
        logging.setContext(context);
        assertThat(logging.configure(context)).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
        assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext()).isFalse();
    }
}
