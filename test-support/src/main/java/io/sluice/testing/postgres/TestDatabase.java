package io.sluice.testing.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/** A database of its own for one test class, on the shared {@link PostgresServer}. */
public final class TestDatabase {

    private final PostgresServer server;
    private final String name;

    TestDatabase(PostgresServer server, String name) {
        this.server = server;
        this.name = name;
    }

    public String name() {
        return name;
    }

    public PostgresServer server() {
        return server;
    }

    public String host() {
        return server.host();
    }

    public int port() {
        return server.port();
    }

    public String user() {
        return server.user();
    }

    public String password() {
        return server.password();
    }

    public String jdbcUrl() {
        return server.jdbcUrl(name);
    }

    /** A libpq-style URL with credentials, as the {@code sluice} CLI and pg_dump take it. */
    public String url() {
        return "postgresql://" + server.user() + ":" + server.password() + "@" + server.host() + ":" + server.port() + "/" + name;
    }

    public Connection connect() throws SQLException {
        return server.connect(name);
    }

    /** The connection settings of a source connector reading this database (Debezium's key names); a mutable map. */
    public java.util.Map<String, String> sourceConnection() {
        java.util.Map<String, String> props = new java.util.HashMap<>();
        props.put("database.hostname", host());
        props.put("database.port", Integer.toString(port()));
        props.put("database.user", user());
        props.put("database.password", password());
        props.put("database.dbname", name);
        props.put("database.sslmode", "disable");
        return props;
    }

    /** A connection in replication mode (for the streaming replication protocol). */
    public Connection connectForReplication() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", server.user());
        props.setProperty("password", server.password());
        props.setProperty("replication", "database");
        props.setProperty("assumeMinServerVersion", "10");
        props.setProperty("preferQueryMode", "simple");
        return java.sql.DriverManager.getConnection(jdbcUrl(), props);
    }

    /** Runs statements in autocommit mode, for test setup. */
    public void execute(String... statements) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    /** The first column of the first row of a query, as text. */
    public String queryText(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The first column of the first row of a query, as a number. */
    public long queryLong(String sql) throws SQLException {
        return Long.parseLong(queryText(sql));
    }

    /**
     * Waits until a query gives here what it gives on {@code source} (a query that fails here, as on a
     * table not made yet, is not there yet); fails with both answers after {@code within}.
     */
    public void awaitSameAs(TestDatabase source, String query, java.time.Duration within, String what) throws Exception {
        String expected = source.queryText(query);
        long deadline = System.nanoTime() + within.toNanos();
        String actual;
        while (true) {
            try {
                actual = queryText(query);
            } catch (SQLException e) {
                actual = e.getMessage();
            }
            if (java.util.Objects.equals(actual, expected) || System.nanoTime() >= deadline) {
                break;
            }
            Thread.sleep(250);
        }
        if (!java.util.Objects.equals(actual, expected)) {
            throw new AssertionError(what + " within " + within.toSeconds() + " s: expected " + expected + " but was " + actual);
        }
    }

    /** Waits until a table's {@link #checksum} here is the one on {@code source}. */
    public void awaitChecksumOf(TestDatabase source, String table, java.time.Duration within) throws Exception {
        awaitSameAs(source, checksumQuery(table), within, "checksum of " + table + " on the target");
    }

    /** A table's row count and a digest of its rows' text in order, equal for equal contents whatever the physical order. */
    public String checksum(String table) throws SQLException {
        return queryText(checksumQuery(table));
    }

    private static String checksumQuery(String table) {
        return "SELECT count(*) || ' ' || coalesce(md5(string_agg(h, '' ORDER BY h)), '-') FROM (SELECT md5(t::text) AS h FROM "
                + table + " t) rows";
    }
}
