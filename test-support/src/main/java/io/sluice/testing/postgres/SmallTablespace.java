package io.sluice.testing.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import com.sun.security.auth.module.UnixSystem;
import io.sluice.testing.process.Commands;
import io.sluice.testing.process.ServiceUser;

/**
 * A tablespace on a size-capped tmpfs, so that a test can fill a database's disk for real and
 * then give it room again. Mounting needs root and a server launched on this machine; where
 * either is missing, {@link #unavailable()} says why and the test should be aborted, not passed.
 */
public final class SmallTablespace implements AutoCloseable {

    private final PostgresServer server;
    private final Path mount;
    private final String name;

    private SmallTablespace(PostgresServer server, Path mount, String name) {
        this.server = server;
        this.mount = mount;
        this.name = name;
    }

    /** Why a small tablespace cannot be made here, or empty when it can. */
    public static Optional<String> unavailable() {
        if (new UnixSystem().getUid() != 0) {
            return Optional.of("mounting a size-capped tmpfs needs root");
        }
        if (!(PostgresServer.shared() instanceof LocalPostgres)) {
            return Optional.of("the test PostgreSQL server does not run on this machine (" + PostgresServer.shared().origin() + ")");
        }
        return Optional.empty();
    }

    /** Mounts a tmpfs of the given size, owned by the server's user, and creates a tablespace on it. */
    public static SmallTablespace create(int megabytes) throws SQLException {
        unavailable().ifPresent(reason -> {
            throw new IllegalStateException("Cannot make a small tablespace: " + reason);
        });
        PostgresServer server = PostgresServer.shared();
        String name = "small_" + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 30), 36).toLowerCase(Locale.ROOT);
        Path mount;
        try {
            mount = Files.createTempDirectory("sluice-" + name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ServiceUser user = ServiceUser.current();
        String uid = Commands.run(List.of("id", "-u", user.name())).trim();
        String gid = Commands.run(List.of("id", "-g", user.name())).trim();
        Commands.run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m,mode=0700,uid=" + uid + ",gid=" + gid,
                "tmpfs", mount.toString()));
        SmallTablespace tablespace = new SmallTablespace(server, mount, name);
        try {
            TestDatabases.admin(server, "CREATE TABLESPACE " + name + " LOCATION '" + mount + "'");
        } catch (SQLException | RuntimeException e) {
            tablespace.unmount();
            throw e;
        }
        return tablespace;
    }

    public String name() {
        return name;
    }

    /** A new database whose default tablespace, catalog included, is this one. */
    public TestDatabase createDatabase(Class<?> owner) throws SQLException {
        return TestDatabases.create(owner, name);
    }

    /** Changes the size cap; data already there stays. */
    public void resize(int megabytes) {
        Commands.run(List.of("mount", "-o", "remount,size=" + megabytes + "m", mount.toString()));
    }

    /** Drops the tablespace (its databases must be dropped first) and unmounts it. */
    @Override
    public void close() throws SQLException {
        try {
            TestDatabases.admin(server, "DROP TABLESPACE IF EXISTS " + name);
        } finally {
            unmount();
        }
    }

    private void unmount() {
        Commands.run(List.of("umount", mount.toString()));
        try {
            Files.deleteIfExists(mount);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
