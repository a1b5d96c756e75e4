package io.sluice.sink.webhook.api;

/** A request the API refuses: the HTTP status and what to do, as the answer's {@code error}. */
final class ApiError extends RuntimeException {

    final int status;

    ApiError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }
}
