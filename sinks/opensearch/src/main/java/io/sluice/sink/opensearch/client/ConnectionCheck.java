package io.sluice.sink.opensearch.client;

import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.Map;

import javax.net.ssl.SSLException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The sink's first request: whether the cluster answers, over TLS if asked, to these
 * credentials, and runs a version the sink writes for. A failure is one message that says what
 * is wrong and what to do.
 */
public final class ConnectionCheck {

    /** The oldest OpenSearch the sink writes for: flat_object and external versions on _bulk as used here. */
    static final int OLDEST_MAJOR = 2;
    static final int OLDEST_MINOR = 7;

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConnectionCheck() {
    }

    /**
     * Asks the cluster who it is.
     *
     * @return its version, e.g. {@code 2.19.6}
     * @throws org.apache.kafka.connect.errors.ConnectException saying what is wrong and what to do
     */
    public static String check(ClusterClient client) {
        ClusterAddress address = client.address();
        ClusterClient.Answer answer;
        try {
            answer = client.send("GET", "/", Map.of(), null);
        } catch (IOException e) {
            throw new org.apache.kafka.connect.errors.ConnectException(unreachable(address, e), e);
        }
        if (address.aws() != null && (answer.status() == 401 || answer.status() == 403)) {
            throw new org.apache.kafka.connect.errors.ConnectException("OpenSearch at " + address.display() + " refused requests signed "
                    + "with " + address.signIn() + " (" + answer.status() + ": " + answer.brief() + "): check the keys and the region "
                    + "(connection.aws.*), that the domain's access policy allows the key's IAM identity es:ESHttp* on the domain, "
                    + "and, with fine-grained access control, that the identity is mapped to a role with the index permissions the "
                    + "connector's documentation lists");
        }
        if (answer.status() == 401) {
            throw new org.apache.kafka.connect.errors.ConnectException("OpenSearch at " + address.display() + " refused "
                    + address.signIn() + " (401): check the user and password (connection.username, connection.password) or "
                    + "the API key (connection.api.key)");
        }
        if (answer.status() == 403) {
            throw new org.apache.kafka.connect.errors.ConnectException("OpenSearch at " + address.display() + " lets " + address.signIn()
                    + " in but not read the cluster's information (403): grant it the cluster permission cluster:monitor/main "
                    + "and the index permissions the connector's documentation lists");
        }
        if (!answer.ok()) {
            throw new org.apache.kafka.connect.errors.ConnectException("OpenSearch at " + address.display() + " answered "
                    + answer.status() + " to GET /: " + answer.brief());
        }
        JsonNode info;
        try {
            info = JSON.readTree(answer.body());
        } catch (IOException e) {
            throw new org.apache.kafka.connect.errors.ConnectException(address.display() + " is no OpenSearch node (GET / answered "
                    + answer.brief() + "): check connection.url");
        }
        JsonNode version = info.path("version");
        String number = version.path("number").asText("");
        String distribution = version.path("distribution").asText("");
        if (!distribution.equals("opensearch")) {
            throw new org.apache.kafka.connect.errors.ConnectException(address.display() + " runs " + (distribution.isEmpty()
                    ? "Elasticsearch " + number : distribution + " " + number) + ", not OpenSearch: point connection.url at an "
                    + "OpenSearch cluster " + OLDEST_MAJOR + "." + OLDEST_MINOR + " or newer");
        }
        String[] parts = number.split("[.-]");
        int major = parts.length > 0 ? parse(parts[0]) : 0;
        int minor = parts.length > 1 ? parse(parts[1]) : 0;
        if (major < OLDEST_MAJOR || (major == OLDEST_MAJOR && minor < OLDEST_MINOR)) {
            throw new org.apache.kafka.connect.errors.ConnectException("OpenSearch at " + address.display() + " is version " + number
                    + "; the sink needs " + OLDEST_MAJOR + "." + OLDEST_MINOR + " or newer (for flat_object fields): upgrade the cluster");
        }
        return number;
    }

    private static String unreachable(ClusterAddress address, IOException e) {
        Throwable cause = e;
        while (cause.getCause() != null && !(cause instanceof SSLException) && !(cause instanceof UnknownHostException)) {
            cause = cause.getCause();
        }
        if (cause instanceof SSLException) {
            return "TLS with OpenSearch at " + address.display() + " failed (" + cause.getMessage() + "). If the cluster's certificate "
                    + "is signed by an authority the JVM does not trust, give its certificate in connection.tls.ca.file; if it "
                    + "names another host, fix the URL's host (or, for a test cluster, set connection.tls.hostname.verification=false); "
                    + "if the cluster speaks plain HTTP, use an http:// URL";
        }
        if (cause instanceof UnknownHostException) {
            return "Cannot resolve the host of " + address.display() + ": check connection.url";
        }
        String what = e instanceof ConnectException ? "nothing listens there" : e.getClass().getSimpleName() + ": " + e.getMessage();
        return "Cannot reach OpenSearch at " + address.display() + " (" + what + "). Check that the cluster runs and that "
                + "connection.url names its host and HTTP port (9200 by default)";
    }

    private static int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

}
