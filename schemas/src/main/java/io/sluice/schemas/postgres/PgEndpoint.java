package io.sluice.schemas.postgres;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a PostgreSQL database is and who connects to it. The password is kept out of
 * {@link #toString()} and {@link #display()}, so an endpoint can go into any log line.
 *
 * <p>{@code host} may list several servers, {@code a,b:5433} (a primary and its standbys, as
 * libpq's {@code host=a,b} does): connections then go to whichever of them is the primary at the
 * time, so a pipeline follows a failover. A host without a port has {@code port}.
 */
public record PgEndpoint(String host, int port, String database, String user, String password, String sslMode) {

    /** One server of the endpoint. */
    public record Server(String host, int port) {
        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** The servers {@code host} names, in order. */
    public List<Server> servers() {
        List<Server> servers = new ArrayList<>();
        for (String entry : host.split(",")) {
            String e = entry.strip();
            if (e.isEmpty()) {
                continue;
            }
            int close = e.lastIndexOf(']');
            int colon = e.lastIndexOf(':');
            boolean bracketed = e.startsWith("[");
            boolean hasPort = bracketed ? colon > close : colon > 0 && e.indexOf(':') == colon;
            String name = hasPort ? e.substring(0, colon) : e;
            if (name.startsWith("[") && name.endsWith("]")) {
                name = name.substring(1, name.length() - 1);
            }
            int p = port;
            if (hasPort) {
                try {
                    p = Integer.parseInt(e.substring(colon + 1));
                } catch (NumberFormatException x) {
                    throw new IllegalArgumentException("Host " + e + " has no valid port: write host:5432 or host");
                }
            }
            servers.add(new Server(name, p));
        }
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("No PostgreSQL host given");
        }
        return servers;
    }

    /** Whether the endpoint lists several servers, of which the primary is connected to. */
    public boolean severalServers() {
        return servers().size() > 1;
    }

    /** The servers as {@code host:port,host:port}, for messages. */
    public String where() {
        return String.join(",", servers().stream().map(Server::toString).toList());
    }

    /**
     * Parses {@code postgres://user:password@host:port/database?sslmode=...} (also
     * {@code postgresql://}); the port defaults to 5432, sslmode to {@code prefer}.
     */
    public static PgEndpoint parse(String url) {
        String text = url.strip();
        int scheme = text.indexOf("://");
        int authorityEnd = scheme < 0 ? -1 : indexOfAny(text, scheme + 3, "/?#");
        String authority = scheme < 0 ? "" : text.substring(scheme + 3, authorityEnd < 0 ? text.length() : authorityEnd);
        int at = authority.lastIndexOf('@');
        String hostList = authority.substring(at + 1);
        if (hostList.contains(",")) {
            // java.net.URI takes one host; parse with the first, then put the whole list back.
            String first = hostList.substring(0, hostList.indexOf(','));
            PgEndpoint one = parse(text.substring(0, scheme + 3) + authority.substring(0, at + 1) + first
                    + (authorityEnd < 0 ? "" : text.substring(authorityEnd)));
            PgEndpoint listed = new PgEndpoint(hostList, 5432, one.database(), one.user(), one.password(), one.sslMode());
            String explicit = String.join(",", listed.servers().stream().map(Server::toString).toList());
            return new PgEndpoint(explicit, listed.servers().get(0).port(), one.database(), one.user(), one.password(), one.sslMode());
        }
        URI uri;
        try {
            uri = URI.create(text);
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

    /** The JDBC URL; with several servers, one that connects to whichever is the primary. */
    public String jdbcUrl() {
        return "jdbc:postgresql://" + where() + "/" + java.net.URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20")
                + (severalServers() ? "?targetServerType=primary" : "");
    }

    /** {@code user@host:port/database}, without the password. */
    public String display() {
        return user + "@" + where() + "/" + database;
    }

    private static int indexOfAny(String text, int from, String chars) {
        for (int i = from; i < text.length(); i++) {
            if (chars.indexOf(text.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return display();
    }
}
