package io.sluice.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure a server started for tests goes away with the test JVM. A shutdown hook covers a
 * normal exit and failed tests; a small watcher process covers a JVM that is killed outright,
 * which no hook survives: it polls the JVM's pid and runs the stop command once it is gone.
 */
public final class ExitGuard {

    private static final Logger LOG = LoggerFactory.getLogger(ExitGuard.class);

    private ExitGuard() {
    }

    public static void register(String what, Runnable stopInJvm, List<String> stopCommand) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                stopInJvm.run();
            } catch (RuntimeException e) {
                LOG.warn("Stopping {} at exit failed", what, e);
            }
        }, "stop-" + what));
        startWatcher(what, stopCommand);
    }

    private static void startWatcher(String what, List<String> stopCommand) {
        long jvm = ProcessHandle.current().pid();
        StringBuilder stop = new StringBuilder();
        for (String part : stopCommand) {
            stop.append('\'').append(part.replace("'", "'\\''")).append("' ");
        }
        String script = "while kill -0 " + jvm + " 2>/dev/null; do sleep 2; done; " + stop + ">/dev/null 2>&1";
        try {
            new ProcessBuilder("setsid", "sh", "-c", script)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .getOutputStream()
                    .close();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start the exit watcher for " + what, e);
        }
    }
}
