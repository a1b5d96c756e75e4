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

    /** A table's row count and a digest of its rows' text in order, equal for equal contents whatever the physical order. */
    public String checksum(String table) throws SQLException {
        return queryText("SELECT count(*) || ' ' || coalesce(md5(string_agg(h, '' ORDER BY h)), '-') FROM (SELECT md5(t::text) AS h FROM "
                + table + " t) rows");
    }
}
