package io.sluice.testing.postgres;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * A server someone else runs, named by a URL such as
 * {@code postgresql://user:password@host:5432/postgres}. The user needs CREATEDB and REPLICATION.
 */
record ExternalPostgres(String host, int port, String user, String password, String adminDatabase) implements PostgresServer {

    static ExternalPostgres fromUrl(String url) {
        String plain = url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url;
        URI uri = URI.create(plain);
        if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
            throw new IllegalArgumentException("SLUICE_TEST_PG_URL must look like postgresql://user:password@host:port/database, got scheme "
                    + uri.getScheme());
        }
        String userInfo = uri.getRawUserInfo();
        if (userInfo == null) {
            throw new IllegalArgumentException("SLUICE_TEST_PG_URL names no user: use postgresql://user:password@host:port/database");
        }
        int colon = userInfo.indexOf(':');
        String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
        String password = colon < 0 ? "" : decode(userInfo.substring(colon + 1));
        String path = uri.getPath();
        String database = path == null || path.length() <= 1 ? "postgres" : path.substring(1);
        return new ExternalPostgres(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), user, password, database);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    @Override
    public String origin() {
        return "SLUICE_TEST_PG_URL (" + host + ":" + port + ")";
    }
}
