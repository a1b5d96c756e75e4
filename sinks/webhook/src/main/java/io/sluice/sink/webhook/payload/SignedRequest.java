package io.sluice.sink.webhook.payload;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.sink.webhook.signing.WebhookSignature;
import io.sluice.sink.webhook.state.OutboxRow;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;

/**
 * A delivery ready to send: its body and the headers the Standard Webhooks way
 * ({@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature} with one signature
 * per secret), plus the CloudEvents headers in binary mode.
 */
public record SignedRequest(RequestBody request, Map<String, String> headers) {

    /** Signs the request for the rows at this time (seconds since the epoch). */
    public static SignedRequest of(SubscriptionSpec spec, List<OutboxRow> rows, long timestampSeconds) {
        RequestBody request = RequestBody.of(spec, rows);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("webhook-id", request.webhookId());
        headers.put("webhook-timestamp", Long.toString(timestampSeconds));
        if (!spec.secrets().isEmpty()) {
            headers.put("webhook-signature", WebhookSignature.header(request.webhookId(), timestampSeconds, request.body(), spec.secrets()));
        }
        headers.putAll(request.headers());
        return new SignedRequest(request, headers);
    }

    public byte[] body() {
        return request.body();
    }

    public String contentType() {
        return request.contentType();
    }
}
