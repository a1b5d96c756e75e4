package io.sluice.transforms.transformer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA-256 under the anonymization secret: the same value gives the same digest in every
 * table, run and machine that shares the secret (so joins and foreign keys stay consistent), and
 * nothing can be learned of the value without it. A purpose label goes into every digest, so the
 * outputs of two transformers for one value are unrelated.
 */
public final class KeyedDigest implements Seeds {

    private final SecretKeySpec key;
    /** A Mac holds state while it digests; each thread keys its own once. */
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);
    /** Each purpose's length-prefixed label, made once: transformers use a handful of purposes. */
    private final java.util.Map<String, byte[]> labels = new java.util.concurrent.ConcurrentHashMap<>();
    /** Each purpose's SipHash, keyed by the digest of the purpose under the secret, for the fakes' seeds. */
    private final java.util.Map<String, SipHash> seeders = new java.util.concurrent.ConcurrentHashMap<>();

    /** @param secret the anonymization secret; at least 16 bytes, as a shorter key is guessable */
    public KeyedDigest(byte[] secret) {
        if (secret == null || secret.length < 16) {
            throw new IllegalArgumentException("The anonymization secret must be at least 16 bytes long (it has "
                    + (secret == null ? 0 : secret.length) + "); use a long random string");
        }
        this.key = new SecretKeySpec(secret.clone(), "HmacSHA256");
    }

    /** The 32-byte digest of {@code value} for {@code purpose}. */
    @Override
    public byte[] bytes(String purpose, String value) {
        byte[] label = labels.computeIfAbsent(purpose, KeyedDigest::label);
        Mac mac = macs.get();
        mac.update(label);
        return mac.doFinal(value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A 64-bit seed: SipHash-2-4 of the value under a key that is the first 16 bytes of this
     * purpose's digest under the secret, so it is as secret and as purpose-bound as the digest.
     */
    @Override
    public long seed(String purpose, String value) {
        return seeders.computeIfAbsent(purpose, p -> new SipHash(bytes("seed", p))).hash(value.getBytes(StandardCharsets.UTF_8));
    }

    /** The label's length first: ("ab", "c") and ("a", "bc") must not collide. */
    private static byte[] label(String purpose) {
        byte[] text = purpose.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + text.length).putInt(text.length).put(text).array();
    }

    @Override
    public boolean deterministic() {
        return true;
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        } catch (InvalidKeyException e) {
            throw new IllegalStateException("The anonymization secret cannot key HMAC-SHA-256", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("This JVM has no HMAC-SHA-256", e);
        }
    }
}
