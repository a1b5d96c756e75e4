package io.sluice.sink.webhook.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Instant;
import java.util.concurrent.CompletionException;

import io.sluice.sink.webhook.http.AddressGuard;
import io.sluice.sink.webhook.state.DeliveryLog.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What each answer means for a delivery, as the Standard Webhooks recommendations and Svix/Stripe practice have it. */
class VerdictTest {

    private static final Instant NOW = Instant.parse("2026-11-28T10:00:00Z");

    @ParameterizedTest
    @CsvSource({"200,DELIVERED", "201,DELIVERED", "204,DELIVERED", "299,DELIVERED", "410,GONE", "429,THROTTLED", "502,THROTTLED",
            "503,THROTTLED", "504,THROTTLED", "408,RETRYING", "409,RETRYING", "425,RETRYING", "500,RETRYING", "501,RETRYING",
            "599,RETRYING", "400,FAILED", "401,FAILED", "403,FAILED", "404,FAILED", "413,FAILED", "422,FAILED", "301,FAILED",
            "302,FAILED", "307,FAILED", "100,FAILED"})
    void eachStatusHasItsOutcome(int status, Outcome outcome) {
        assertThat(Verdict.ofStatus(status, null, NOW).outcome()).as("status " + status).isEqualTo(outcome);
    }

    @Test
    void retryAfterIsReadAsSecondsOrAnHttpDate() {
        assertThat(Verdict.ofStatus(429, "120", NOW).retryAfterMillis()).isEqualTo(120_000);
        assertThat(Verdict.ofStatus(503, "0", NOW).retryAfterMillis()).isZero();
        assertThat(Verdict.ofStatus(503, "Sat, 28 Nov 2026 10:00:30 GMT", NOW).retryAfterMillis()).isEqualTo(30_000);
        assertThat(Verdict.ofStatus(503, "Sat, 28 Nov 2026 09:00:00 GMT", NOW).retryAfterMillis()).as("a date past").isZero();
        assertThat(Verdict.ofStatus(429, "soon", NOW).retryAfterMillis()).isEqualTo(-1);
        assertThat(Verdict.ofStatus(429, "-5", NOW).retryAfterMillis()).isEqualTo(-1);
        assertThat(Verdict.ofStatus(429, "99999999999", NOW).retryAfterMillis()).as("capped at 30 days").isEqualTo(30L * 86_400_000);
        assertThat(Verdict.ofStatus(429, null, NOW).retryAfterMillis()).isEqualTo(-1);
    }

    @Test
    void noAnswerIsTriedAgainExceptARefusedAddress() {
        assertThat(Verdict.ofFailure(new CompletionException(new SocketTimeoutException("read timed out"))).outcome())
                .isEqualTo(Outcome.RETRYING);
        Verdict refused = Verdict.ofFailure(new ConnectException("Connection refused"));
        assertThat(refused.outcome()).isEqualTo(Outcome.RETRYING);
        assertThat(refused.error()).startsWith("cannot connect");
        Verdict inside = Verdict.ofFailure(new CompletionException(new AddressGuard.RefusedAddress("x resolves to 10.0.0.1")));
        assertThat(inside.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(inside.error()).contains("10.0.0.1");
    }
}
