package io.sluice.testing.postgres;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * PostgreSQL's pgbench against a test database: its tables made with {@link #init}, a workload
 * started with {@link #start} and stopped by the caller. It comes with the server binaries
 * (Debian: apt-get install postgresql).
 */
public final class Pgbench {

    private final Path program;

    private Pgbench(Path program) {
        this.program = program;
    }

    /** The pgbench beside the server programs (PostgreSQL 18's when they have none); fails with how to install it when there is none. */
    public static Pgbench locate() {
        Path program = PostgresBinaries.locate().client("pgbench");
        if (!Files.isExecutable(program)) {
            throw new IllegalStateException("pgbench not found at " + program + ": install PostgreSQL's client programs (Debian: "
                    + "apt-get install postgresql), or set SLUICE_PG_BIN to a bin directory that has it");
        }
        return new Pgbench(program);
    }

    /** A pgbench of one's choice, such as PostgreSQL 18's ({@link ClientPrograms#version18()}). */
    public static Pgbench at(Path program) {
        return new Pgbench(program);
    }

    /** Runs pgbench to its end (e.g. {@code -i -q -s 2}), failing with its output when it fails. */
    public void run(TestDatabase db, String... args) throws Exception {
        Process p = start(db, ProcessBuilder.Redirect.PIPE, args);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("pgbench " + String.join(" ", args) + " did not finish in 300 s");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("pgbench " + String.join(" ", args) + " failed (" + p.exitValue() + "): " + out);
        }
    }

    /** Starts pgbench; its output goes to {@code output}. Stop it with {@link Process#destroy()}. */
    public Process start(TestDatabase db, ProcessBuilder.Redirect output, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(program.toString(), "-h", db.host(), "-p", Integer.toString(db.port()),
                "-U", db.user()));
        command.addAll(List.of(args));
        command.add(db.name());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output);
        builder.environment().put("PGPASSWORD", db.password());
        Process p = builder.start();
        p.getOutputStream().close();
        return p;
    }
}
