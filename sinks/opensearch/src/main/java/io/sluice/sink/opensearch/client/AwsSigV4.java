package io.sluice.sink.opensearch.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs requests the way Amazon OpenSearch Service checks them: AWS Signature Version 4 with
 * HMAC-SHA256, for the service {@code es}. Each request gets {@code x-amz-date},
 * {@code x-amz-content-sha256} (the body's hash), {@code x-amz-security-token} when the
 * credentials are temporary, and the {@code Authorization} header signing those and {@code host}.
 * The path is encoded once more for the canonical request, as AWS does for every service but S3.
 */
public final class AwsSigV4 {

    /** Access key, secret and, for temporary credentials, the session token. {@link #toString()} shows the key id only. */
    public record Credentials(String accessKeyId, String secretAccessKey, String sessionToken) {
        @Override
        public String toString() {
            return "AWS access key " + accessKeyId;
        }
    }

    static final String SERVICE = "es";
    private static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final HexFormat HEX = HexFormat.of();

    private final String region;
    private final String service;
    private final Credentials credentials;
    private final Clock clock;

    public AwsSigV4(String region, Credentials credentials) {
        this(region, SERVICE, credentials, Clock.systemUTC());
    }

    AwsSigV4(String region, String service, Credentials credentials, Clock clock) {
        this.region = region;
        this.service = service;
        this.credentials = credentials;
        this.clock = clock;
    }

    public String region() {
        return region;
    }

    public Credentials credentials() {
        return credentials;
    }

    /**
     * The headers that sign a request, {@code Host} among them (the client must send exactly it).
     *
     * @param host   the Host header: the host, with the port when it is not the scheme's default
     * @param path   the path as sent (percent-encoded)
     * @param query  the query parameters, not encoded
     * @param body   the body's bytes (the first {@code length}); null for none
     */
    public List<Map.Entry<String, String>> headers(String method, String host, String path, Map<String, String> query, byte[] body,
                                                   int length) {
        String payloadHash = hex(sha256(body == null ? new byte[0] : body, body == null ? 0 : length));
        TreeMap<String, String> signed = new TreeMap<>();
        signed.put("host", host);
        signed.put("x-amz-date", AMZ_DATE.format(clock.instant()));
        signed.put("x-amz-content-sha256", payloadHash);
        if (credentials.sessionToken() != null) {
            signed.put("x-amz-security-token", credentials.sessionToken());
        }
        String authorization = authorization(method, canonicalUri(path), canonicalQuery(query), signed, payloadHash);
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        signed.forEach((name, value) -> headers.add(Map.entry(name.equals("host") ? "Host" : name, value)));
        headers.add(Map.entry("Authorization", authorization));
        return headers;
    }

    /**
     * The {@code Authorization} header value.
     *
     * @param signed the headers to sign, by lower-case name ({@code host} and {@code x-amz-date} among them)
     */
    String authorization(String method, String canonicalUri, String canonicalQuery, TreeMap<String, String> signed, String payloadHash) {
        String amzDate = signed.get("x-amz-date");
        String day = amzDate.substring(0, 8);
        String scope = day + "/" + region + "/" + service + "/aws4_request";
        String signedNames = String.join(";", signed.keySet());
        String stringToSign = ALGORITHM + "\n" + amzDate + "\n" + scope + "\n"
                + hex(sha256(canonicalRequest(method, canonicalUri, canonicalQuery, signed, payloadHash)));
        byte[] key = hmac(("AWS4" + credentials.secretAccessKey()).getBytes(StandardCharsets.UTF_8), day);
        key = hmac(key, region);
        key = hmac(key, service);
        key = hmac(key, "aws4_request");
        return ALGORITHM + " Credential=" + credentials.accessKeyId() + "/" + scope + ", SignedHeaders=" + signedNames + ", Signature="
                + hex(hmac(key, stringToSign));
    }

    static String canonicalRequest(String method, String canonicalUri, String canonicalQuery, TreeMap<String, String> signed,
                                   String payloadHash) {
        StringBuilder request = new StringBuilder(method).append('\n').append(canonicalUri).append('\n').append(canonicalQuery).append('\n');
        signed.forEach((name, value) -> request.append(name).append(':').append(value.strip().replaceAll(" +", " ")).append('\n'));
        return request.append('\n').append(String.join(";", signed.keySet())).append('\n').append(payloadHash).toString();
    }

    /** The path as sent, each segment encoded once more; the empty path is {@code /}. */
    static String canonicalUri(String path) {
        if (path == null || path.isEmpty()) {
            return "/";
        }
        StringJoiner uri = new StringJoiner("/");
        for (String segment : path.split("/", -1)) {
            uri.add(encode(segment));
        }
        return uri.toString();
    }

    /** The query's parameters encoded and sorted by name, then value. */
    static String canonicalQuery(Map<String, String> query) {
        TreeMap<String, List<String>> sorted = new TreeMap<>();
        query.forEach((k, v) -> sorted.computeIfAbsent(encode(k), x -> new ArrayList<>()).add(encode(v == null ? "" : v)));
        List<String> pairs = new ArrayList<>();
        sorted.forEach((k, values) -> values.stream().sorted().forEach(v -> pairs.add(k + "=" + v)));
        return String.join("&", pairs);
    }

    /** RFC 3986 percent-encoding: all but the unreserved characters, upper-case hex. */
    static String encode(String s) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    /** The Host header a request to this node carries: the port only when it is not the scheme's default. */
    public static String hostHeader(URI node) {
        boolean defaultPort = node.getPort() == -1 || (node.getScheme().equals("https") && node.getPort() == 443)
                || (node.getScheme().equals("http") && node.getPort() == 80);
        return defaultPort ? node.getHost() : node.getHost() + ":" + node.getPort();
    }

    private static byte[] sha256(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        return sha256(bytes, bytes.length);
    }

    private static byte[] sha256(byte[] bytes, int length) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(bytes, 0, length);
            return digest.digest();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    private static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }
}
