package io.sluice.connector.postgres.schema;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the machine's {@code pg_dump} for the schema of the snapshot. PostgreSQL's own tool
 * already knows every kind of object and the order they must be created in; Sluice only
 * decides what to dump and when to apply it.
 */
public final class PgDump {

    private static final Logger LOG = LoggerFactory.getLogger(PgDump.class);

    private final Path program;

    private PgDump(Path program) {
        this.program = program;
    }

    /**
     * The pg_dump for the source's schema, chosen by {@link PgDumpChoice} against the source's
     * version, which it reads first: a pipeline whose source no pg_dump here can dump stops at
     * its start, before anything is created, with one line naming the versions.
     */
    public static PgDump forSource(String configured, PgEndpoint endpoint) {
        try (Connection c = PgConnect.open(endpoint, "sluice schema dump"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int, current_setting('server_version')")) {
            rs.next();
            int versionNum = rs.getInt(1);
            String source = endpoint.display() + " (PostgreSQL " + rs.getString(2).split(" ")[0] + ")";
            PgDumpChoice.Program program = PgDumpChoice.ofMachine().choose(configured, versionNum / 10000, source);
            LOG.info("The schema of {} is dumped with {}", source, program);
            return new PgDump(program.path());
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    /**
     * One section ({@code pre-data} or {@code post-data}) of the schema as of the exported
     * snapshot, without owners and privileges, as SQL text without psql meta-commands. Post-data
     * includes the {@code REFRESH MATERIALIZED VIEW} of every populated materialized view, as
     * pg_restore runs them (pg_dump counts them as data, so {@code --schema-only} would leave
     * the views empty); the tables' rows, being the data section, are never in it. Sluice's own
     * DDL capture ({@value io.sluice.connector.postgres.ddl.DdlCapture#SCHEMA} and its event
     * triggers), its signal table's schema, publications and subscriptions belong to the source
     * and are left out.
     *
     * @param tables when not empty, only these tables ({@code schema.table}) and what belongs to them
     */
    public String section(PgEndpoint endpoint, String snapshotId, String section, List<String> tables) {
        List<String> command = new ArrayList<>(List.of(program.toString(), "--section=" + section,
                "--no-owner", "--no-privileges", "--no-publications", "--no-subscriptions",
                "--exclude-schema=" + DdlCapture.SCHEMA, "--exclude-schema=" + io.sluice.connector.postgres.resync.SignalTable.SCHEMA,
                "--snapshot=" + snapshotId,
                "--host=" + String.join(",", endpoint.servers().stream().map(PgEndpoint.Server::host).toList()),
                "--port=" + String.join(",", endpoint.servers().stream().map(v -> Integer.toString(v.port())).toList()), "--username=" + endpoint.user(),
                "--dbname=" + endpoint.database()));
        for (String table : tables) {
            command.add("--table=" + table);
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> env = builder.environment();
        env.put("PGPASSWORD", endpoint.password());
        env.put("PGSSLMODE", endpoint.sslMode());
        env.put("PGAPPNAME", "sluice schema dump");
        if (endpoint.severalServers()) {
            // The snapshot to dump in was exported by the primary ("read-write" is what libpq before 14 knows).
            env.put("PGTARGETSESSIONATTRS", "read-write");
        }
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
