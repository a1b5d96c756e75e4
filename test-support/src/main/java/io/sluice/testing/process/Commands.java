package io.sluice.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs short helper commands (initdb, pg_ctl, id) and turns a failure into a readable exception. */
public final class Commands {

    private static final long TIMEOUT_SECONDS = 180;

    private Commands() {
    }

    /** Runs the command and returns its output; fails with the output when the exit code is not 0. */
    public static String run(List<String> command) {
        Result result = execute(command);
        if (result.exitCode != 0) {
            throw new IllegalStateException("Command failed with exit code " + result.exitCode + ": "
                    + String.join(" ", command) + "\n" + result.output);
        }
        return result.output;
    }

    public static boolean succeeds(List<String> command) {
        try {
            return execute(command).exitCode == 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Result execute(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("Command did not finish in " + TIMEOUT_SECONDS + " s: " + String.join(" ", command));
            }
            return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + String.join(" ", command), e);
        }
    }

    private record Result(int exitCode, String output) {
    }
}
