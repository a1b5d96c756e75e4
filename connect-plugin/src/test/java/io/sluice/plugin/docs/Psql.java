package io.sluice.plugin.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.sluice.testing.postgres.PostgresBinaries;
import io.sluice.testing.postgres.PostgresServer;

/**
 * {@code psql} against the test's server, as a reader runs it: this module's tests have no JDBC
 * driver on their class path (the worker must find the archive's).
 */
public final class Psql {

    private final PostgresServer server;
    private final PostgresBinaries binaries = PostgresBinaries.locate();

    public Psql(PostgresServer server) {
        this.server = server;
    }

    /** The environment that points psql at the server as the test's superuser, with PostgreSQL's programs on the PATH. */
    Map<String, String> environment(String user, String password) {
        return Map.of("PGHOST", server.host(), "PGPORT", String.valueOf(server.port()), "PGUSER", user, "PGPASSWORD", password,
                "PATH", binaries.directory() + ":" + System.getenv("PATH"));
    }

    /** Runs SQL (statements one by one, as psql -f does) as the superuser; returns the output, unaligned. */
    public String run(String database, String sql) throws IOException, InterruptedException {
        return run(database, server.user(), server.password(), sql);
    }

    String run(String database, String user, String password, String sql) throws IOException, InterruptedException {
        Path file = Files.createTempFile("docs-test", ".sql");
        try {
            Files.writeString(file, sql);
            return command(List.of(binaries.client("psql").toString(), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", database,
                    "-f", file.toString()), environment(user, password));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A value of one query: its first row's columns joined by |. */
    public String query(String database, String sql) throws IOException, InterruptedException {
        return run(database, sql).strip();
    }

    /** A shell command line, as the docs give it; fails with its output unless it exits 0. */
    static String command(List<String> command, Map<String, String> environment) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed (exit " + process.exitValue() + "):\n" + out);
        }
        return out;
    }

    /** A command line as a shell runs it. */
    static List<String> shell(String line) {
        return List.of("sh", "-c", line);
    }
}
