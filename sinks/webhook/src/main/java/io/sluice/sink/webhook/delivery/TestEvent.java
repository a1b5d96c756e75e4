package io.sluice.sink.webhook.delivery;

import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.sluice.sink.webhook.http.WebhookClient;
import io.sluice.sink.webhook.payload.SignedRequest;
import io.sluice.sink.webhook.state.OutboxRow;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;

/**
 * A test event sent to a subscription's receiver at once, outside the outbox: operation
 * {@code test}, no table, signed and shaped like any delivery, so a receiver can be checked
 * before changes flow. The answer comes back to the caller; nothing is logged or retried.
 */
public final class TestEvent {

    /** What the receiver answered, or why it did not. */
    public record Result(String deliveryId, Integer status, long latencyMillis, String excerpt, String outcome, String error) {
    }

    private TestEvent() {
    }

    public static Result send(WebhookClient client, SubscriptionSpec spec, java.security.SecureRandom random) throws InterruptedException {
        byte[] nonce = new byte[8];
        random.nextBytes(nonce);
        String id = "msg_test_" + HexFormat.of().formatHex(nonce);
        Instant now = Instant.now();
        String body = "{\"id\":\"" + id + "\",\"operation\":\"test\",\"schema\":null,\"table\":null,\"key\":null,\"before\":null,"
                + "\"after\":null,\"changed_columns\":null,\"source\":{\"name\":\"sluice\",\"commit_time\":\"" + now + "\",\"snapshot\":false}}";
        SignedRequest request = SignedRequest.of(spec, List.of(new OutboxRow(0, id, "", "test", 0, 0, now.toEpochMilli(), body, false)),
                now.getEpochSecond());
        long started = System.nanoTime();
        try {
            WebhookClient.Answer answer = client.post(spec.url(), request.headers(), request.body(), request.contentType(), spec.timeoutMillis())
                    .get(spec.timeoutMillis() + 2_000, TimeUnit.MILLISECONDS);
            Verdict verdict = Verdict.ofStatus(answer.status(), answer.retryAfter(), Instant.now());
            return new Result(id, answer.status(), (System.nanoTime() - started) / 1_000_000L, answer.excerpt(), verdict.outcome().key(),
                    verdict.error());
        } catch (ExecutionException | TimeoutException e) {
            Verdict verdict = Verdict.ofFailure(e);
            return new Result(id, null, (System.nanoTime() - started) / 1_000_000L, null, verdict.outcome().key(), verdict.error());
        }
    }
}
