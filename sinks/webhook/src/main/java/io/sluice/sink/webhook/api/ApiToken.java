package io.sluice.sink.webhook.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The API's bearer token. A request's token is compared by the SHA-256 of both, in constant
 * time, so neither the token's characters nor its length show in how long a refusal takes.
 */
public final class ApiToken {

    /** Tokens shorter than this are refused at start: guessable. */
    public static final int MIN_LENGTH = 16;

    private final byte[] digest;

    public ApiToken(String token) {
        if (token == null || token.length() < MIN_LENGTH) {
            throw new IllegalArgumentException("The webhook API's token must have at least " + MIN_LENGTH + " characters; make one with "
                    + "e.g. openssl rand -hex 32");
        }
        this.digest = sha256(token);
    }

    /** Whether an {@code Authorization} header carries the token. */
    public boolean admits(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            MessageDigest.isEqual(digest, sha256("")); // the same work as a wrong token
            return false;
        }
        return MessageDigest.isEqual(digest, sha256(authorization.substring(7).trim()));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "ApiToken[hidden]";
    }
}
