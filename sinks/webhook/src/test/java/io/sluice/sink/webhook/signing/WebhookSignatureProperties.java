package io.sluice.sink.webhook.signing;

import io.sluice.testing.webhook.SpecVerifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Invariant: for any body (empty, binary, up to a megabyte), any id without a dot, any timestamp
 * and one to three secrets of any allowed length, the specification's verifier accepts the
 * signature with each of the secrets at the time it names, and refuses it after one byte of the
 * body or one character of the id changed, with a secret not among them, or past five minutes.
 */
class WebhookSignatureProperties {

    @Provide
    Arbitrary<byte[]> bodies() {
        return Arbitraries.oneOf(Arbitraries.bytes().array(byte[].class).ofMaxSize(2_000),
                Arbitraries.of(new byte[0], new byte[1_048_576], "{}".getBytes(), "\u0000\uFFFF😀".getBytes()));
    }

    @Provide
    Arbitrary<String> ids() {
        return Arbitraries.oneOf(Arbitraries.strings().all().ofMinLength(1).ofMaxLength(100).filter(s -> s.indexOf('.') < 0),
                Arbitraries.of("msg_p5jXN8AQM9LWM0D4loKWxJek", "x", "msg_0000000016B3748_1"));
    }

    @Provide
    Arbitrary<List<String>> secrets() {
        Arbitrary<String> one = Arbitraries.integers().between(SigningSecret.MIN_BYTES, SigningSecret.MAX_BYTES)
                .flatMap(n -> Arbitraries.bytes().array(byte[].class).ofSize(n))
                .map(key -> SigningSecret.PREFIX + Base64.getEncoder().encodeToString(key));
        return one.list().ofMinSize(1).ofMaxSize(3);
    }

    @Provide
    Arbitrary<Long> timestamps() {
        return Arbitraries.oneOf(Arbitraries.longs().between(0, 32_503_680_000L), Arbitraries.of(0L, 1614265330L, 32_503_680_000L));
    }

    private static boolean sameHmacKey(String a, String b) {
        return java.util.Arrays.equals(withoutTrailingZeros(a), withoutTrailingZeros(b));
    }

    private static byte[] withoutTrailingZeros(String secret) {
        byte[] key = Base64.getDecoder().decode(secret.substring(SigningSecret.PREFIX.length()));
        int n = key.length;
        while (n > 0 && key[n - 1] == 0) {
            n--;
        }
        return java.util.Arrays.copyOf(key, n);
    }

    @Property(tries = 300)
    void eachSecretVerifiesAndAnyChangeIsCaught(@ForAll("bodies") byte[] body, @ForAll("ids") String id, @ForAll("timestamps") long at,
                                                @ForAll("secrets") List<String> secrets, @ForAll @IntRange(min = 0, max = 1_000_000) int flip)
            throws Exception {
        List<SigningSecret> parsed = new ArrayList<>();
        for (String s : secrets) {
            parsed.add(SigningSecret.parse(s, "test"));
        }
        String header = WebhookSignature.header(id, at, body, parsed);
        String ts = Long.toString(at);
        for (String secret : secrets) {
            assertThat(SpecVerifier.verifies(List.of(secret), id, ts, header, body, at)).isTrue();
            assertThat(SpecVerifier.verifies(List.of(secret), id, ts, header, body, at + SpecVerifier.TOLERANCE_SECONDS)).isTrue();
            assertThat(SpecVerifier.verifies(List.of(secret), id, ts, header, body, at + SpecVerifier.TOLERANCE_SECONDS + 1))
                    .as("too late").isFalse();
        }
        if (body.length > 0) {
            byte[] changed = body.clone();
            changed[flip % body.length] ^= 1;
            assertThat(SpecVerifier.verifies(secrets, id, ts, header, changed, at)).as("a byte of the body changed").isFalse();
        }
        String otherId = id.substring(0, id.length() - 1) + (id.endsWith("x") ? "y" : "x");
        assertThat(SpecVerifier.verifies(secrets, otherId, ts, header, body, at)).as("another id").isFalse();
        // A key differing in its first byte: keys that differ only by trailing zero bytes are one key to HMAC (it pads them).
        byte[] strangerKey = Base64.getDecoder().decode(secrets.get(0).substring(SigningSecret.PREFIX.length()));
        strangerKey[0] ^= 1;
        String stranger = SigningSecret.PREFIX + Base64.getEncoder().encodeToString(strangerKey);
        if (secrets.stream().noneMatch(s -> sameHmacKey(s, stranger))) {
            assertThat(SpecVerifier.verifies(List.of(stranger), id, ts, header, body, at)).as("a secret not signing").isFalse();
        }
    }
}
