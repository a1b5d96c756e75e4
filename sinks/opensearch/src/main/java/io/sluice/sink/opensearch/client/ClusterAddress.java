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
 * @param aws           signs every request with AWS Signature Version 4 (Amazon OpenSearch Service); null for none
 */
public record ClusterAddress(List<URI> nodes, String authorization, String caFile, boolean verifyHostname, int timeoutMillis,
                             AwsSigV4 aws) {

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
                timeoutMillis, null);
    }

    /**
     * The same address with requests signed for Amazon OpenSearch Service.
     *
     * @throws IllegalArgumentException when a user or API key is given too (one way to sign in), or several nodes
     *                                  (a domain has one endpoint, which the signature names)
     */
    public ClusterAddress signedWith(AwsSigV4 signer) {
        if (authorization != null) {
            throw new IllegalArgumentException("requests are signed with AWS Signature Version 4 (connection.aws.region is set): leave out the "
                    + "user, password and API key (in connection.url too)");
        }
        if (nodes.size() != 1) {
            throw new IllegalArgumentException("give the domain's one endpoint: a signed request names its host, so requests cannot go "
                    + "round several URLs");
        }
        return new ClusterAddress(nodes, null, caFile, verifyHostname, timeoutMillis, signer);
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
        if (aws != null) {
            return "AWS Signature Version 4 with " + aws.credentials() + " in " + aws.region();
        }
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
