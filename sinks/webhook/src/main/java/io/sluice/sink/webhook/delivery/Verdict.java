package io.sluice.sink.webhook.delivery;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import io.sluice.sink.webhook.http.AddressGuard;
import io.sluice.sink.webhook.state.DeliveryLog.Outcome;

/**
 * What an answer (or a failure to get one) means for a delivery, as the Standard Webhooks
 * recommendations and the practice of Svix and Stripe have it: 2xx delivered; 410 the receiver
 * is gone; 429, 502, 503 and 504 slow down (honouring {@code Retry-After}); 408, 409, 425, other
 * 5xx, timeouts and unreachable receivers tried again; other 4xx and 3xx (redirects are not
 * followed) failed for good, as sending them again would get the same answer.
 *
 * @param retryAfterMillis the wait the receiver asked for; -1 when it named none
 * @param error            what went wrong, for the log; null when delivered
 */
public record Verdict(Outcome outcome, Integer status, long retryAfterMillis, String error) {

    /** The verdict on an answer. */
    public static Verdict ofStatus(int status, String retryAfter, Instant now) {
        if (status >= 200 && status < 300) {
            return new Verdict(Outcome.DELIVERED, status, -1, null);
        }
        if (status == 410) {
            return new Verdict(Outcome.GONE, status, -1, "the receiver answered 410 Gone: it takes no more deliveries");
        }
        if (status == 429 || status == 502 || status == 503 || status == 504) {
            return new Verdict(Outcome.THROTTLED, status, retryAfterMillis(retryAfter, now), "the receiver answered " + status);
        }
        if (status == 408 || status == 409 || status == 425 || status >= 500) {
            return new Verdict(Outcome.RETRYING, status, retryAfterMillis(retryAfter, now), "the receiver answered " + status);
        }
        if (status >= 300 && status < 400) {
            return new Verdict(Outcome.FAILED, status, -1, "the receiver answered " + status
                    + " (a redirect); redirects are not followed: give the subscription the final URL");
        }
        return new Verdict(Outcome.FAILED, status, -1, "the receiver answered " + status + ", which says sending it again would not help");
    }

    /** The verdict on a request that got no answer. */
    public static Verdict ofFailure(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof AddressGuard.RefusedAddress refused) {
            return new Verdict(Outcome.FAILED, null, -1, refused.getMessage());
        }
        String what;
        if (cause instanceof SocketTimeoutException || cause instanceof TimeoutException) {
            what = "no answer in time";
        } else if (cause instanceof ConnectException) {
            what = "cannot connect";
        } else if (cause instanceof java.net.UnknownHostException) {
            what = "unknown host";
        } else {
            what = "no answer";
        }
        String message = cause.getMessage();
        return new Verdict(Outcome.RETRYING, null, -1, what + (message == null ? "" : " (" + message + ")"));
    }

    /** {@code Retry-After} as seconds or an HTTP date, in milliseconds from now; -1 when absent or unreadable. */
    static long retryAfterMillis(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return -1;
        }
        String h = header.trim();
        try {
            long seconds = Long.parseLong(h);
            return seconds < 0 ? -1 : Math.min(seconds, 86_400L * 30) * 1000L;
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(h, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                return Math.max(0, Duration.between(now, at).toMillis());
            } catch (DateTimeParseException notDate) {
                return -1;
            }
        }
    }
}
