package io.sluice.sink.webhook.signing;

import io.sluice.testing.webhook.SpecVerifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;

import org.junit.jupiter.api.Test;

class WebhookSignatureTest {

    /** The example the Standard Webhooks specification's libraries test against. */
    private static final String SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final String SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    private static final long SPEC_TIMESTAMP = 1614265330L;
    private static final byte[] SPEC_BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    private static final String SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    @Test
    void signsThePublishedExampleAsTheSpecificationDoes() throws Exception {
        String header = WebhookSignature.header(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY, List.of(SigningSecret.parse(SPEC_SECRET, "the example")));
        assertThat(header).isEqualTo(SPEC_SIGNATURE);
        assertThat(SpecVerifier.verifies(List.of(SPEC_SECRET), SPEC_ID, String.valueOf(SPEC_TIMESTAMP), SPEC_SIGNATURE, SPEC_BODY,
                SPEC_TIMESTAMP)).as("the test's verifier agrees with the published signature").isTrue();
    }

    @Test
    void duringARotationEitherSecretVerifies() throws Exception {
        String other = SigningSecret.generate(new SecureRandom());
        String header = WebhookSignature.header(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY,
                List.of(SigningSecret.parse(SPEC_SECRET, "old"), SigningSecret.parse(other, "new")));
        assertThat(List.of(header.split(" "))).hasSize(2).first().isEqualTo(SPEC_SIGNATURE);
        for (String secret : List.of(SPEC_SECRET, other)) {
            assertThat(SpecVerifier.verifies(List.of(secret), SPEC_ID, String.valueOf(SPEC_TIMESTAMP), header, SPEC_BODY, SPEC_TIMESTAMP))
                    .isTrue();
        }
    }

    @Test
    void badSecretsAreRefusedWithoutShowingThem() {
        String tooShort = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[23]);
        String tooLong = "whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[65]);
        for (String bad : new String[] {null, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!", tooShort, tooLong}) {
            assertThatThrownBy(() -> SigningSecret.parse(bad, "subscription orders"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("subscription orders")
                    .satisfies(e -> {
                        if (bad != null && bad.length() > 6) {
                            assertThat(e.getMessage()).doesNotContain(bad.substring(6));
                        }
                    });
        }
        assertThat(SigningSecret.parse(SPEC_SECRET, "x").toString()).doesNotContain("MfKQ");
        assertThat(SigningSecret.parse("whsec_" + java.util.Base64.getEncoder().encodeToString(new byte[64]), "x")).isNotNull();
    }

    @Test
    void anIdWithADotIsRefused() {
        assertThatThrownBy(() -> WebhookSignature.header("a.b", 1, new byte[0], List.of(SigningSecret.parse(SPEC_SECRET, "x"))))
                .hasMessageContaining("dot");
    }
}
