package io.sluice.sink.webhook.signing;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * A subscription's signing secret in the Standard Webhooks form: {@code whsec_} followed by the
 * base64 of 24 to 64 random bytes. Its text never appears in {@link #toString()} or in an error.
 */
public final class SigningSecret {

    static final String PREFIX = "whsec_";
    static final int MIN_BYTES = 24;
    static final int MAX_BYTES = 64;

    private final byte[] key;

    private SigningSecret(byte[] key) {
        this.key = key;
    }

    /**
     * Reads a secret.
     *
     * @param name what the secret belongs to, for the error (a subscription, a config key)
     * @throws IllegalArgumentException naming {@code name} and what a secret must look like; the secret itself is not shown
     */
    public static SigningSecret parse(String text, String name) {
        if (text == null || !text.startsWith(PREFIX)) {
            throw new IllegalArgumentException("The signing secret of " + name + " must start with " + PREFIX
                    + " followed by the base64 of " + MIN_BYTES + " to " + MAX_BYTES + " random bytes");
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(text.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("The signing secret of " + name + " is not base64 after " + PREFIX);
        }
        if (key.length < MIN_BYTES || key.length > MAX_BYTES) {
            throw new IllegalArgumentException("The signing secret of " + name + " holds " + key.length + " bytes; it must hold "
                    + MIN_BYTES + " to " + MAX_BYTES);
        }
        return new SigningSecret(key);
    }

    /** A secret of fresh random bytes, in its text form. */
    public static String generate(SecureRandom random) {
        byte[] key = new byte[32];
        random.nextBytes(key);
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /** The secret's text, to keep it in the state database; never for a log line or an answer. */
    public String text() {
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    byte[] key() {
        return key.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SigningSecret s && MessageDigest.isEqual(key, s.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return PREFIX + "…(hidden)";
    }
}
