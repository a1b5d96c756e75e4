package io.sluice.testing.postgres;

import org.testcontainers.containers.PostgreSQLContainer;

/** PostgreSQL in a Testcontainers container, for machines with a Docker engine. */
final class ContainerPostgres implements PostgresServer {

    static final String IMAGE = "postgres:16-alpine";

    private final PostgreSQLContainer<?> container;

    private ContainerPostgres(PostgreSQLContainer<?> container) {
        this.container = container;
    }

    @SuppressWarnings("resource") // stopped by Testcontainers' reaper when the JVM exits
    static ContainerPostgres start() {
        PostgreSQLContainer<?> container = new PostgreSQLContainer<>(IMAGE)
                .withUsername("sluice")
                .withPassword("sluice-test")
                .withDatabaseName("postgres")
                .withCommand("postgres", "-c", "wal_level=logical", "-c", "max_replication_slots=32",
                        "-c", "max_wal_senders=32", "-c", "max_connections=200", "-c", "fsync=off");
        container.start();
        return new ContainerPostgres(container);
    }

    @Override
    public String host() {
        return container.getHost();
    }

    @Override
    public int port() {
        return container.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT);
    }

    @Override
    public String user() {
        return container.getUsername();
    }

    @Override
    public String password() {
        return container.getPassword();
    }

    @Override
    public String adminDatabase() {
        return "postgres";
    }

    @Override
    public String origin() {
        return "Testcontainers " + IMAGE;
    }
}
