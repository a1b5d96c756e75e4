package io.sluice.sink.webhook.payload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.webhook.state.OutboxRow;
import io.sluice.sink.webhook.subscription.PayloadFormat;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;

/**
 * A delivery's request as its subscription asks for it: the body in its format, its content
 * type, the {@code webhook-id}, and the CloudEvents headers in binary mode.
 *
 * <p>A batch's {@code webhook-id} is a hash of its changes' ids; each change in it carries its
 * own {@code id} as well, which is what a receiver deduplicates on when a batch is sent again
 * cut in other places (after a restart).
 */
public record RequestBody(String webhookId, byte[] body, String contentType, Map<String, String> headers) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The request for one change, or for a batch of them when the subscription asks for batches
     * ({@code batch.max.size} above 1: then always an array, of one change too, so a receiver
     * reads one shape).
     */
    public static RequestBody of(SubscriptionSpec spec, List<OutboxRow> rows) {
        boolean batched = spec.batchMaxSize() > 1 || rows.size() > 1;
        if (!batched && spec.format() == PayloadFormat.JSON && spec.columns().isEmpty()) {
            OutboxRow row = rows.get(0);
            return new RequestBody(row.deliveryId(), row.body().getBytes(StandardCharsets.UTF_8), "application/json", Map.of());
        }
        if (!batched && spec.format() == PayloadFormat.CLOUDEVENTS_BINARY) {
            OutboxRow row = rows.get(0);
            ObjectNode change = change(spec, row);
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("ce-specversion", "1.0");
            headers.put("ce-id", row.deliveryId());
            headers.put("ce-source", source(change));
            headers.put("ce-type", type(row));
            headers.put("ce-time", change.path("source").path("commit_time").asText());
            headers.put("ce-subject", subject(change));
            return new RequestBody(row.deliveryId(), bytes(change), "application/json", headers);
        }
        if (!batched) {
            OutboxRow row = rows.get(0);
            ObjectNode change = change(spec, row);
            return spec.format() == PayloadFormat.JSON
                    ? new RequestBody(row.deliveryId(), bytes(change), "application/json", Map.of())
                    : new RequestBody(row.deliveryId(), bytes(event(row, change)), "application/cloudevents+json", Map.of());
        }
        ArrayNode batch = JSON.createArrayNode();
        for (OutboxRow row : rows) {
            ObjectNode change = change(spec, row);
            batch.add(spec.format() == PayloadFormat.JSON ? change : event(row, change));
        }
        return new RequestBody(batchId(rows), bytes(batch),
                spec.format() == PayloadFormat.JSON ? "application/json" : "application/cloudevents-batch+json", Map.of());
    }

    /** A structured-mode CloudEvent holding the change. */
    private static ObjectNode event(OutboxRow row, ObjectNode change) {
        ObjectNode event = JSON.createObjectNode();
        event.put("specversion", "1.0");
        event.put("id", row.deliveryId());
        event.put("source", source(change));
        event.put("type", type(row));
        event.put("time", change.path("source").path("commit_time").asText());
        event.put("subject", subject(change));
        event.put("datacontenttype", "application/json");
        event.set("data", change);
        return event;
    }

    /** {@code /sluice/<source name>/<schema>.<table>}: where the change happened. */
    private static String source(ObjectNode change) {
        return "/sluice/" + change.path("source").path("name").asText() + "/" + change.path("schema").asText() + "."
                + change.path("table").asText();
    }

    /** {@code io.sluice.change.insert} and so on. */
    private static String type(OutboxRow row) {
        return "io.sluice.change." + row.operation();
    }

    /** The row's key as compact JSON; empty for changes without one (truncations). */
    private static String subject(ObjectNode change) {
        JsonNode key = change.path("key");
        return key.isObject() ? key.toString() : "";
    }

    /** The change's JSON, with only the subscription's columns (and the key's) when it names some. */
    private static ObjectNode change(SubscriptionSpec spec, OutboxRow row) {
        ObjectNode change;
        try {
            change = (ObjectNode) JSON.readTree(row.body());
        } catch (IOException e) {
            throw new UncheckedIOException("The outbox row " + row.seq() + " holds no JSON", e);
        }
        if (!spec.columns().isEmpty()) {
            Set<String> keep = new java.util.HashSet<>(spec.columns());
            change.path("key").fieldNames().forEachRemaining(keep::add);
            for (String image : List.of("before", "after")) {
                if (change.get(image) instanceof ObjectNode values) {
                    values.retain(keep);
                }
            }
            if (change.get("changed_columns") instanceof ArrayNode changed) {
                for (int i = changed.size() - 1; i >= 0; i--) {
                    if (!keep.contains(changed.get(i).asText())) {
                        changed.remove(i);
                    }
                }
            }
        }
        return change;
    }

    private static String batchId(List<OutboxRow> rows) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (OutboxRow row : rows) {
                sha.update(row.deliveryId().getBytes(StandardCharsets.UTF_8));
                sha.update((byte) ',');
            }
            return "msg_batch_" + Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(sha.digest(), 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
