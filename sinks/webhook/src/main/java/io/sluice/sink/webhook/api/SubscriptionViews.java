package io.sluice.sink.webhook.api;

import java.net.URI;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.webhook.subscription.Subscription;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;

/** Subscriptions as the API shows them (secrets counted, never shown) and reads them. */
final class SubscriptionViews {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SubscriptionViews() {
    }

    static ObjectNode view(Subscription s, long outboxLast) {
        ObjectNode node = JSON.createObjectNode();
        SubscriptionSpec spec = s.spec();
        node.put("name", s.name());
        node.put("url", shownUrl(spec.url()));
        node.put("status", s.status().key());
        node.put("status_reason", s.statusReason());
        node.put("declared", s.declared());
        node.put("position", s.position());
        // Rows of every table past its place: those its filters pass over go by without a request.
        node.put("outbox_rows_past_position", Math.max(0, outboxLast - s.position()));
        node.put("failing_since", s.failingSince() == null ? null : s.failingSince().toString());
        ObjectNode options = node.putObject("options");
        spec.options().forEach((k, v) -> {
            if (!k.equals("url") && !k.equals("secrets")) {
                options.put(k, v);
            }
        });
        if (s.backfill() != null) {
            node.putObject("backfill").put("state", s.backfill().key()).put("note", s.backfillNote());
        }
        node.put("secrets", spec.secrets().size());
        node.put("created_at", s.createdAt().toString());
        node.put("updated_at", s.updatedAt().toString());
        return node;
    }

    /** The URL with a password in it masked: the API shows where deliveries go, not the credentials. */
    static String shownUrl(URI url) {
        String info = url.getRawUserInfo();
        if (info == null || !info.contains(":")) {
            return url.toString();
        }
        return url.toString().replace(info + "@", info.substring(0, info.indexOf(':')) + ":****@");
    }

    /** A request's options: arrays become comma-separated lists, numbers and booleans their text. */
    static Map<String, String> options(JsonNode body) {
        Map<String, String> options = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isArray()) {
                StringBuilder list = new StringBuilder();
                v.forEach(item -> list.append(list.length() == 0 ? "" : ",").append(item.asText()));
                options.put(e.getKey(), list.toString());
            } else if (!v.isNull()) {
                options.put(e.getKey(), v.asText());
            }
        }
        return options;
    }
}
