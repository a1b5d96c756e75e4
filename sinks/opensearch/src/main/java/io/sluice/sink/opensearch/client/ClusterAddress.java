package io.sluice.sink.opensearch.client;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Where the cluster is and how to sign in: its nodes' base URLs (secrets taken out), the
 * {@code Authorization} header if any, and the TLS settings. {@link #toString()} never shows a secret.
 *
 * @param nodes         base URLs without user info, e.g. {@code https://search:9200}
 * @param authorization the header value ({@code Basic …} or {@code ApiKey …}); null for none
 * @param caFile        a PEM file of trusted authorities; null for the JVM's
 */
public record ClusterAddress(List<URI> nodes, String authorization, String caFile, boolean verifyHostname, int timeoutMillis) {

    /**
     * @param urls     one URL or several separated by commas; the first's user info is used when no user is given
     * @param user     overrides the URL's user; null to keep it
     * @param password overrides the URL's password; null to keep it
     * @param apiKey   an API key, used instead of a user; null for none
     */
    public static ClusterAddress parse(String urls, String user, String password, String apiKey, String caFile, boolean verifyHostname,
                                       int timeoutMillis) {
        List<URI> nodes = new ArrayList<>();
        String urlUser = null;
        String urlPassword = null;
        for (String one : urls.split(",")) {
            URI uri = URI.create(one.trim());
            if (uri.getRawUserInfo() != null && urlUser == null) {
                String[] parts = uri.getRawUserInfo().split(":", 2);
                urlUser = decode(parts[0]);
                urlPassword = parts.length > 1 ? decode(parts[1]) : null;
            }
            int port = uri.getPort() != -1 ? uri.getPort() : uri.getScheme().equals("https") ? 443 : 9200;
            nodes.add(URI.create(uri.getScheme() + "://" + hostPart(uri.getHost()) + ":" + port));
        }
        String who = user != null && !user.isBlank() ? user : urlUser;
        String secret = password != null ? password : urlPassword;
        String authorization = null;
        if (apiKey != null && !apiKey.isBlank()) {
            authorization = "ApiKey " + apiKey.trim();
        } else if (who != null) {
            authorization = "Basic " + Base64.getEncoder().encodeToString((who + ":" + (secret == null ? "" : secret)).getBytes(StandardCharsets.UTF_8));
        }
        return new ClusterAddress(List.copyOf(nodes), authorization, caFile == null || caFile.isBlank() ? null : caFile, verifyHostname,
                timeoutMillis);
    }

    private static String hostPart(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** A URL as it may be shown: user info removed. */
    public static String withoutSecrets(String url) {
        return url.replaceAll("//[^/@]*@", "//");
    }

    /** The nodes, for messages. */
    public String display() {
        return nodes.stream().map(URI::toString).collect(Collectors.joining(","));
    }

    public boolean tls() {
        return nodes.stream().anyMatch(n -> n.getScheme().equals("https"));
    }

    /** How the sink signs in, for messages: never the secret. */
    public String signIn() {
        if (authorization == null) {
            return "no authentication";
        }
        return authorization.startsWith("ApiKey") ? "an API key" : "user " + basicUser();
    }

    private String basicUser() {
        String decoded = new String(Base64.getDecoder().decode(authorization.substring("Basic ".length())), StandardCharsets.UTF_8);
        return decoded.substring(0, decoded.indexOf(':'));
    }

    @Override
    public String toString() {
        return display() + " (" + signIn() + ")";
    }
}
