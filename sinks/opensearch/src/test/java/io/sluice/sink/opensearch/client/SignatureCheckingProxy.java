package io.sluice.sink.opensearch.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.testing.opensearch.FaultyProxy;
import io.sluice.testing.opensearch.OpenSearchNode;

/**
 * Stands in front of the test node as Amazon OpenSearch Service does: a request whose
 * Signature Version 4 does not hold — recomputed from what arrived on the wire (method, raw path,
 * query, the signed headers as received, the body's bytes) with the proxy's own copy of the keys
 * — is answered 403 and never reaches the node. So a mismatch between what the sink signs and
 * what its HTTP client sends (the Host header's port, the path's encoding, a query parameter the
 * transport adds, a body sent otherwise) fails the test.
 */
public final class SignatureCheckingProxy implements AutoCloseable {

    private static final Pattern AUTHORIZATION = Pattern.compile(
            "AWS4-HMAC-SHA256 Credential=([^/]+)/(\\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})");

    private final OpenSearchNode node;
    private final String region;
    private final AwsSigV4.Credentials credentials;
    private final HttpClient client = HttpClient.newHttpClient();
    private final ExecutorService threads = Executors.newFixedThreadPool(8);
    private final HttpServer server;
    private final AtomicLong verified = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile String lastRefusal;

    public SignatureCheckingProxy(OpenSearchNode node, String region, AwsSigV4.Credentials credentials) throws IOException {
        this.node = node;
        this.region = region;
        this.credentials = credentials;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    public String httpUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public long verified() {
        return verified.get();
    }

    public long refused() {
        return refused.get();
    }

    /** Why the last refused request was refused; null when none was. */
    public String lastRefusal() {
        return lastRefusal;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            String problem = problem(exchange, body);
            if (problem != null) {
                refused.incrementAndGet();
                lastRefusal = exchange.getRequestMethod() + " " + exchange.getRequestURI() + ": " + problem;
                FaultyProxy.reply(exchange, exchange.getRequestMethod(), 403, ("{\"message\":\"The request signature we calculated does not match the signature you provided: "
                        + problem.replace("\"", "'").replace("\n", "\\n") + "\"}").getBytes(StandardCharsets.UTF_8));
                return;
            }
            verified.incrementAndGet();
            HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(node.httpUrl() + exchange.getRequestURI().toString()))
                    .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            if (type != null) {
                forward.header("Content-Type", type);
            }
            HttpResponse<byte[]> answer = client.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
            FaultyProxy.reply(exchange, exchange.getRequestMethod(), answer.statusCode(), answer.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What is wrong with the request's signature; null when it holds. */
    private String problem(HttpExchange exchange, byte[] body) {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization == null) {
            return "no Authorization header";
        }
        Matcher m = AUTHORIZATION.matcher(authorization);
        if (!m.matches()) {
            return "not a Signature Version 4 header: " + authorization;
        }
        if (!m.group(1).equals(credentials.accessKeyId()) || !m.group(3).equals(region) || !m.group(4).equals(AwsSigV4.SERVICE)) {
            return "credential scope " + m.group(1) + "/" + m.group(3) + "/" + m.group(4) + " is not " + credentials.accessKeyId() + "/"
                    + region + "/" + AwsSigV4.SERVICE;
        }
        TreeMap<String, String> signed = new TreeMap<>();
        for (String name : m.group(5).split(";")) {
            List<String> values = exchange.getRequestHeaders().get(name);
            if (values == null || values.size() != 1) {
                return "signed header " + name + " arrived " + (values == null ? "missing" : values.size() + " times");
            }
            signed.put(name, values.get(0));
        }
        for (String required : new String[] {"host", "x-amz-date", "x-amz-content-sha256"}) {
            if (!signed.containsKey(required)) {
                return required + " is not signed";
            }
        }
        if (!signed.get("x-amz-date").startsWith(m.group(2))) {
            return "x-amz-date " + signed.get("x-amz-date") + " is not of the credential's day " + m.group(2);
        }
        String bodyHash = java.util.HexFormat.of().formatHex(sha256(body));
        if (!bodyHash.equals(signed.get("x-amz-content-sha256"))) {
            return "x-amz-content-sha256 is not the hash of the body that arrived";
        }
        AwsSigV4 verifier = new AwsSigV4(region, AwsSigV4.SERVICE, credentials, java.time.Clock.systemUTC());
        String expected = verifier.authorization(exchange.getRequestMethod(), AwsSigV4.canonicalUri(exchange.getRequestURI().getRawPath()),
                AwsSigV4.canonicalQuery(query(exchange.getRequestURI().getRawQuery())), signed, bodyHash);
        return expected.equals(authorization) ? null : "signature differs; canonical request here:\n"
                + AwsSigV4.canonicalRequest(exchange.getRequestMethod(), AwsSigV4.canonicalUri(exchange.getRequestURI().getRawPath()),
                AwsSigV4.canonicalQuery(query(exchange.getRequestURI().getRawQuery())), signed, bodyHash);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> query = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return query;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            query.put(decode(name), decode(value));
        }
        return query;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static byte[] sha256(byte[] body) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(body);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
