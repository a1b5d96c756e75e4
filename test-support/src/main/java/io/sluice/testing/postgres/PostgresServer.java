package io.sluice.testing.postgres;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

import io.sluice.testing.ServiceOrigin;

/**
 * A running PostgreSQL server with {@code wal_level=logical}, shared by all tests of one JVM.
 * Chosen once: {@code SLUICE_TEST_PG_URL} when set, else a Testcontainers container when a
 * Docker engine answers, else a server launched from the machine's binaries.
 */
public interface PostgresServer {

    String host();

    int port();

    /** A user allowed to create databases and replication slots. */
    String user();

    String password();

    /** The database to connect to for administration (creating and dropping test databases). */
    String adminDatabase();

    /** Where the server came from, for log lines and test reports. */
    String origin();

    default String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
    }

    default Connection connect(String database) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user());
        props.setProperty("password", password());
        return DriverManager.getConnection(jdbcUrl(database), props);
    }

    /** A server a test launched for itself; {@link #close} stops it (else the JVM's exit does). */
    interface Launched extends PostgresServer, AutoCloseable {
        /** Stops the server at once, as a crash would ({@code pg_ctl stop -m immediate}). */
        @Override
        void close();

        /** Makes a standby the primary ({@code pg_ctl promote}), waiting until it is. */
        void promote();
    }

    /**
     * Launches a server of its own from the machine's binaries, for a test that needs settings
     * the shared server cannot have (such as {@code wal_level = replica}).
     *
     * @param name     names its directory, {@code target/test-services/postgres-<name>}
     * @param settings {@code postgresql.conf} lines that replace the test defaults
     */
    static Launched launch(String name, String... settings) {
        return LocalPostgres.start("postgres-" + name, List.of(settings));
    }

    /**
     * {@link #launch(String, String...)} with the server of one major version: the machine's own
     * when it has that version, else one from Maven Central ({@link PostgresBinaries#ofMajor}).
     */
    static Launched launch(String name, int major, String... settings) {
        return LocalPostgres.start("postgres-" + name, List.of(settings), PostgresBinaries.ofMajor(major));
    }

    /**
     * Launches a hot standby of a launched {@code primary}, from a base backup of it, streaming
     * through the physical slot {@code slot} (made by the backup).
     *
     * @param settings {@code postgresql.conf} lines of the standby (such as {@code sync_replication_slots = on})
     */
    static Launched standby(String name, Launched primary, String slot, String... settings) {
        return LocalPostgres.standby("postgres-" + name, primary, slot, List.of(settings), PostgresBinaries.ofMajor(primary.majorVersion()));
    }

    /** The server's major version ({@code server_version_num / 10000}). */
    default int majorVersion() {
        try (Connection c = connect(adminDatabase()); var s = c.createStatement();
             var rs = s.executeQuery("SELECT current_setting('server_version_num')::int / 10000")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the version of " + origin(), e);
        }
    }

    /** The server for this JVM, started on first use. */
    static PostgresServer shared() {
        return Holder.SERVER;
    }

    /** Lazily chooses and starts the shared server. */
    final class Holder {
        private static final PostgresServer SERVER = choose();

        private Holder() {
        }

        private static PostgresServer choose() {
            return ServiceOrigin.choose("SLUICE_TEST_PG_URL", ExternalPostgres::fromUrl, ContainerPostgres::start, LocalPostgres::start);
        }
    }
}
