package io.sluice.sink.opensearch.bulk;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads a {@code _bulk} answer item by item. Only when it says {@code "errors": true} is the
 * items array read; a clean answer costs one look at its head.
 */
final class BulkResponses {

    /** One item's result: its HTTP status, and the error's type and reason when it failed. */
    record Item(int status, String errorType, String reason) {
        boolean written() {
            return status >= 200 && status < 300 || (status == 404 && errorType == null); // a versioned delete of no document
        }

        boolean olderThanStored() {
            return status == 409 && "version_conflict_engine_exception".equals(errorType);
        }

        boolean transientFailure() {
            return status == 429 || status >= 500;
        }
    }

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final ObjectMapper JSON = new ObjectMapper();

    private BulkResponses() {
    }

    /** The items' results, in request order; empty when the answer says there were no errors. */
    static List<Item> failures(byte[] answer, int expected) throws IOException {
        try (JsonParser head = FACTORY.createParser(answer)) {
            if (head.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("A _bulk answer that is not a JSON object");
            }
            while (head.nextToken() == JsonToken.FIELD_NAME) {
                String field = head.currentName();
                JsonToken value = head.nextToken();
                if (field.equals("errors")) {
                    if (value == JsonToken.VALUE_FALSE) {
                        return List.of();
                    }
                    break;
                }
                head.skipChildren();
            }
        }
        JsonNode items = JSON.readTree(answer).path("items");
        if (items.size() != expected) {
            throw new IOException("A _bulk answer with " + items.size() + " items for " + expected + " writes");
        }
        List<Item> results = new ArrayList<>(expected);
        for (JsonNode wrapper : items) {
            JsonNode item = wrapper.elements().next();
            JsonNode error = item.path("error");
            String type = error.isMissingNode() || error.isNull() ? null : error.path("type").asText();
            String reason = null;
            if (type != null) {
                reason = type + ": " + error.path("reason").asText("");
                JsonNode cause = error.path("caused_by");
                if (!cause.isMissingNode()) {
                    reason += " (" + cause.path("type").asText("") + ": " + cause.path("reason").asText("") + ")";
                }
            }
            results.add(new Item(item.path("status").asInt(), type, reason));
        }
        return results;
    }
}
