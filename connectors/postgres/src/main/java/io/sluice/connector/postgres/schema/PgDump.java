package io.sluice.connector.postgres.schema;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Runs the machine's {@code pg_dump} for the schema of the snapshot. PostgreSQL's own tool
 * already knows every kind of object and the order they must be created in; Sluice only
 * decides what to dump and when to apply it.
 */
public final class PgDump {

    private final Path program;

    private PgDump(Path program) {
        this.program = program;
    }

    /**
     * {@code configured} when given, else {@code SLUICE_PG_BIN}, else the newest Debian
     * {@code /usr/lib/postgresql/<version>/bin}, else {@code pg_dump} on the PATH. The newest is
     * chosen because pg_dump refuses servers newer than itself.
     */
    public static PgDump locate(String configured) {
        if (configured != null && !configured.isBlank()) {
            Path p = Path.of(configured.strip());
            if (!Files.isExecutable(p)) {
                throw new ConnectException("pg_dump.path " + p + " is not an executable file");
            }
            return new PgDump(p);
        }
        String bin = System.getenv("SLUICE_PG_BIN");
        if (bin != null && Files.isExecutable(Path.of(bin, "pg_dump"))) {
            return new PgDump(Path.of(bin, "pg_dump"));
        }
        return debian().or(PgDump::onPath).map(PgDump::new).orElseThrow(() -> new ConnectException(
                "pg_dump not found; Sluice dumps the source schema with it. Install the PostgreSQL client "
                        + "(Debian: apt-get install postgresql-client) or set pg_dump.path"));
    }

    private static Optional<Path> debian() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin").resolve("pg_dump")).filter(Files::isExecutable)
                    .max(Comparator.comparingInt(p -> major(p.getParent().getParent().getFileName().toString())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int major(String version) {
        try {
            return Integer.parseInt(version);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Optional<Path> onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir, "pg_dump");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * One section ({@code pre-data} or {@code post-data}) of the schema as of the exported
     * snapshot, without owners and privileges, as SQL text without psql meta-commands. Post-data
     * includes the {@code REFRESH MATERIALIZED VIEW} of every populated materialized view, as
     * pg_restore runs them (pg_dump counts them as data, so {@code --schema-only} would leave
     * the views empty); the tables' rows, being the data section, are never in it. Sluice's own
     * DDL capture ({@value io.sluice.connector.postgres.ddl.DdlCapture#SCHEMA} and its event
     * triggers), publications and subscriptions belong to the source and are left out.
     *
     * @param tables when not empty, only these tables ({@code schema.table}) and what belongs to them
     */
    public String section(PgEndpoint endpoint, String snapshotId, String section, List<String> tables) {
        List<String> command = new ArrayList<>(List.of(program.toString(), "--section=" + section,
                "--no-owner", "--no-privileges", "--no-publications", "--no-subscriptions",
                "--exclude-schema=" + DdlCapture.SCHEMA, "--snapshot=" + snapshotId,
                "--host=" + endpoint.host(), "--port=" + endpoint.port(), "--username=" + endpoint.user(),
                "--dbname=" + endpoint.database()));
        for (String table : tables) {
            command.add("--table=" + table);
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> env = builder.environment();
        env.put("PGPASSWORD", endpoint.password());
        env.put("PGSSLMODE", endpoint.sslMode());
        env.put("PGAPPNAME", "sluice schema dump");
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
            byte[] out = readAll(process.getInputStream());
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new ConnectException("pg_dump of the " + section + " schema of " + endpoint.display() + " did not finish in 10 minutes");
            }
            String stderr = new String(err.join(), StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0) {
                throw new ConnectException(explain(stderr, endpoint));
            }
            return withoutMetaCommands(new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ConnectException("Cannot run " + program + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while dumping the schema of " + endpoint.display(), e);
        }
    }

    private String explain(String stderr, PgEndpoint endpoint) {
        if (stderr.contains("server version mismatch") || stderr.contains("aborting because of server version")) {
            return program + " is older than the PostgreSQL server of " + endpoint.display() + " (" + stderr.lines().findFirst().orElse("")
                    + "). Install the client of the server's major version (Debian: apt-get install postgresql-client-<major>) "
                    + "or point pg_dump.path at it.";
        }
        return "pg_dump of " + endpoint.display() + " failed: " + stderr;
    }

    private static byte[] readAll(InputStream in) {
        try (in; ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            in.transferTo(out);
            return out.toByteArray();
        } catch (IOException e) {
            return new byte[0];
        }
    }

    /** Drops psql meta-commands ({@code \restrict} and the like), which only psql understands. */
    static String withoutMetaCommands(String script) {
        StringBuilder out = new StringBuilder(script.length());
        for (String line : script.split("\n", -1)) {
            if (!line.startsWith("\\")) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }
}
