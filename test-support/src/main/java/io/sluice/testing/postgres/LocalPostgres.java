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
    private final List<String> promote;
    private boolean stopped;

    private LocalPostgres(int port, Path home, List<String> stop, List<String> promote) {
        this.port = port;
        this.home = home;
        this.stop = stop;
        this.promote = promote;
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

        return run(binaries, user, home, port);
    }

    /**
     * A hot standby of {@code primary}: a base backup of it ({@code pg_basebackup -R}, PostgreSQL
     * 18's, which backs up every older server) that streams the primary's WAL through the physical
     * slot {@code slot}, made here, and runs with the primary's binaries.
     *
     * @param settings {@code postgresql.conf} lines of the standby, after the primary's
     */
    static LocalPostgres standby(String service, PostgresServer primary, String slot, List<String> settings, PostgresBinaries binaries) {
        ServiceUser user = ServiceUser.current();
        Path root = Workdir.of(service);
        StaleRuns.clean(root, dir -> stopCommand(binaries, user, dir.resolve("data")));
        Path home = user.ownedDirectory(root.resolve("jvm-" + ProcessHandle.current().pid()));
        Path data = home.resolve("data");
        String primaryInfo = "host=" + primary.host() + " port=" + primary.port() + " user=" + primary.user()
                + " password=" + primary.password() + " dbname=" + primary.adminDatabase();
        Commands.run(List.of(ClientPrograms.version18().resolve("pg_basebackup").toString(), "--dbname=" + primaryInfo,
                "--pgdata=" + data, "--write-recovery-conf", "--wal-method=stream", "--checkpoint=fast", "--create-slot",
                "--slot=" + slot, "--no-sync"));
        user.ownedDirectory(home);
        int port = Ports.freeLoopbackPort();
        // postgresql.auto.conf, read last, already holds what -R wrote: the standby's own lines go after them.
        write(data.resolve("postgresql.auto.conf"), String.join("\n",
                "",
                "# Sluice test standby",
                "port = " + port,
                "primary_conninfo = '" + primaryInfo + "'",
                "primary_slot_name = '" + slot + "'",
                "hot_standby = on",
                String.join("\n", settings),
                ""), true);
        return run(binaries, user, home, port);
    }

    private static LocalPostgres run(PostgresBinaries binaries, ServiceUser user, Path home, int port) {
        Path data = home.resolve("data");
        Path log = home.resolve("postgres.log");
        Commands.run(user.command(List.of(binaries.program("pg_ctl").toString(), "--pgdata=" + data, "--log=" + log,
                "--wait", "--timeout=120", "start")));
        List<String> stop = stopCommand(binaries, user, data);
        ExitGuard.register("postgres", () -> Commands.succeeds(stop), stop);
        LOG.info("PostgreSQL from {} started on 127.0.0.1:{}, log {}", binaries.directory(), port, log);
        return new LocalPostgres(port, home, stop,
                user.command(List.of(binaries.program("pg_ctl").toString(), "--pgdata=" + data, "--wait", "--timeout=120", "promote")));
    }

    @Override
    public void promote() {
        Commands.run(promote);
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
