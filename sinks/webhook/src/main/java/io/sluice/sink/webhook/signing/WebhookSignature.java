package io.sluice.sink.webhook.signing;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.StringJoiner;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code webhook-signature} header of Standard Webhooks 1.0: HMAC-SHA256 of
 * {@code <webhook-id>.<webhook-timestamp>.<body>} under each of the subscription's secrets,
 * each written {@code v1,<base64>}, separated by spaces. While a secret is rotated the old and
 * the new one sign side by side, so a receiver that knows either accepts the delivery.
 */
public final class WebhookSignature {

    private static final String ALGORITHM = "HmacSHA256";

    private WebhookSignature() {
    }

    /**
     * @param id        the delivery's {@code webhook-id} (the same on every attempt)
     * @param timestamp the attempt's {@code webhook-timestamp}, seconds since the Unix epoch
     * @param body      the request body, exactly as sent
     * @param secrets   one or more secrets, each signing once
     */
    public static String header(String id, long timestamp, byte[] body, List<SigningSecret> secrets) {
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("A signature needs at least one secret");
        }
        if (id.indexOf('.') >= 0) {
            // The id ends at the first dot of the signed content; a dot in it would let two deliveries sign the same bytes.
            throw new IllegalArgumentException("A webhook-id may not contain a dot: " + id);
        }
        byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
        StringJoiner header = new StringJoiner(" ");
        for (SigningSecret secret : secrets) {
            header.add("v1," + Base64.getEncoder().encodeToString(hmac(secret.key(), prefix, body)));
        }
        return header.toString();
    }

    private static byte[] hmac(byte[] key, byte[] prefix, byte[] body) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            mac.update(prefix);
            return mac.doFinal(body);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }
}
