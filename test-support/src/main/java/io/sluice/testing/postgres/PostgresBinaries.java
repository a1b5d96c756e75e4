package io.sluice.testing.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds the PostgreSQL server programs ({@code initdb}, {@code pg_ctl}, {@code postgres}):
 * {@code SLUICE_PG_BIN} when set, else the major version the system property
 * {@code sluice.test.postgres} names ({@link #ofMajor}), else the newest
 * {@code /usr/lib/postgresql/<version>/bin} (Debian's layout), else {@code initdb} on the PATH.
 */
public final class PostgresBinaries {

    private final Path bin;

    private PostgresBinaries(Path bin) {
        this.bin = bin;
    }

    public static PostgresBinaries locate() {
        String configured = System.getenv("SLUICE_PG_BIN");
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured.trim());
            if (!Files.isExecutable(dir.resolve("initdb"))) {
                throw new IllegalStateException("SLUICE_PG_BIN=" + dir + " holds no initdb: point it at PostgreSQL's bin directory");
            }
            return new PostgresBinaries(dir);
        }
        String major = System.getProperty("sluice.test.postgres", "");
        if (!major.isBlank()) {
            try {
                return ofMajor(Integer.parseInt(major.strip()));
            } catch (NumberFormatException e) {
                throw new IllegalStateException("sluice.test.postgres=" + major + " is not a major version such as 17");
            }
        }
        return debianLayout().or(PostgresBinaries::onPath).map(PostgresBinaries::new).orElseThrow(() -> new IllegalStateException(
                "PostgreSQL server binaries (initdb, pg_ctl) not found. Install them (Debian: apt-get install postgresql), "
                        + "set SLUICE_PG_BIN to their directory, or set SLUICE_TEST_PG_URL to a running server"));
    }

    /**
     * The server programs of one major version: the machine's own ({@code /usr/lib/postgresql/<major>/bin})
     * when it has them, else those from Maven Central ({@link PostgresDistributions}).
     */
    public static PostgresBinaries ofMajor(int major) {
        Path debian = Path.of("/usr/lib/postgresql", Integer.toString(major), "bin");
        if (Files.isExecutable(debian.resolve("initdb"))) {
            return new PostgresBinaries(debian);
        }
        return new PostgresBinaries(PostgresDistributions.bin(major));
    }

    public Path program(String name) {
        return bin.resolve(name);
    }

    /**
     * A client program (psql, pgbench) beside these servers, or PostgreSQL 18's when there is
     * none there: the servers from Maven Central come without clients, and 18's talk to every
     * older server.
     */
    public Path client(String name) {
        Path here = bin.resolve(name);
        return Files.isExecutable(here) ? here : ClientPrograms.version18().resolve(name);
    }

    public Path directory() {
        return bin;
    }

    private static Optional<Path> debianLayout() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(Comparator.comparingInt(PostgresBinaries::majorVersion));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int majorVersion(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Optional<Path> onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String entry : path.split(":")) {
            Path initdb = Path.of(entry, "initdb");
            if (Files.isExecutable(initdb)) {
                try {
                    return Optional.of(initdb.toRealPath().getParent());
                } catch (IOException e) {
                    return Optional.of(Path.of(entry));
                }
            }
        }
        return Optional.empty();
    }
}
