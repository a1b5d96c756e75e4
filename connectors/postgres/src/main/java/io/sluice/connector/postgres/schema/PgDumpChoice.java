package io.sluice.connector.postgres.schema;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * Chooses the pg_dump that dumps a source's schema. pg_dump refuses servers newer than itself,
 * and its script is only sure to load into servers at least as new as itself, so the best is the
 * oldest one at least the source's major version. Every one that can be found is considered:
 * {@code pg_dump.path} alone when it is set, else {@code SLUICE_PG_BIN}, each PATH entry in
 * order, and Debian's {@code /usr/lib/postgresql/<version>/bin}, newest first; among those of
 * the same major version the first found wins.
 */
public final class PgDumpChoice {

    private static final Pattern VERSION = Pattern.compile("\\(PostgreSQL\\)\\s+(\\d+)(?:\\.(\\d+))?");

    /** A pg_dump and the version it says it is. */
    public record Program(Path path, int major, String version) {
        @Override
        public String toString() {
            return "pg_dump " + version + " (" + path + ")";
        }
    }

    private final Map<String, String> env;
    private final Path debianRoot;

    /**
     * @param env        the environment to read PATH and SLUICE_PG_BIN from
     * @param debianRoot where Debian keeps its server versions ({@code /usr/lib/postgresql})
     */
    PgDumpChoice(Map<String, String> env, Path debianRoot) {
        this.env = env;
        this.debianRoot = debianRoot;
    }

    /** The choice on this machine. */
    public static PgDumpChoice ofMachine() {
        return new PgDumpChoice(System.getenv(), Path.of("/usr/lib/postgresql"));
    }

    /**
     * @param configured  {@code pg_dump.path}; blank to search
     * @param sourceMajor the source server's major version
     * @param source      the source as the message should name it, with its full version
     */
    public Program choose(String configured, int sourceMajor, String source) {
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured.strip());
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new ConnectException("pg_dump.path " + path + " is not an executable file. Point it at a pg_dump of PostgreSQL "
                        + sourceMajor + " or newer, or leave it empty to use the one found on PATH or in /usr/lib/postgresql");
            }
            Program program = version(path).orElseThrow(() -> new ConnectException("pg_dump.path " + path
                    + " does not answer --version as pg_dump does; point it at PostgreSQL's pg_dump"));
            if (program.major() < sourceMajor) {
                throw new ConnectException("pg_dump.path names " + program + ", older than the source " + source + ": pg_dump dumps "
                        + "only servers up to its own version. Point pg_dump.path at a pg_dump " + sourceMajor + " or newer ("
                        + install(sourceMajor) + "), or leave it empty to search");
            }
            return program;
        }
        List<Program> found = candidates().stream().map(PgDumpChoice::version).flatMap(Optional::stream).toList();
        return found.stream().filter(p -> p.major() >= sourceMajor)
                .min(Comparator.comparingInt(Program::major))
                .orElseThrow(() -> new ConnectException(found.isEmpty()
                        ? "No pg_dump found (searched SLUICE_PG_BIN, PATH and /usr/lib/postgresql/*/bin); Sluice dumps the schema of "
                                + "the source " + source + " with it. Install a pg_dump " + sourceMajor + " or newer ("
                                + install(sourceMajor) + ") or set pg_dump.path"
                        : "No pg_dump " + sourceMajor + " or newer for the source " + source + "; found only "
                                + found.stream().map(Program::toString).collect(Collectors.joining(", ")) + ", and pg_dump dumps only "
                                + "servers up to its own version. Install " + install(sourceMajor) + " or newer, or set pg_dump.path to one"));
    }

    private static String install(int major) {
        return "Debian and Ubuntu: apt-get install postgresql-client-" + major + ", from apt.postgresql.org where the distribution lacks it";
    }

    /** Every pg_dump on this machine, in the order of preference for one major version, each once. */
    List<Path> candidates() {
        Map<Path, Path> byRealPath = new LinkedHashMap<>();
        List<Path> dirs = new ArrayList<>();
        String bin = env.get("SLUICE_PG_BIN");
        if (bin != null && !bin.isBlank()) {
            dirs.add(Path.of(bin.strip()));
        }
        String path = env.get("PATH");
        if (path != null) {
            for (String dir : path.split(":")) {
                if (!dir.isBlank()) {
                    dirs.add(Path.of(dir));
                }
            }
        }
        dirs.addAll(debianDirs());
        for (Path dir : dirs) {
            Path candidate = dir.resolve("pg_dump");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                byRealPath.putIfAbsent(realPath(candidate), candidate);
            }
        }
        return List.copyOf(byRealPath.values());
    }

    private List<Path> debianDirs() {
        if (!Files.isDirectory(debianRoot)) {
            return List.of();
        }
        try (Stream<Path> versions = Files.list(debianRoot)) {
            return versions.sorted(Comparator.comparingInt((Path v) -> number(v.getFileName().toString())).reversed())
                    .map(v -> v.resolve("bin")).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static int number(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    /** What {@code pg_dump --version} says, or empty when it does not run or says something else. */
    static Optional<Program> version(Path program) {
        try {
            Process process = new ProcessBuilder(program.toString(), "--version").redirectErrorStream(true).start();
            process.getOutputStream().close();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.empty();
            }
            return process.exitValue() == 0 ? parse(program, out) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Reads {@code pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)} and the like. */
    static Optional<Program> parse(Path program, String versionLine) {
        Matcher m = VERSION.matcher(versionLine);
        if (!m.find()) {
            return Optional.empty();
        }
        int first = Integer.parseInt(m.group(1));
        String version = m.group(1) + (m.group(2) == null ? "" : "." + m.group(2));
        return Optional.of(new Program(program, first, version));
    }
}
