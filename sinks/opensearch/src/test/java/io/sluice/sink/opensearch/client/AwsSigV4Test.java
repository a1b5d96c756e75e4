package io.sluice.sink.opensearch.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/**
 * Signature Version 4 against AWS's published test suite (its example credentials, region
 * us-east-1, service "service", 2015-08-30T12:36:00Z): the Authorization header must be exactly
 * the published one, so the signing key, the string to sign and the canonical request (sorted
 * query, header names, the payload's hash) are right. Then what the sink adds for OpenSearch: the
 * body's hash and the session token signed, the path encoded once more.
 */
class AwsSigV4Test {

    private static final AwsSigV4.Credentials EXAMPLE = new AwsSigV4.Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", null);
    private static final AwsSigV4 SIGNER = new AwsSigV4("us-east-1", "service", EXAMPLE, Clock.fixed(Instant.parse("2015-08-30T12:36:00Z"),
            ZoneOffset.UTC));
    private static final String EMPTY_HASH = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static String suite(String method, Map<String, String> query, Map<String, String> extraHeaders, String payloadHash) {
        TreeMap<String, String> headers = new TreeMap<>(extraHeaders);
        headers.put("host", "example.amazonaws.com");
        headers.put("x-amz-date", "20150830T123600Z");
        return SIGNER.authorization(method, AwsSigV4.canonicalUri("/"), AwsSigV4.canonicalQuery(query), headers, payloadHash);
    }

    private static String published(String signedHeaders, String signature) {
        return "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=" + signedHeaders
                + ", Signature=" + signature;
    }

    @Test
    void getVanilla() {
        assertThat(suite("GET", Map.of(), Map.of(), EMPTY_HASH))
                .isEqualTo(published("host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"));
    }

    @Test
    void getVanillaQueryOrderKeyCase() {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("Param2", "value2");
        query.put("Param1", "value1");
        assertThat(AwsSigV4.canonicalQuery(query)).isEqualTo("Param1=value1&Param2=value2");
        assertThat(suite("GET", query, Map.of(), EMPTY_HASH))
                .isEqualTo(published("host;x-amz-date", "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"));
    }

    @Test
    void getVanillaEmptyQueryKey() {
        assertThat(suite("GET", Map.of("Param1", "value1"), Map.of(), EMPTY_HASH))
                .isEqualTo(published("host;x-amz-date", "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"));
    }

    @Test
    void postVanilla() {
        assertThat(suite("POST", Map.of(), Map.of(), EMPTY_HASH))
                .isEqualTo(published("host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"));
    }

    @Test
    void postXWwwFormUrlencoded() {
        String bodyHash = "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e";
        assertThat(suite("POST", Map.of(), Map.of("content-type", "application/x-www-form-urlencoded"), bodyHash))
                .isEqualTo(published("content-type;host;x-amz-date", "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"));
        // The hash the published vector gives is the body's.
        byte[] body = "Param1=value1".getBytes(StandardCharsets.UTF_8);
        List<Map.Entry<String, String>> headers = SIGNER.headers("POST", "example.amazonaws.com", "/", Map.of(), body, body.length);
        assertThat(header(headers, "x-amz-content-sha256")).isEqualTo(bodyHash);
    }

    @Test
    void openSearchRequestsSignTheBodyHashAndTheSessionTokenAndEncodeThePathTwice() {
        AwsSigV4 signer = new AwsSigV4("eu-west-1", "es", new AwsSigV4.Credentials("AKID", "secret", "token=="),
                Clock.fixed(Instant.parse("2026-11-27T10:00:00Z"), ZoneOffset.UTC));
        byte[] body = "{\"a\":1}\n".getBytes(StandardCharsets.UTF_8);
        List<Map.Entry<String, String>> headers = signer.headers("POST", "search.eu-west-1.es.amazonaws.com", "/orders/_doc/a%20b",
                Map.of("refresh", "true"), body, body.length);
        assertThat(header(headers, "Host")).isEqualTo("search.eu-west-1.es.amazonaws.com");
        assertThat(header(headers, "x-amz-date")).isEqualTo("20261127T100000Z");
        assertThat(header(headers, "x-amz-security-token")).isEqualTo("token==");
        assertThat(header(headers, "Authorization")).startsWith("AWS4-HMAC-SHA256 Credential=AKID/20261127/eu-west-1/es/aws4_request, "
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=");
        assertThat(AwsSigV4.canonicalUri("/orders/_doc/a%20b")).isEqualTo("/orders/_doc/a%2520b");
        assertThat(AwsSigV4.canonicalUri("/public.orders_v*/_alias")).isEqualTo("/public.orders_v%2A/_alias");
        assertThat(AwsSigV4.canonicalUri("")).isEqualTo("/");
        // Only the first bytes of a buffer are the body.
        byte[] padded = java.util.Arrays.copyOf(body, 64);
        assertThat(header(signer.headers("POST", "h", "/", Map.of(), padded, body.length), "x-amz-content-sha256"))
                .isEqualTo(header(signer.headers("POST", "h", "/", Map.of(), body, body.length), "x-amz-content-sha256"));
    }

    @Test
    void credentialsNeverShowTheSecret() {
        assertThat(new AwsSigV4.Credentials("AKID", "very-secret", "tok").toString()).contains("AKID").doesNotContain("very-secret")
                .doesNotContain("tok");
    }

    private static String header(List<Map.Entry<String, String>> headers, String name) {
        return headers.stream().filter(e -> e.getKey().equals(name)).map(Map.Entry::getValue).findFirst().orElse(null);
    }
}
