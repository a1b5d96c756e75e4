package io.sluice.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@code sluice} command in a JVM of its own, as a user runs it: the built jar and its
 * libraries when the module was packaged (as under {@code ./mvnw verify}), else the test
 * classpath. It can be stopped the gentle way (SIGTERM) or killed outright (SIGKILL).
 */
final class SluiceProcess implements AutoCloseable {

    private final Process process;
    private final Path output;

    private SluiceProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /**
     * Starts {@code sluice <args>} with {@code workdir} as its working directory (its .sluice/
     * log goes there); what it prints goes to a file there too, which outlives the process.
     */
    static SluiceProcess start(Path workdir, String... args) throws IOException {
        return start(workdir, java.util.Map.of(), args);
    }

    /** {@link #start(Path, String...)} with environment variables set. */
    static SluiceProcess start(Path workdir, java.util.Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(classpath());
        command.add(Sluice.class.getName());
        command.addAll(List.of(args));
        Files.createDirectories(workdir);
        Path output = Files.createTempFile(workdir, "sluice-", ".out");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workdir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().putAll(env);
        Process p = builder.start();
        p.getOutputStream().close();
        return new SluiceProcess(p, output);
    }

    private static String classpath() {
        Path jar = Path.of("target", "sluice-runtime.jar").toAbsolutePath();
        Path lib = Path.of("target", "lib").toAbsolutePath();
        if (Files.isRegularFile(jar) && Files.isDirectory(lib)) {
            return jar + java.io.File.pathSeparator + lib + "/*";
        }
        return System.getProperty("java.class.path");
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** What the command printed so far, standard output and error together. */
    String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + output + ": " + e.getMessage() + ")";
        }
    }

    /** SIGKILL: no shutdown hook, no flush, no goodbye; returns once the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("sluice (pid " + pid() + ") survived SIGKILL for 30 s");
        }
    }

    /** Waits for the command to end by itself; returns its exit code. */
    int awaitExit(long timeoutSeconds) throws InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("sluice did not end within " + timeoutSeconds + " s:\n" + output());
        }
        return process.exitValue();
    }

    /** SIGTERM, as Ctrl-C or a service manager stops it; returns the exit code. */
    int terminate(long timeoutSeconds) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("sluice did not stop within " + timeoutSeconds + " s of SIGTERM:\n" + output());
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
