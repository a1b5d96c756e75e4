package io.sluice.testing.webhook;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A receiver's check of a delivery, written from the Standard Webhooks 1.0 specification alone
 * and sharing no code with the signer: the secret after {@code whsec_} is base64, the signed
 * content is {@code id.timestamp.body}, the header holds space-separated {@code version,signature}
 * pairs of which one {@code v1} must match (compared in constant time), and the timestamp must be
 * within five minutes of the receiver's clock.
 */
public final class SpecVerifier {

    public static final long TOLERANCE_SECONDS = 5 * 60;

    private SpecVerifier() {
    }

    public static boolean verifies(List<String> secrets, String id, String timestamp, String signatureHeader, byte[] body, long nowSeconds)
            throws Exception {
        long sent = Long.parseLong(timestamp);
        if (Math.abs(nowSeconds - sent) > TOLERANCE_SECONDS) {
            return false;
        }
        byte[] signed = concat((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8), body);
        for (String secret : secrets) {
            byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] expected = mac.doFinal(signed);
            for (String pair : signatureHeader.split(" ")) {
                int comma = pair.indexOf(',');
                if (comma < 0 || !pair.substring(0, comma).equals("v1")) {
                    continue;
                }
                byte[] given;
                try {
                    given = Base64.getDecoder().decode(pair.substring(comma + 1));
                } catch (IllegalArgumentException e) {
                    continue;
                }
                if (MessageDigest.isEqual(expected, given)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
