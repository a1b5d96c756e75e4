package io.sluice.testing.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import io.sluice.testing.Ports;
import io.sluice.testing.Workdir;
import io.sluice.testing.process.Commands;
import io.sluice.testing.process.ExitGuard;
import io.sluice.testing.process.ServiceUser;
import io.sluice.testing.process.StaleRuns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throwaway PostgreSQL cluster made with the machine's {@code initdb} and run with
 * {@code pg_ctl}, on 127.0.0.1 and a free port, data and log under
 * {@code target/test-services/postgres/jvm-<pid>}. Durability is switched off: the data
 * lives only as long as the test JVM.
 */
final class LocalPostgres implements PostgresServer.Launched {

    private static final Logger LOG = LoggerFactory.getLogger(LocalPostgres.class);
    private static final String USER = "sluice";
    private static final String PASSWORD = "sluice-test";

    private final int port;
    private final Path home;
    private final List<String> stop;
    private boolean stopped;

    private LocalPostgres(int port, Path home, List<String> stop) {
        this.port = port;
        this.home = home;
        this.stop = stop;
    }

    static LocalPostgres start() {
        return start("postgres", List.of());
    }

    /**
     * @param service  the directory under {@code target/test-services} it lives in
     * @param settings {@code postgresql.conf} lines after the test defaults (a later line wins)
     */
    static LocalPostgres start(String service, List<String> settings) {
        return start(service, settings, PostgresBinaries.locate());
    }

    /** {@link #start(String, List)} with the server programs of a chosen version. */
    static LocalPostgres start(String service, List<String> settings, PostgresBinaries binaries) {
        ServiceUser user = ServiceUser.current();
        Path root = Workdir.of(service);
        StaleRuns.clean(root, dir -> stopCommand(binaries, user, dir.resolve("data")));

        Path home = user.ownedDirectory(root.resolve("jvm-" + ProcessHandle.current().pid()));
        Path data = home.resolve("data");
        Path passwordFile = home.resolve("superuser-password");
        write(passwordFile, PASSWORD + "\n", false);
        user.ownedDirectory(home);

        Commands.run(user.command(List.of(binaries.program("initdb").toString(), "--pgdata=" + data, "--username=" + USER,
                "--pwfile=" + passwordFile, "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8",
                "--no-locale", "--no-sync")));

        int port = Ports.freeLoopbackPort();
        write(data.resolve("postgresql.conf"), String.join("\n",
                "",
                "# Sluice test server",
                "listen_addresses = '127.0.0.1'",
                "port = " + port,
                "unix_socket_directories = ''",
                "wal_level = logical",
                "max_replication_slots = 32",
                "max_wal_senders = 32",
                "max_connections = 200",
                "shared_buffers = 128MB",
                "fsync = off",
                "synchronous_commit = off",
                "full_page_writes = off",
                "log_min_messages = warning",
                "log_min_error_statement = panic",
                String.join("\n", settings),
                ""), true);

        Path log = home.resolve("postgres.log");
        Commands.run(user.command(List.of(binaries.program("pg_ctl").toString(), "--pgdata=" + data, "--log=" + log,
                "--wait", "--timeout=120", "start")));
        List<String> stop = stopCommand(binaries, user, data);
        ExitGuard.register("postgres", () -> Commands.succeeds(stop), stop);
        LOG.info("PostgreSQL from {} started on 127.0.0.1:{}, log {}", binaries.directory(), port, log);
        return new LocalPostgres(port, home, stop);
    }

    @Override
    public synchronized void close() {
        if (!stopped) {
            stopped = true;
            Commands.succeeds(stop);
        }
    }

    private static List<String> stopCommand(PostgresBinaries binaries, ServiceUser user, Path data) {
        return user.command(List.of(binaries.program("pg_ctl").toString(), "--pgdata=" + data, "--mode=immediate", "--wait", "stop"));
    }

    private static void write(Path file, String text, boolean append) {
        try {
            if (append) {
                Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            } else {
                Files.writeString(file, text, StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    @Override
    public String host() {
        return "127.0.0.1";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String user() {
        return USER;
    }

    @Override
    public String password() {
        return PASSWORD;
    }

    @Override
    public String adminDatabase() {
        return "postgres";
    }

    @Override
    public String origin() {
        return "local launch in " + home;
    }
}
