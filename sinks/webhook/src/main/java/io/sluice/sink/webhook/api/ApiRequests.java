package io.sluice.sink.webhook.api;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;

/** What an API request carries, read with the error the caller gets when it is wrong. */
final class ApiRequests {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY = 1 << 20;

    private ApiRequests() {
    }

    static String text(JsonNode body, String field) {
        return body.hasNonNull(field) ? body.get(field).asText() : null;
    }

    static Instant instant(String text, String name) {
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new ApiError(400, name + ": '" + text + "' is no time; write it as 2026-11-28T10:15:30Z");
        }
    }

    static int intParam(Map<String, String> query, String name, int dflt, int min, int max) {
        String v = query.get(name);
        if (v == null) {
            return dflt;
        }
        try {
            return Math.max(min, Math.min(max, Integer.parseInt(v)));
        } catch (NumberFormatException e) {
            throw new ApiError(400, name + ": '" + v + "' is not a number");
        }
    }

    static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> query = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    query.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return query;
    }

    static JsonNode body(HttpExchange exchange) throws IOException {
        byte[] bytes;
        try (InputStream in = exchange.getRequestBody()) {
            bytes = in.readNBytes(MAX_BODY + 1);
        }
        if (bytes.length > MAX_BODY) {
            throw new ApiError(413, "the request's body is larger than " + MAX_BODY + " bytes");
        }
        if (bytes.length == 0) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode node = JSON.readTree(bytes);
            if (!node.isObject()) {
                throw new ApiError(400, "the request's body must be a JSON object");
            }
            return node;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new ApiError(400, "the request's body is not JSON: " + e.getOriginalMessage());
        }
    }
}
