package io.sluice.schemas.postgres;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Where a PostgreSQL database is and who connects to it. The password is kept out of
 * {@link #toString()} and {@link #display()}, so an endpoint can go into any log line.
 */
public record PgEndpoint(String host, int port, String database, String user, String password, String sslMode) {

    /**
     * Parses {@code postgres://user:password@host:port/database?sslmode=...} (also
     * {@code postgresql://}); the port defaults to 5432, sslmode to {@code prefer}.
     */
    public static PgEndpoint parse(String url) {
        URI uri;
        try {
            uri = URI.create(url.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Not a PostgreSQL URL (" + e.getMessage().replace(url, "<url>")
                    + "); write postgres://user:password@host:5432/database");
        }
        if (!"postgres".equals(uri.getScheme()) && !"postgresql".equals(uri.getScheme())) {
            throw new IllegalArgumentException("A PostgreSQL URL starts with postgres://, e.g. postgres://user:password@host:5432/database");
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("The PostgreSQL URL names no host: write postgres://user:password@host:5432/database");
        }
        String path = uri.getRawPath();
        if (path == null || path.length() <= 1) {
            throw new IllegalArgumentException("The PostgreSQL URL for " + uri.getHost() + " names no database: add /database after the host");
        }
        String user = System.getProperty("user.name");
        String password = "";
        if (uri.getRawUserInfo() != null) {
            String info = uri.getRawUserInfo();
            int colon = info.indexOf(':');
            user = decode(colon < 0 ? info : info.substring(0, colon));
            password = colon < 0 ? "" : decode(info.substring(colon + 1));
        }
        String sslMode = "prefer";
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                if (pair.startsWith("sslmode=")) {
                    sslMode = decode(pair.substring("sslmode=".length()));
                }
            }
        }
        return new PgEndpoint(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), decode(path.substring(1)), user, password, sslMode);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/"
                + java.net.URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** {@code user@host:port/database}, without the password. */
    public String display() {
        return user + "@" + host + ":" + port + "/" + database;
    }

    @Override
    public String toString() {
        return display();
    }
}
